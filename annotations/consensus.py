"""Consensus alignments of stored pairs: every annotator's links combined, each annotator
weighted by what the site knows of them, each link with a confidence
(``paracrowd_metrics.alignment.consensus_alignment``).

An annotator's weight is the mean of their word F1 against the other annotators in the
stored agreement table (its per-annotator row, kept up to date in the background) and their
F1 on the alignment trial set, whichever are known; an annotator with neither gets the
typical weight of the pair's other annotators. Rejected alignments take no part. Reading the
weights is two queries, whatever the number of pairs.
"""

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from paracrowd_metrics.alignment import (
    ConsensusAlignment,
    annotator_weights,
    consensus_alignment,
    parse_pharaoh,
)
from paracrowd_metrics.alignment.consensus import annotator_weight

from .models import AgreementReport, Alignment
from .trial import trial_f1_by_worker


@dataclass(frozen=True)
class Evidence:
    """What is known of one annotator's reliability (None: not known)."""

    agreement_f1: float | None
    trial_f1: float | None


class AnnotatorWeights:
    """The evidence of each annotator's reliability, read once, and the weights it gives."""

    def __init__(self, agreement: dict[str, float | None], trial: dict[int, float]):
        self.agreement = agreement
        self.trial = trial

    @classmethod
    def read(cls, *, worker_ids: Iterable[int] | None = None) -> "AnnotatorWeights":
        """The stored agreement table's per-annotator F1, and trial F1 of the workers of
        ``worker_ids`` (every worker who took the trial when None)."""
        table = AgreementReport.objects.filter(pk=1).values_list("table", flat=True).first()
        agreement = {row["label"]: row["word_f1"] for row in (table or {}).get("per_annotator", [])}
        return cls(agreement, trial_f1_by_worker(worker_ids=worker_ids))

    def evidence(self, alignment: Alignment) -> Evidence:
        return Evidence(
            agreement_f1=self.agreement.get(alignment.annotator_name),
            trial_f1=self.trial.get(alignment.worker_id) if alignment.worker_id else None,
        )

    def consensus(self, alignments: Sequence[Alignment]) -> ConsensusAlignment:
        """The weighted consensus of one pair's ``alignments`` (rejected ones left out), keyed
        by alignment id; an empty consensus when none is left."""
        counted = [a for a in alignments if a.status != Alignment.Status.REJECTED]
        evidence = {str(a.pk): self.evidence(a) for a in counted}
        weights = annotator_weights(
            {key: (seen.agreement_f1, seen.trial_f1) for key, seen in evidence.items()}
        )
        return consensus_alignment({str(a.pk): parse_pharaoh(a.links) for a in counted}, weights)


@dataclass(frozen=True)
class ConsensusRow:
    """One link of a pair's consensus as the review page shows it."""

    link: str  # "i-j", 0-based as in the Pharaoh form
    word_a: str
    word_b: str
    verdict: str  # "sure", "possible" or "left out" (of the consensus)
    confidence: float
    marked: str  # how the alignment under review marks it: "sure", "possible" or ""

    @property
    def departs(self) -> bool:
        """The alignment marks a link the consensus leaves out, or misses one it keeps."""
        return (self.verdict == "left out") == bool(self.marked)


def consensus_rows(consensus: ConsensusAlignment, alignment: Alignment) -> list[ConsensusRow]:
    """Every link anyone marked, most confident first, beside how ``alignment`` marks it."""
    pair = alignment.pair
    mine = parse_pharaoh(alignment.links)
    return [
        ConsensusRow(
            link=f"{i}-{j}",
            word_a=pair.tokens_a[i],
            word_b=pair.tokens_b[j],
            verdict="sure" if each.sure else "possible" if each.included else "left out",
            confidence=each.confidence,
            marked=_mark(mine, each.link),
        )
        for each in consensus.links
        for i, j in [each.link]
    ]


def _mark(alignment, link) -> str:
    if link in alignment.sure:
        return "sure"
    return "possible" if link in alignment.possible else ""


def confidence_line(consensus: ConsensusAlignment) -> str:
    """A pair's links with their confidences, as ``consensus-confidence.txt`` holds them:
    ``i-j`` sure in the consensus, ``ipj`` possible in it, ``ixj`` left out; then ``:`` and
    the confidence to three places."""
    marks = {(True, True): "-", (True, False): "p", (False, False): "x"}
    return " ".join(
        f"{i}{marks[each.included, each.sure]}{j}:{each.confidence:.3f}"
        for each in consensus.links
        for i, j in [each.link]
    )


def weights_rows(
    weights: AnnotatorWeights,
    alignments: Iterable[Alignment],
    annotator_name: Callable[[Alignment], str],
) -> list[tuple[str, str, str, str]]:
    """``annotator-weights.tsv``: one row per annotator of ``alignments`` (name as the export
    names them, weight, agreement F1, trial F1; empty where not known), by name."""
    rows = {}
    for alignment in alignments:
        seen = weights.evidence(alignment)
        weight = annotator_weight((seen.agreement_f1, seen.trial_f1))
        rows[annotator_name(alignment)] = tuple(
            "" if value is None else f"{value:.3f}"
            for value in (weight, seen.agreement_f1, seen.trial_f1)
        )
    return [(name, *values) for name, values in sorted(rows.items())]
