"""A METEOR-style adequacy metric with a paraphrase matcher (Denkowski & Lavie 2010).

``meteor_score(hypothesis, references, paraphrases=table)`` scores a sentence against its
best reference with exact, stem, synonym (pluggable) and paraphrase matches; the
``ParaphraseTable`` reads and writes METEOR 1.5's table files, and ``extraction`` learns
tables from clusters of paraphrases. No Django import, like the rest of ``paracrowd_metrics``.
"""

from .alignment import ChosenAlignment, choose_alignment
from .matchers import (
    EXACT,
    PARAPHRASE,
    STEM,
    STEMMED_LANGUAGES,
    SYNONYM,
    Match,
    SynonymSource,
    candidate_matches,
    meteor_tokens,
)
from .parameters import ENGLISH, MATCHERS, MeteorParameters
from .score import Meteor, MeteorAlignment, meteor_from_matches, meteor_score, meteor_signature
from .table import ParaphraseTable, TableFormatError, merge_tables

__all__ = [
    "ENGLISH",
    "EXACT",
    "MATCHERS",
    "PARAPHRASE",
    "STEM",
    "STEMMED_LANGUAGES",
    "SYNONYM",
    "ChosenAlignment",
    "Match",
    "Meteor",
    "MeteorAlignment",
    "MeteorParameters",
    "ParaphraseTable",
    "SynonymSource",
    "TableFormatError",
    "candidate_matches",
    "choose_alignment",
    "merge_tables",
    "meteor_from_matches",
    "meteor_score",
    "meteor_signature",
    "meteor_tokens",
]
