"""Word alignment between paraphrases: formats, measures, phrase pairs, agreement, aligner.

A pure-Python library (numpy for the heavy parts); nothing here imports Django.
"""

from .formats import (
    format_pharaoh,
    parse_pharaoh,
    read_msr_annotator,
    read_msr_majority,
    read_naacl,
    read_pharaoh,
    read_wpt,
    write_naacl,
    write_pharaoh,
)
from .links import AlignedPair, Alignment, Link, identical_word_links
from .measures import (
    LinkCounts,
    PrecisionRecall,
    aer,
    corpus_link_counts,
    link_counts,
    precision_recall,
)

__all__ = [
    "AlignedPair",
    "Alignment",
    "Link",
    "LinkCounts",
    "PrecisionRecall",
    "aer",
    "corpus_link_counts",
    "format_pharaoh",
    "identical_word_links",
    "link_counts",
    "parse_pharaoh",
    "precision_recall",
    "read_msr_annotator",
    "read_msr_majority",
    "read_naacl",
    "read_pharaoh",
    "read_wpt",
    "write_naacl",
    "write_pharaoh",
]
