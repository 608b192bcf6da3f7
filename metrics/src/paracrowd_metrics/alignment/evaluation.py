"""An aligner's links against gold alignments, as ``evaluate_aligner`` and the bench print them.

Every link an aligner proposes counts as a claim, sure or possible: the candidate is scored
with all its links as sure, so marking an uncertain link possible cannot buy recall without
paying in precision (AER's |A| already counts every link). Figures are micro-averaged over
the pairs, over all links (identical words included) and over links between non-identical
words (``Alignment.without_identical_words``), beside the identical-words baseline: identical
words linked one to one (``anchors.identical_word_anchors``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from .anchors import identical_word_anchors
from .links import AlignedPair, Alignment
from .measures import LinkCounts, corpus_link_counts

SCOPE_NAMES = {"all": "all links", "non_identical": "non-identical"}
MEASURE_NAMES = {"precision": "P", "recall": "R", "f1": "F1", "aer": "AER"}
Prealign = Callable[[Sequence[str], Sequence[str]], Alignment]


def identical_words_baseline(source: Sequence[str], target: Sequence[str]) -> Alignment:
    """Identical words (compared lower-cased) linked one to one, nothing else."""
    return Alignment(sure=identical_word_anchors(source, target))


def scores(counts: LinkCounts) -> dict[str, float]:
    return {
        "precision": counts.precision,
        "recall": counts.recall,
        "f1": counts.f1,
        "aer": counts.aer,
    }


def scopes(predicted: Sequence[Alignment], gold: Sequence[AlignedPair]) -> dict[str, dict]:
    """P/R/F1/AER over all links and over non-identical words' links."""
    claims = [Alignment(sure=alignment.possible) for alignment in predicted]
    return {
        "all": scores(corpus_link_counts(claims, gold, include_identical=True)),
        "non_identical": scores(corpus_link_counts(claims, gold, include_identical=False)),
    }


def evaluate_prealigner(prealign: Prealign, gold: Sequence[AlignedPair]) -> dict:
    """The report ``evaluate_aligner --json`` prints: the aligner, then the baseline."""
    return {
        "pairs": len(gold),
        **scopes([prealign(pair.source, pair.target) for pair in gold], gold),
        "baseline": scopes([identical_words_baseline(p.source, p.target) for p in gold], gold),
    }


def report_lines(label: str, figures: dict) -> list[str]:
    """Two lines of a table: ``figures``' all links and non-identical links."""
    return [
        f"{label:<32}{SCOPE_NAMES[scope]:<15}"
        + "  ".join(f"{short} {figures[scope][name]:.3f}" for name, short in MEASURE_NAMES.items())
        for scope in SCOPE_NAMES
    ]
