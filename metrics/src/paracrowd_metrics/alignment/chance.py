"""The chance model behind Ĉ: random edits of the automatic pre-alignment (Cohn et al. 2008).

Annotators start from an automatic pre-alignment and change some of its cells (a cell is one
(source word, target word) position, linked or not). The chance model says each cell is
changed independently with the annotator's edit probability, fitted as a linear function of
the two sentence lengths. Drawing J such random alignments per annotator and sentence pair,
extracting their atomic phrase pairs and averaging the overlap ratio estimates π̂₀.

A cell counts as linked when it holds any link (sure or possible) of the links that define
phrases (see ``phrases.phrase_links``); the pre-alignment is compared the same way.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import pairwise

import numpy as np

from .links import Link
from .phrase_grids import WORD_BITS, AtomicPhraseGrid, atomic_phrase_grid, identical_phrase_mask
from .phrase_grids import row_masks as link_row_masks
from .phrases import PhrasePair, extract_phrase_pairs, is_identical_phrase


@dataclass(frozen=True)
class EditModel:
    """An annotator's probability of changing a cell: a + b·(source length) + c·(target length).

    The probability is clipped to [0, 1], since a straight line fitted to fractions can leave
    that range for sentence lengths far from the ones observed.
    """

    intercept: float
    per_source_word: float
    per_target_word: float

    def probability(self, source_length: int, target_length: int) -> float:
        """The edit probability for one cell of a sentence pair of these lengths."""
        value = (
            self.intercept
            + self.per_source_word * source_length
            + self.per_target_word * target_length
        )
        return min(1.0, max(0.0, value))


def changed_cell_fraction(
    pre_alignment: Iterable[Link], annotated: Iterable[Link], source_length: int, target_length: int
) -> float:
    """The fraction of the grid's cells an annotator changed from the pre-alignment."""
    changed = frozenset(pre_alignment) ^ frozenset(annotated)
    return len(changed) / (source_length * target_length)


def fit_edit_model(observations: Iterable[tuple[int, int, float]]) -> EditModel:
    """Least-squares fit of changed-cell fractions on the two sentence lengths.

    ``observations`` are (source length, target length, changed fraction) triples, one per
    sentence pair the annotator aligned. With too few distinct lengths to determine all three
    coefficients, the minimum-norm solution is used; it still reproduces the mean fraction.
    """
    rows = [(1.0, float(n), float(m), fraction) for n, m, fraction in observations]
    if not rows:
        raise ValueError("an edit model needs at least one annotated sentence pair")
    data = np.array(rows)
    coefficients = np.linalg.lstsq(data[:, :3], data[:, 3], rcond=None)[0]
    return EditModel(*(float(value) for value in coefficients))


def sample_generator(seed: int, pair_id: str, annotator: str) -> np.random.Generator:
    """A random generator for one annotator on one sentence pair.

    Derived from the seed and both names, so a pair's draws do not depend on which other pairs
    are scored with it, nor on the order they come in.
    """
    digest = hashlib.blake2b(f"{pair_id}\x00{annotator}".encode(), digest_size=16).digest()
    words = np.frombuffer(digest, dtype=np.uint32)
    return np.random.default_rng(np.random.SeedSequence([seed, *words.tolist()]))


def draw_flips(
    rng: np.random.Generator, cells: int, samples: int, probability: float
) -> np.ndarray:
    """Sorted positions ``sample · cells + cell`` of the cells that flip in each sample.

    Every one of the ``samples × cells`` cells flips independently with ``probability``.
    The gaps between successive flips of such a sequence are geometric, so drawing the gaps
    gives exactly the same process in time proportional to the number of flips.
    """
    total = cells * samples
    if probability <= 0 or total == 0:
        return np.zeros(0, dtype=np.int64)
    if probability >= 1:
        return np.arange(total, dtype=np.int64)
    expected = total * probability
    chunk = int(expected + 6 * np.sqrt(expected) + 16)
    positions = []
    last = -1
    while last < total:
        found = last + np.cumsum(rng.geometric(probability, size=chunk))
        positions.append(found)
        last = int(found[-1])
    flat = np.concatenate(positions)
    return flat[flat < total]


@dataclass(frozen=True)
class SampledAlignments:
    """``samples`` random alignments of one sentence pair: the pre-alignment with cells flipped.

    ``flips`` holds sorted positions ``sample · (n·m) + i·m + j`` of the flipped cells.
    """

    pre_alignment: frozenset[Link]
    source_length: int
    target_length: int
    samples: int
    flips: np.ndarray

    def _flip_coordinates(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        cells = self.source_length * self.target_length
        sample, cell = np.divmod(self.flips, cells)
        i, j = np.divmod(cell, self.target_length)
        return sample, i, j

    def links(self, sample: int) -> frozenset[Link]:
        """The links of one sampled alignment."""
        cells = self.source_length * self.target_length
        start, end = np.searchsorted(self.flips, [sample * cells, (sample + 1) * cells])
        i, j = np.divmod(self.flips[start:end] - sample * cells, self.target_length)
        flipped = {(int(a), int(b)) for a, b in zip(i, j, strict=True)}
        return self.pre_alignment ^ flipped

    def row_masks(self, *, transposed: bool) -> np.ndarray:
        """Bit masks ``(words, rows, samples)`` of every sample; rows are target words when
        ``transposed``, else source words."""
        links = sorted(self.pre_alignment)
        rows, columns = self.source_length, self.target_length
        sample, i, j = self._flip_coordinates()
        if transposed:
            links = [(b, a) for a, b in links]
            rows, columns = columns, rows
            i, j = j, i
        pre = link_row_masks(links, rows, columns)
        masks = np.repeat(pre[:, :, None], self.samples, axis=2)
        bits = np.left_shift(np.uint64(1), (j % WORD_BITS).astype(np.uint64))
        np.bitwise_xor.at(masks, (j // WORD_BITS, i, sample), bits)
        return masks


def draw_alignments(
    rng: np.random.Generator,
    pre_alignment: Iterable[Link],
    source_length: int,
    target_length: int,
    probability: float,
    samples: int,
) -> SampledAlignments:
    """Draw alignments by flipping each cell of the pre-alignment with ``probability``."""
    flips = draw_flips(rng, source_length * target_length, samples, probability)
    return SampledAlignments(frozenset(pre_alignment), source_length, target_length, samples, flips)


@dataclass(frozen=True)
class SampleOverlaps:
    """Atomic phrase pair counts of paired samples of two annotators: |A_j|, |B_j|, |A_j ∩ B_j|."""

    first: np.ndarray
    second: np.ndarray
    shared: np.ndarray

    def mean_ratio(self) -> float | None:
        """The mean of |A_j ∩ B_j| / min(|A_j|, |B_j|) over samples where that is defined.

        None when no sample has atomic phrase pairs on both sides.
        """
        smaller = np.minimum(self.first, self.second)
        defined = smaller > 0
        if not defined.any():
            return None
        return float(np.mean(self.shared[defined] / smaller[defined]))


def sampled_phrase_grids(
    sampled: Sequence[SampledAlignments],
    source: Sequence[str],
    target: Sequence[str],
    *,
    include_identical: bool = False,
) -> list[AtomicPhraseGrid]:
    """Atomic phrase pairs of every sample of several draws over one sentence pair (fast route).

    All draws (one per annotator, typically) go through one batch, which saves numpy's
    per-call overhead. The grids enumerate spans of the shorter sentence; two grids of the
    same sentence pair are laid out alike and can be compared with ``shared_counts``.
    """
    if not sampled:
        return []
    transposed = len(target) < len(source)
    rows_side, columns_side = (target, source) if transposed else (source, target)
    masks = np.concatenate([draw.row_masks(transposed=transposed) for draw in sampled], axis=2)
    grid = atomic_phrase_grid(masks, len(columns_side))
    if not include_identical:
        grid = grid.without(identical_phrase_mask(grid, rows_side, columns_side))
    bounds = np.cumsum([0, *(draw.samples for draw in sampled)])
    return [grid.batch_slice(int(start), int(stop)) for start, stop in pairwise(bounds)]


def sampled_phrase_grid(
    sampled: SampledAlignments,
    source: Sequence[str],
    target: Sequence[str],
    *,
    include_identical: bool = False,
) -> AtomicPhraseGrid:
    """Atomic phrase pairs of every sample of one draw (see ``sampled_phrase_grids``)."""
    return sampled_phrase_grids([sampled], source, target, include_identical=include_identical)[0]


def grid_overlaps(first: AtomicPhraseGrid, second: AtomicPhraseGrid) -> SampleOverlaps:
    """Per-sample overlap counts of two annotators' sampled grids."""
    return SampleOverlaps(first.counts(), second.counts(), first.shared_counts(second))


def sampled_phrase_sets(
    sampled: SampledAlignments,
    source: Sequence[str],
    target: Sequence[str],
    *,
    include_identical: bool = False,
) -> list[frozenset[PhrasePair]]:
    """Atomic phrase pairs of each sample, one alignment at a time (the plain route).

    Slow, and kept as the reference the fast route is checked and benchmarked against.
    """
    result = []
    for sample in range(sampled.samples):
        atomic = extract_phrase_pairs(sampled.links(sample)).atomic
        if not include_identical:
            atomic = frozenset(p for p in atomic if not is_identical_phrase(p, source, target))
        result.append(atomic)
    return result


def set_overlaps(
    first: Sequence[frozenset[PhrasePair]], second: Sequence[frozenset[PhrasePair]]
) -> SampleOverlaps:
    """Per-sample overlap counts of two annotators' sampled phrase sets."""
    return SampleOverlaps(
        np.array([len(a) for a in first]),
        np.array([len(b) for b in second]),
        np.array([len(a & b) for a, b in zip(first, second, strict=True)]),
    )
