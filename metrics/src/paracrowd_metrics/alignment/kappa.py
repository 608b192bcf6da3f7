"""Kappa for nominal labels: Cohen's (two coders), Fleiss' (many), and Fleiss' over links.

κ = (P_o − P_e) / (1 − P_e). When chance agreement P_e is 1 (every label is the same single
category) κ is 0/0 and these functions return NaN, as scikit-learn and statsmodels do.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Hashable, Iterable, Mapping, Sequence

from .links import Alignment, Link, identical_word_links

SURE, POSSIBLE, NONE = "sure", "possible", "none"
LINK_CATEGORIES = (SURE, POSSIBLE, NONE)
NULL = -1  # the position of NULL in link items: (i, NULL) or (NULL, j)


def _kappa(observed: float, expected: float) -> float:
    if expected == 1:
        return math.nan
    return (observed - expected) / (1 - expected)


def cohen_kappa(first: Sequence[Hashable], second: Sequence[Hashable]) -> float:
    """Cohen's κ between two coders' labels of the same items."""
    if len(first) != len(second):
        raise ValueError(f"{len(first)} labels against {len(second)}")
    if not first:
        return math.nan
    return cohen_kappa_from_table(Counter(zip(first, second, strict=True)))


def cohen_kappa_from_table(table: Mapping[tuple[Hashable, Hashable], int]) -> float:
    """Cohen's κ from how many items got each (first label, second label).

    The counts add over items, so a corpus κ can be kept as the sum of its pairs' tables.
    """
    items = sum(table.values())
    if not items:
        return math.nan
    observed = sum(count for (a, b), count in table.items() if a == b) / items
    first_counts: Counter = Counter()
    second_counts: Counter = Counter()
    for (a, b), count in table.items():
        first_counts[a] += count
        second_counts[b] += count
    expected = sum(first_counts[label] * second_counts[label] for label in first_counts) / (
        items * items
    )
    return _kappa(observed, expected)


def fleiss_kappa(table: Sequence[Sequence[int]]) -> float:
    """Fleiss' κ from an items × categories table of how many raters chose each category.

    Every item must have the same number of raters (at least two).
    """
    rows = [list(row) for row in table]
    if not rows:
        return math.nan
    raters = sum(rows[0])
    if raters < 2 or any(sum(row) != raters for row in rows):
        raise ValueError("every item needs the same number of raters, at least two")
    squares = sum(count * count for row in rows for count in row)
    totals = [sum(column) for column in zip(*rows, strict=True)]
    return fleiss_kappa_from_totals(len(rows), raters, squares, totals)


def fleiss_kappa_from_totals(
    items: int, raters: int, squares: int, category_totals: Sequence[int]
) -> float:
    """Fleiss' κ from sums over items: ``squares`` is Σ over items and categories of the
    count squared, ``category_totals`` the count of each category summed over items.

    These sums add over items, so a corpus κ can be kept as the sum of its pairs' figures.
    """
    if not items:
        return math.nan
    observed = (squares - items * raters) / (items * raters * (raters - 1))
    shares = [total / (items * raters) for total in category_totals]
    return _kappa(observed, sum(share * share for share in shares))


def link_labels(alignment: Alignment, items: Iterable[tuple[int, int]]) -> list[str]:
    """An annotator's category (sure, possible, none) for each link item.

    An item with NULL on one side is the annotator's when that word has no link at all.
    """
    linked_source = {i for i, _ in alignment.possible}
    linked_target = {j for _, j in alignment.possible}
    labels = []
    for i, j in items:
        if j == NULL:
            labels.append(NONE if i in linked_source else SURE)
        elif i == NULL:
            labels.append(NONE if j in linked_target else SURE)
        elif (i, j) in alignment.sure:
            labels.append(SURE)
        elif (i, j) in alignment.possible:
            labels.append(POSSIBLE)
        else:
            labels.append(NONE)
    return labels


def link_items(
    alignments: Iterable[Alignment],
    source: Sequence[str],
    target: Sequence[str],
    *,
    include_identical: bool = False,
) -> list[Link]:
    """The link items of one sentence pair: every link any annotator proposed, in order.

    A word an annotator left unlinked counts as linked to NULL (item ``(i, NULL)`` or
    ``(NULL, j)``), so agreeing that a word has no counterpart is agreement too. Links between
    identical words are left out unless ``include_identical``; which words are unlinked is
    judged on the whole alignment.
    """
    items: set[Link] = set()
    for alignment in alignments:
        items |= alignment.possible
        linked_source = {i for i, _ in alignment.possible}
        linked_target = {j for _, j in alignment.possible}
        items |= {(i, NULL) for i in range(len(source)) if i not in linked_source}
        items |= {(NULL, j) for j in range(len(target)) if j not in linked_target}
    if not include_identical:
        word_links = {(i, j) for i, j in items if NULL not in (i, j)}
        items -= identical_word_links(word_links, source, target)
    return sorted(items)


def link_fleiss_kappa(
    pairs: Iterable[tuple[Sequence[str], Sequence[str], Mapping[str, Alignment]]],
    annotators: Sequence[str] | None = None,
    *,
    include_identical: bool = False,
) -> float:
    """Fleiss' κ over link items of many annotators (three or more, typically).

    ``pairs`` are (source tokens, target tokens, {annotator: alignment}). The items are the
    union of all links proposed by any annotator plus NULL links for unlinked words (see
    ``link_items``), pooled over the corpus; each annotator's category per item is sure,
    possible or none. Fleiss' κ needs the same raters on every item, so only sentence pairs
    aligned by every one of ``annotators`` (default: those of the first pair) are used.
    """
    table = []
    for source, target, alignments in pairs:
        if annotators is None:
            annotators = sorted(alignments)
        if not all(name in alignments for name in annotators):
            continue
        chosen = [alignments[name] for name in annotators]
        items = link_items(chosen, source, target, include_identical=include_identical)
        labels = [link_labels(alignment, items) for alignment in chosen]
        for item_labels in zip(*labels, strict=True):
            counts = Counter(item_labels)
            table.append([counts[category] for category in LINK_CATEGORIES])
    return fleiss_kappa(table)


def link_cohen_kappa(
    pairs: Iterable[tuple[Sequence[str], Sequence[str], Alignment, Alignment]],
    *,
    include_identical: bool = False,
) -> float:
    """Cohen's κ of two annotators over link items pooled over sentence pairs.

    ``pairs`` are (source tokens, target tokens, first alignment, second alignment).
    """
    first_labels: list[str] = []
    second_labels: list[str] = []
    for source, target, first, second in pairs:
        items = link_items([first, second], source, target, include_identical=include_identical)
        first_labels += link_labels(first, items)
        second_labels += link_labels(second, items)
    return cohen_kappa(first_labels, second_labels)
