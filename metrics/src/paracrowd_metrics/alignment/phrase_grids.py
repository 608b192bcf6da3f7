"""Atomic phrase pairs of many alignments of one sentence pair at once, with numpy.

The Monte Carlo estimate of chance agreement extracts atomic phrase pairs from thousands of
random alignments per sentence pair; one alignment at a time in Python is far too slow. Here a
batch of ``B`` alignments over an ``n``×``m`` sentence pair is held as bit masks: ``rows[w, i,
b]`` has bit ``k`` set when source word ``i`` links target word ``64w + k`` in alignment ``b``.
Every step below is an array operation over the whole batch, with the batch on the last axis
so the inner loops run over contiguous memory. The result equals what
``phrases.extract_phrase_pairs`` gives for each alignment; the tests check this.

Tables are indexed ``[d, i, b]`` for the source span ``i .. i + d`` (inclusive). A valid phrase
pair's target span is the hull of its source words' links, so one source span has at most one
phrase pair, and O(n²) entries per alignment describe them all: enumerate the shorter side.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from .links import Link
from .phrases import PhrasePair

_ONE = np.uint64(1)
WORD_BITS = 64


def word_count(columns: int) -> int:
    """How many 64-bit words hold one row of ``columns`` target positions."""
    return max(1, -(-columns // WORD_BITS))


def _ones_below(k: np.ndarray) -> np.ndarray:
    """uint64 masks with the ``k`` lowest bits set, for k in 0..64."""
    k = k.astype(np.uint64)
    half = k >> _ONE
    # Two shifts because shifting by 64 at once is undefined.
    return ((_ONE << half) << (k - half)) - _ONE


def _lowest_bit(x: np.ndarray) -> np.ndarray:
    """Index of the lowest set bit of each word (64 for a zero word)."""
    return np.bitwise_count((x & (~x + _ONE)) - _ONE)


def _highest_bit(x: np.ndarray) -> np.ndarray:
    """Index of the highest set bit of each word (-1 for a zero word)."""
    smeared = x.copy()
    for shift in (1, 2, 4, 8, 16, 32):
        smeared |= smeared >> np.uint64(shift)
    return np.bitwise_count(smeared).astype(np.int16) - 1


def row_masks(links: Sequence[Link] | np.ndarray, rows: int, columns: int) -> np.ndarray:
    """Bit masks ``(words, rows)`` of one alignment's links (row = source word)."""
    masks = np.zeros((word_count(columns), rows), dtype=np.uint64)
    for i, j in links:
        masks[j // WORD_BITS, i] |= _ONE << np.uint64(j % WORD_BITS)
    return masks


@dataclass(frozen=True)
class AtomicPhraseGrid:
    """Atomic phrase pairs of a batch of alignments, one entry per source span.

    ``atomic[d, i, b]``: source words ``i .. i + d`` are the source side of an atomic phrase
    pair of alignment ``b``. ``spans[w][d, i, b]``: the target words of that pair, as bits
    (word ``w`` of the mask); meaningless where ``atomic`` is false.
    """

    atomic: np.ndarray
    spans: tuple[np.ndarray, ...]

    def counts(self) -> np.ndarray:
        """The number of atomic phrase pairs of each alignment of the batch."""
        return self.atomic.sum(axis=(0, 1))

    def shared_counts(self, other: AtomicPhraseGrid) -> np.ndarray:
        """For each b, how many atomic phrase pairs alignment b has in common with ``other``'s."""
        same = self.atomic & other.atomic
        for mine, theirs in zip(self.spans, other.spans, strict=True):
            same &= mine == theirs
        return same.sum(axis=(0, 1))

    def without(self, excluded: np.ndarray) -> AtomicPhraseGrid:
        """The same grid without the entries where ``excluded`` is true."""
        return AtomicPhraseGrid(self.atomic & ~excluded, self.spans)

    def batch_slice(self, start: int, stop: int) -> AtomicPhraseGrid:
        """The alignments ``start`` to ``stop`` of the batch (views, not copies)."""
        return AtomicPhraseGrid(
            self.atomic[..., start:stop], tuple(span[..., start:stop] for span in self.spans)
        )

    def phrase_pairs(self, b: int) -> frozenset[PhrasePair]:
        """The atomic phrase pairs of alignment ``b``, as ``PhrasePair`` values."""
        pairs = set()
        for d, i in zip(*np.nonzero(self.atomic[:, :, b]), strict=True):
            columns = [
                WORD_BITS * w + k
                for w, span in enumerate(self.spans)
                for k in range(WORD_BITS)
                if int(span[d, i, b]) >> k & 1
            ]
            pairs.add(PhrasePair(int(i), int(i + d + 1), min(columns), max(columns) + 1))
        return frozenset(pairs)


def _by_end(table: np.ndarray) -> np.ndarray:
    """Re-index a ``[d, i]`` span table as ``[n - 1 - d, i + d]``: by last word, longest first.

    In this layout the right halves of every split of one span length are a plain slice.
    """
    n = table.shape[0]
    result = np.zeros_like(table)
    for d in range(n):
        result[n - 1 - d, d:] = table[d, : n - d]
    return result


def atomic_phrase_grid(rows: np.ndarray, columns: int) -> AtomicPhraseGrid:
    """Atomic phrase pairs of each alignment in ``rows`` (bit masks, shape words × n × B)."""
    words, n, batch = rows.shape
    linked = rows != 0
    row_linked = linked.any(axis=0)
    first = np.full((n, batch), columns, dtype=np.int16)
    last = np.full((n, batch), -1, dtype=np.int16)
    for w in range(words - 1, -1, -1):
        np.copyto(first, _lowest_bit(rows[w]) + WORD_BITS * w, where=linked[w], casting="unsafe")
    for w in range(words):
        np.copyto(last, _highest_bit(rows[w]) + WORD_BITS * w, where=linked[w], casting="unsafe")
    # Per word of the mask: the columns before the row's first link and up to its last link.
    # A span's column hull is (OR of "up to last") minus (AND of "before first"); unlinked rows
    # (first = columns, last = -1) leave both unchanged.
    before_first = [_ones_below(np.clip(first - WORD_BITS * w, 0, WORD_BITS)) for w in range(words)]
    up_to_last = [
        _ones_below(np.clip(last + 1 - WORD_BITS * w, 0, WORD_BITS)) for w in range(words)
    ]
    # Columns used by the rows above i and by the rows below i.
    above = np.zeros_like(rows)
    below = np.zeros_like(rows)
    np.bitwise_or.accumulate(rows[:, :-1], axis=1, out=above[:, 1:])
    np.bitwise_or.accumulate(rows[:, :0:-1], axis=1, out=below[:, -2::-1])

    spans = tuple(np.zeros((n, n, batch), dtype=np.uint64) for _ in range(words))
    valid = np.zeros((n, n, batch), dtype=bool)
    outside_link = np.zeros((n, batch), dtype=bool)
    hull_low, hull_high = before_first, up_to_last
    for d in range(n):
        if d:
            hull_low = [
                low[: n - d] & more[d:] for low, more in zip(hull_low, before_first, strict=True)
            ]
            hull_high = [
                high[: n - d] | more[d:] for high, more in zip(hull_high, up_to_last, strict=True)
            ]
        # The box is consistent when no row outside the span links into its column hull.
        outside = outside_link[: n - d]
        outside[:] = False
        for w in range(words):
            span = spans[w][d, : n - d]
            np.bitwise_xor(hull_high[w], hull_low[w], out=span)
            outside |= ((above[w, : n - d] | below[w, d:]) & span) != 0
        np.logical_and(row_linked[: n - d], row_linked[d:], out=valid[d, : n - d])
        valid[d, : n - d] &= ~outside

    width_type = np.uint8 if columns < 128 else np.uint16
    width = sum(np.bitwise_count(span).astype(width_type) for span in spans) * valid
    valid_by_end = _by_end(valid)
    width_by_end = _by_end(width)
    composite = np.zeros_like(valid)
    for d in range(1, n):
        # Split i..i+d after word i+t for every t < d at once: the left half is entry (t, i),
        # the right half ends at i+d with length d-1-t. Two valid halves have disjoint target
        # spans inside the box, and cover it exactly when their widths add up to its width.
        splits = width_by_end[n - d :, d:] + width[:d, : n - d]
        splits = splits == width[d, : n - d]
        splits &= valid[:d, : n - d]
        splits &= valid_by_end[n - d :, d:]
        np.logical_or.reduce(splits, axis=0, out=composite[d, : n - d])
    return AtomicPhraseGrid(valid & ~composite, spans)


@lru_cache(maxsize=64)
def _identical_spans(
    source: tuple[str, ...], target: tuple[str, ...]
) -> tuple[tuple[int, int, tuple[int, ...]], ...]:
    """(d, i, target bits) for every source span i..i+d equal to a target span.

    Cached because every annotator's grid of one sentence pair needs the same list.
    """
    spans = []
    for i in range(len(source)):
        for j in range(len(target)):
            d = 0
            while i + d < len(source) and j + d < len(target) and source[i + d] == target[j + d]:
                bits = row_masks([(0, column) for column in range(j, j + d + 1)], 1, len(target))
                spans.append((d, i, tuple(int(word) for word in bits[:, 0])))
                d += 1
    return tuple(spans)


def identical_phrase_mask(
    grid: AtomicPhraseGrid, source: Sequence[str], target: Sequence[str]
) -> np.ndarray:
    """Where ``grid`` holds a phrase pair whose two sides are the same words.

    ``source`` is the enumerated (row) side of the grid, ``target`` the masked side.
    """
    excluded = np.zeros(grid.atomic.shape, dtype=bool)
    for d, i, words in _identical_spans(tuple(source), tuple(target)):
        same = grid.atomic[d, i].copy()
        for span, word in zip(grid.spans, words, strict=True):
            same &= span[d, i] == np.uint64(word)
        excluded[d, i] |= same
    return excluded
