"""Phrase pairs consistent with a word alignment, atomic and composite (Cohn et al. 2008).

A phrase pair is a (source span, target span) box that

- holds at least one link,
- has no link from inside the box to outside it (in either direction), and
- has no unaligned word at any of its four span boundaries.

It is *composite* when it can be split into two valid phrase pairs that exactly cover it, the
target halves in the same order as the source halves or crossed; otherwise it is *atomic*. A
consequence worth knowing: a box with an unaligned word between its only two possible halves
is atomic, since neither half may end on that word.

Which links define phrases: by default every link, sure and possible. Cohn et al. ask
annotators to mark non-compositional correspondences (idioms, block paraphrases such as
"was killed" ~ "murdered") as possible links between every word of the two blocks; those blocks
are exactly the phrase pairs we want, and sure links alone would lose them. ``links="sure"``
extracts from sure links only.

Spans are half-open: ``PhrasePair(0, 2, 1, 2)`` is source words 0–1 with target word 1.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import accumulate
from typing import Literal, NamedTuple

from .links import Alignment, Link
from .measures import AdditiveCounts, PrecisionRecall, harmonic_mean, ratio

PhraseLinks = Literal["all", "sure"]


class PhrasePair(NamedTuple):
    """A source span and a target span, both half-open word ranges."""

    source_start: int
    source_end: int
    target_start: int
    target_end: int


@dataclass(frozen=True)
class PhrasePairs:
    """Every valid phrase pair of an alignment, and the atomic ones among them."""

    all: frozenset[PhrasePair]
    atomic: frozenset[PhrasePair]


def phrase_links(alignment: Alignment, links: PhraseLinks = "all") -> frozenset[Link]:
    """The links that define phrase pairs: every link (default) or the sure ones only."""
    if links == "all":
        return alignment.possible
    if links == "sure":
        return alignment.sure
    raise ValueError(f"links must be 'all' or 'sure', not {links!r}")


def _spans_by_source(links: frozenset[Link]) -> dict[tuple[int, int], tuple[int, int]]:
    """Valid phrase pairs as {(first source word, last): (first target word, last)}.

    With aligned boundary words, a consistent box's target span is exactly the hull of its
    source words' links, so each source span gives at most one phrase pair.
    """
    first_column: dict[int, int] = {}
    last_column: dict[int, int] = {}
    row_links: dict[int, int] = {}
    column_links = [0] * (max((j for _, j in links), default=-1) + 1)
    for i, j in links:
        first_column[i] = min(first_column.get(i, j), j)
        last_column[i] = max(last_column.get(i, j), j)
        row_links[i] = row_links.get(i, 0) + 1
        column_links[j] += 1
    # links_before[j] = links in the columns before j
    links_before = [0, *accumulate(column_links)]
    rows = sorted(row_links)
    valid = {}
    for position, first_row in enumerate(rows):
        low, high, inside = len(column_links), -1, 0
        for last_row in rows[position:]:
            low = min(low, first_column[last_row])
            high = max(high, last_column[last_row])
            inside += row_links[last_row]
            # Every link of these rows lies in columns low..high; the box is consistent when
            # those columns hold no other link.
            if links_before[high + 1] - links_before[low] == inside:
                valid[first_row, last_row] = (low, high)
    return valid


def _is_composite(
    valid: dict[tuple[int, int], tuple[int, int]], first_row: int, last_row: int
) -> bool:
    low, high = valid[first_row, last_row]
    width = high - low + 1
    for split in range(first_row, last_row):
        left = valid.get((first_row, split))
        right = valid.get((split + 1, last_row))
        # Two valid halves have disjoint target spans inside this box; they cover it exactly
        # when no column is left between them.
        if left and right and (left[1] - left[0]) + (right[1] - right[0]) + 2 == width:
            return True
    return False


def extract_phrase_pairs(links: Iterable[Link]) -> PhrasePairs:
    """All valid phrase pairs of a set of links, and which of them are atomic."""
    valid = _spans_by_source(frozenset(links))
    every = set()
    atomic = set()
    for (first_row, last_row), (low, high) in valid.items():
        pair = PhrasePair(first_row, last_row + 1, low, high + 1)
        every.add(pair)
        if not _is_composite(valid, first_row, last_row):
            atomic.add(pair)
    return PhrasePairs(frozenset(every), frozenset(atomic))


def is_identical_phrase(pair: PhrasePair, source: Sequence[str], target: Sequence[str]) -> bool:
    """Whether the two sides of a phrase pair are the same words."""
    return list(source[pair.source_start : pair.source_end]) == list(
        target[pair.target_start : pair.target_end]
    )


def scored_phrase_pairs(
    alignment: Alignment,
    source: Sequence[str] | None,
    target: Sequence[str] | None,
    *,
    include_identical: bool = False,
    links: PhraseLinks = "all",
) -> PhrasePairs:
    """The phrase pairs of an alignment as they are scored.

    Phrases are extracted from the whole alignment; then, unless ``include_identical``, phrase
    pairs whose two sides are the same words are left out (the phrase-level counterpart of
    leaving identical word pairs out).
    """
    pairs = extract_phrase_pairs(phrase_links(alignment, links))
    if include_identical:
        return pairs
    if source is None or target is None:
        raise ValueError(
            "identical phrase pairs are excluded by default, which needs the tokens; pass "
            "them, or include_identical=True"
        )

    def keep(found: frozenset[PhrasePair]) -> frozenset[PhrasePair]:
        return frozenset(pair for pair in found if not is_identical_phrase(pair, source, target))

    return PhrasePairs(keep(pairs.all), keep(pairs.atomic))


@dataclass(frozen=True)
class PhraseCounts(AdditiveCounts):
    """Counts behind phrase precision and recall; add them to micro-average.

    ``precision``, ``recall`` and ``f1`` compare phrase pairs extracted from every link on both
    sides (the Poss tier). The Sure tier extracts phrase pairs from sure links alone on both
    sides; phrase pairs of the two tiers are not nested (a possible link can make a box of
    sure links inconsistent), so each tier is compared within itself:

    - precision (Poss) = |atom(A_P) ∩ all(B_P)| / |atom(A_P)|   (``precision``)
    - precision (Sure) = |atom(A_S) ∩ all(B_S)| / |atom(A_S)|
    - recall (Poss)    = |all(A_P) ∩ atom(B_P)| / |atom(B_P)|   (``recall``)
    - recall (Sure)    = |all(A_S) ∩ atom(B_S)| / |atom(B_S)|
    - ``tiered_f1`` of precision (Poss) and recall (Sure), as the word-level F1 (see
      ``measures``); the published phrase figures of Cohn et al. fit it as well.
    """

    candidate_atomic: int = 0  # |A_atom|
    candidate_atomic_matched: int = 0  # |A_atom ∩ B_all|
    reference_atomic: int = 0  # |B_atom|
    reference_atomic_matched: int = 0  # |A_all ∩ B_atom|
    candidate_sure_atomic: int = 0  # |atom(A_S)|
    candidate_sure_atomic_matched: int = 0  # |atom(A_S) ∩ all(B_S)|
    reference_sure_atomic: int = 0  # |atom(B_S)|
    reference_sure_atomic_matched: int = 0  # |all(A_S) ∩ atom(B_S)|

    @property
    def precision(self) -> float:
        return ratio(self.candidate_atomic_matched, self.candidate_atomic)

    @property
    def recall(self) -> float:
        return ratio(self.reference_atomic_matched, self.reference_atomic)

    @property
    def f1(self) -> float:
        return harmonic_mean(self.precision, self.recall)

    @property
    def precision_possible(self) -> float:
        return self.precision

    @property
    def precision_sure(self) -> float:
        return ratio(self.candidate_sure_atomic_matched, self.candidate_sure_atomic)

    @property
    def recall_possible(self) -> float:
        return self.recall

    @property
    def recall_sure(self) -> float:
        return ratio(self.reference_sure_atomic_matched, self.reference_sure_atomic)

    @property
    def tiered_f1(self) -> float:
        return harmonic_mean(self.precision_possible, self.recall_sure)

    def scores(self) -> PrecisionRecall:
        """Precision, recall and F1 from these counts."""
        return PrecisionRecall(self.precision, self.recall, self.f1)


def phrase_counts_between(
    candidate: PhrasePairs,
    reference: PhrasePairs,
    candidate_sure: PhrasePairs | None = None,
    reference_sure: PhrasePairs | None = None,
) -> PhraseCounts:
    """Phrase counts of already extracted phrase pairs (see ``phrase_counts``).

    ``candidate`` and ``reference`` come from every link; ``candidate_sure`` and
    ``reference_sure`` from the sure links alone (default: the same as every link).
    """
    candidate_sure = candidate_sure or candidate
    reference_sure = reference_sure or reference
    return PhraseCounts(
        candidate_atomic=len(candidate.atomic),
        candidate_atomic_matched=len(candidate.atomic & reference.all),
        reference_atomic=len(reference.atomic),
        reference_atomic_matched=len(candidate.all & reference.atomic),
        candidate_sure_atomic=len(candidate_sure.atomic),
        candidate_sure_atomic_matched=len(candidate_sure.atomic & reference_sure.all),
        reference_sure_atomic=len(reference_sure.atomic),
        reference_sure_atomic_matched=len(candidate_sure.all & reference_sure.atomic),
    )


def phrase_counts(
    candidate: Alignment,
    reference: Alignment,
    source: Sequence[str] | None = None,
    target: Sequence[str] | None = None,
    *,
    include_identical: bool = False,
    links: PhraseLinks = "all",
) -> PhraseCounts:
    """Count the candidate's atomic phrase pairs found in the reference, and vice versa."""
    a, b, a_sure, b_sure = (
        scored_phrase_pairs(
            alignment, source, target, include_identical=include_identical, links=tier
        )
        for tier in (links, "sure")
        for alignment in (candidate, reference)
    )
    return phrase_counts_between(a, b, a_sure, b_sure)


def phrase_precision_recall(
    candidate: Alignment,
    reference: Alignment,
    source: Sequence[str] | None = None,
    target: Sequence[str] | None = None,
    *,
    include_identical: bool = False,
    links: PhraseLinks = "all",
) -> PrecisionRecall:
    """Phrase precision |A_atom ∩ B_all| / |A_atom|, recall |A_all ∩ B_atom| / |B_atom|, F1.

    Empty sets follow the word-level convention (see ``measures``): vacuously perfect.
    """
    counts = phrase_counts(
        candidate, reference, source, target, include_identical=include_identical, links=links
    )
    return counts.scores()
