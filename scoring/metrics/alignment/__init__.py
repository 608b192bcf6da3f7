"""Word alignment between paraphrases: formats, measures, phrase pairs, agreement, aligner.

A pure-Python library (numpy for the heavy parts); nothing here imports Django.
"""

from .measures import (
    LinkCounts,
    PrecisionRecall,
    aer,
    corpus_link_counts,
    link_counts,
    precision_recall,
)
from .phrases import (
    PhraseCounts,
    PhrasePair,
    PhrasePairs,
    extract_phrase_pairs,
    phrase_counts,
    phrase_precision_recall,
)

__all__ = [
    "AlignedPair",
    "Alignment",
    "Link",
    "LinkCounts",
    "PhraseCounts",
    "PhrasePair",
    "PhrasePairs",
    "PrecisionRecall",
    "aer",
    "corpus_link_counts",
    "extract_phrase_pairs",
    "format_pharaoh",
    "identical_word_links",
    "link_counts",
    "parse_pharaoh",
    "phrase_counts",
    "phrase_precision_recall",
    "precision_recall",
    "read_msr_annotator",
    "read_msr_majority",
    "read_naacl",
    "read_pharaoh",
    "read_wpt",
    "write_naacl",
    "write_pharaoh",
]
