"""PINC (Chen & Dolan, 2011): how many of a candidate's n-grams are new relative to its source.

PINC(s, c) = (1/N') * sum over n of (1 - |G(s, n) & G(c, n)| / |G(c, n)|), where G(x, n) is
the set of distinct n-grams of order n of x, lowercased, and n runs over the orders 1..N for
which c has at least one n-gram (N' of them). PINC is 0 when c has no tokens. Reported x100.
"""

from collections.abc import Sequence

import numpy as np

from paracrowd_metrics.ngrams import NgramCounts, ngram_counts
from paracrowd_metrics.tokens import sentence_units

PINC_MAX_ORDER = 4


def pinc_ngrams(
    sentence: str,
    *,
    max_order: int = PINC_MAX_ORDER,
    tokenize: str = "13a",
    keep_spaces: bool = False,
) -> NgramCounts:
    """The lowercased n-grams PINC compares (only their keys matter: PINC uses sets)."""
    units = sentence_units(sentence, tokenize=tokenize, lowercase=True, keep_spaces=keep_spaces)
    return ngram_counts(units, max_order)


def pinc_from_overlaps(overlaps: Sequence[int], sizes: Sequence[int], sources: int = 1) -> float:
    """PINC (0-100) from, per order, the candidate's distinct n-gram count and the overlap.

    ``overlaps[n - 1]`` is how many of the candidate's distinct order-n n-grams the source
    has. Summed over several ``sources``, it gives the mean PINC against them: every
    source's PINC averages over the same orders (those the candidate has), so the mean
    of the novelties is the novelty of the mean overlap.
    """
    novelty = 0.0
    orders = 0
    for overlap, size in zip(overlaps, sizes, strict=True):
        if size:
            novelty += 1.0 - overlap / sources / size
            orders += 1
    return 100.0 * novelty / orders if orders else 0.0


def pinc_from_overlap_table(overlaps: np.ndarray, sizes: np.ndarray, sources: int) -> np.ndarray:
    """``pinc_from_overlaps`` of many candidates at once: row i of the two (candidates x
    orders) integer tables is candidate i. Each row's result is the scalar function's to
    the last bit: the same divisions, and the orders added up one by one in order (a
    row-wise ``sum`` would add them pairwise, rounding differently).
    """
    present = sizes > 0
    novelties = np.where(present, 1.0 - overlaps / sources / np.maximum(sizes, 1), 0.0)
    novelty = np.zeros(len(sizes))
    for column in novelties.T:
        novelty += column
    orders = present.sum(axis=1)
    return np.where(orders > 0, 100.0 * novelty / np.maximum(orders, 1), 0.0)


def pinc(
    source: str,
    candidate: str,
    *,
    max_order: int = PINC_MAX_ORDER,
    tokenize: str = "13a",
    keep_spaces: bool = False,
) -> float:
    """Return PINC(source, candidate) on a 0-100 scale: 100 means no n-gram was reused."""
    options = {"max_order": max_order, "tokenize": tokenize, "keep_spaces": keep_spaces}
    source_grams = pinc_ngrams(source, **options)
    candidate_grams = pinc_ngrams(candidate, **options)
    overlaps = [
        len(candidate_order.keys() & source_order.keys())
        for candidate_order, source_order in zip(candidate_grams, source_grams, strict=True)
    ]
    return pinc_from_overlaps(overlaps, [len(each) for each in candidate_grams])
