"""Word-level alignment measures: precision, recall, F1 and AER (Och & Ney 2003).

For a candidate alignment A and a reference B (sure links S, possible links P, S ⊆ P):

- precision = |A_S ∩ B_P| / |A_S|
- recall    = |A_P ∩ B_S| / |B_S|
- F1        = 2PR / (P + R)
- AER       = 1 − (|A ∩ S| + |A ∩ P|) / (|A| + |S|), where A is every candidate link (A_P) and
  S, P are the reference's sure and possible links.

Cohn et al. (2008, Tables 3 and 4) split precision and recall by how strictly the other
side's links count. Against the reference's possible links (Poss) or its sure links only (Sure):

- precision (Poss) = |A_S ∩ B_P| / |A_S|   (the precision above)
- precision (Sure) = |A_S ∩ B_S| / |A_S|
- recall (Poss)    = |A_P ∩ B_P| / |B_P|
- recall (Sure)    = |A_P ∩ B_S| / |B_S|   (the recall above)

and their single F1 is the one above, of precision (Poss) and recall (Sure): the published
figures agree with that (MTC words: precision 0.79, recall 0.73, F1 0.76).

Corpus figures add the counts over sentence pairs before dividing (micro-average).

Empty sets: a ratio whose denominator is zero is vacuously perfect. A candidate with no sure
link has precision 1 (it claims nothing wrong); a reference with no sure link gives recall 1
(nothing to find); F1 is 0 when precision + recall is 0; AER is 0 when both A and S are empty.
So two empty alignments agree perfectly, and an empty candidate against a non-empty reference
scores P = 1, R = 0, F1 = 0. None of these figures is ever NaN, so they can be stored and summed.

Identical word pairs (a link between two words with the same surface form) are left out by
default, as in Cohn et al. (2008): they are trivial to align and would inflate agreement.
Leaving them out needs the tokens; without tokens pass ``include_identical=True``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, fields

from .links import AlignedPair, Alignment


def ratio(numerator: int, denominator: int) -> float:
    """``numerator / denominator``, with an empty denominator counting as perfect (1.0)."""
    return numerator / denominator if denominator else 1.0


def harmonic_mean(precision: float, recall: float) -> float:
    """F1 of a precision and a recall; 0 when both are 0."""
    total = precision + recall
    return 2 * precision * recall / total if total else 0.0


@dataclass(frozen=True)
class PrecisionRecall:
    """Precision, recall and their harmonic mean F1, each in [0, 1]."""

    precision: float
    recall: float
    f1: float


class AdditiveCounts:
    """Base for frozen dataclasses of counts that add field by field (micro-averaging)."""

    def __add__(self, other):
        if type(other) is not type(self):
            return NotImplemented
        return type(self)(*(getattr(self, f.name) + getattr(other, f.name) for f in fields(self)))


@dataclass(frozen=True)
class LinkCounts(AdditiveCounts):
    """The link counts behind precision, recall and AER; add them to micro-average."""

    candidate_sure: int = 0  # |A_S|
    candidate_sure_matched: int = 0  # |A_S ∩ B_P|
    reference_sure: int = 0  # |B_S|
    reference_sure_matched: int = 0  # |A_P ∩ B_S|, which is also |A ∩ S| in AER
    candidate_links: int = 0  # |A| = |A_P|
    candidate_links_matched: int = 0  # |A ∩ P| = |A_P ∩ B_P|
    candidate_sure_matched_sure: int = 0  # |A_S ∩ B_S|
    reference_links: int = 0  # |B_P|

    @property
    def precision(self) -> float:
        return ratio(self.candidate_sure_matched, self.candidate_sure)

    @property
    def recall(self) -> float:
        return ratio(self.reference_sure_matched, self.reference_sure)

    @property
    def f1(self) -> float:
        return harmonic_mean(self.precision, self.recall)

    @property
    def precision_sure(self) -> float:
        """Precision counting only the reference's sure links as right."""
        return ratio(self.candidate_sure_matched_sure, self.candidate_sure)

    @property
    def recall_possible(self) -> float:
        """Recall of every reference link, sure or possible, by any candidate link."""
        return ratio(self.candidate_links_matched, self.reference_links)

    @property
    def aer(self) -> float:
        denominator = self.candidate_links + self.reference_sure
        if not denominator:
            return 0.0
        return 1 - (self.reference_sure_matched + self.candidate_links_matched) / denominator

    def scores(self) -> PrecisionRecall:
        """Precision, recall and F1 from these counts."""
        return PrecisionRecall(self.precision, self.recall, self.f1)


def scored_alignment(
    alignment: Alignment,
    source: Sequence[str] | None,
    target: Sequence[str] | None,
    *,
    include_identical: bool,
) -> Alignment:
    """The alignment as it is scored: without identical word pairs unless they are included."""
    if include_identical:
        return alignment
    if source is None or target is None:
        raise ValueError(
            "identical word pairs are excluded by default, which needs the source and target "
            "tokens; pass them, or include_identical=True to score every link"
        )
    return alignment.without_identical_words(source, target)


def link_counts(
    candidate: Alignment,
    reference: Alignment,
    source: Sequence[str] | None = None,
    target: Sequence[str] | None = None,
    *,
    include_identical: bool = False,
) -> LinkCounts:
    """Count the links of ``candidate`` that agree with ``reference`` (see the module docs)."""
    a = scored_alignment(candidate, source, target, include_identical=include_identical)
    b = scored_alignment(reference, source, target, include_identical=include_identical)
    return LinkCounts(
        candidate_sure=len(a.sure),
        candidate_sure_matched=len(a.sure & b.possible),
        reference_sure=len(b.sure),
        reference_sure_matched=len(a.possible & b.sure),
        candidate_links=len(a.possible),
        candidate_links_matched=len(a.possible & b.possible),
        candidate_sure_matched_sure=len(a.sure & b.sure),
        reference_links=len(b.possible),
    )


def precision_recall(
    candidate: Alignment,
    reference: Alignment,
    source: Sequence[str] | None = None,
    target: Sequence[str] | None = None,
    *,
    include_identical: bool = False,
) -> PrecisionRecall:
    """Word-level precision, recall and F1 of ``candidate`` against ``reference``."""
    counts = link_counts(candidate, reference, source, target, include_identical=include_identical)
    return counts.scores()


def aer(
    candidate: Alignment,
    reference: Alignment,
    source: Sequence[str] | None = None,
    target: Sequence[str] | None = None,
    *,
    include_identical: bool = False,
) -> float:
    """Alignment error rate of ``candidate`` (all its links) against ``reference``'s S and P."""
    counts = link_counts(candidate, reference, source, target, include_identical=include_identical)
    return counts.aer


def corpus_link_counts(
    candidates: Iterable[AlignedPair | Alignment],
    references: Iterable[AlignedPair],
    *,
    include_identical: bool = False,
) -> LinkCounts:
    """Summed link counts over a corpus (micro-average), pairs matched by position.

    The tokens come from the reference pairs, so a candidate may be a bare ``Alignment``.
    """
    total = LinkCounts()
    for candidate, reference in zip(candidates, references, strict=True):
        if isinstance(candidate, AlignedPair):
            candidate = candidate.alignment
        total += link_counts(
            candidate,
            reference.alignment,
            reference.source,
            reference.target,
            include_identical=include_identical,
        )
    return total
