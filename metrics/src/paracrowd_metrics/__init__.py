"""ParaCrowd's metrics: BLEU, character BLEU, PINC, the combined score, cluster scoring.

A plain Python library with no Django import, usable on its own. BLEU agrees with
sacrebleu 2.6.0 (its tokenizers are used as they are); PINC follows Chen & Dolan (2011).
"""

from paracrowd_metrics.bleu import (
    SMOOTH_DEFAULTS,
    BleuStatistics,
    bleu_from_statistics,
    corpus_bleu,
    sentence_bleu,
    sentence_statistics,
)
from paracrowd_metrics.cluster_scores import (
    Addition,
    ClusterScores,
    ClusterSettings,
    SentenceScores,
)
from paracrowd_metrics.clusters import ClusterIndex, score_clusters
from paracrowd_metrics.combined import (
    CorrelationTable,
    combined,
    correlation_table,
    fit_combined,
    pearson,
    sigmoid,
)
from paracrowd_metrics.pinc import pinc
from paracrowd_metrics.signature import bleu_signature, pinc_signature, signature
from paracrowd_metrics.tokens import TOKENIZERS, default_max_order, default_tokenize

__all__ = [
    "SMOOTH_DEFAULTS",
    "TOKENIZERS",
    "Addition",
    "BleuStatistics",
    "ClusterIndex",
    "ClusterScores",
    "ClusterSettings",
    "CorrelationTable",
    "SentenceScores",
    "bleu_from_statistics",
    "bleu_signature",
    "combined",
    "corpus_bleu",
    "correlation_table",
    "default_max_order",
    "default_tokenize",
    "fit_combined",
    "pearson",
    "pinc",
    "pinc_signature",
    "score_clusters",
    "sentence_bleu",
    "sentence_statistics",
    "signature",
    "sigmoid",
]
