"""Fleiss' κ over link items as Brockett (2007) computed it for the MSR RTE-2 alignments.

The items of one sentence pair are

- every (hypothesis word, text word) that any annotator linked, sure or possible,
- every (hypothesis word, NULL) where any annotator left that hypothesis word unlinked, and
- the hypothesis's NULL token: each hypothesis line of the GIZA-style files opens with
  ``NULL ({ … })``, whose braces list the text words an annotator aligned to nothing, and the
  report counts that token like any hypothesis word. With nothing in its braces (as in every
  MSR file) it is one item per sentence pair, (NULL, NULL), that every annotator leaves
  unlinked. On the RTE-2 test files this gives the report's 11,438 items (800 pairs).

Identical words are kept, and only the hypothesis side has NULL items: the text is much longer
than the hypothesis and most of its words have no counterpart.

The report labels the items two ways:

- its κ has three categories, sure, possible or none: a link to NULL is no link
  (``KAPPA_CATEGORIES``, ``BrockettAgreement.kappa``);
- its agreement counts (Table 1: items all annotators put in the same category, only two,
  none) keep "aligned to NULL" apart from "not linked", four categories
  (``BROCKETT_CATEGORIES``, ``BrockettAgreement.agreeing``, and for comparison
  ``BrockettAgreement.kappa_null_apart``). ``agreeing`` counts items by the size of the largest
  agreeing group, for any number of annotators.

In this package the RTE text is the source (``i``) and the hypothesis the target (``j``), so
the NULL items are on the target side by default.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import combinations
from typing import Literal

from .kappa import cohen_kappa, fleiss_kappa
from .links import Alignment

SURE, POSSIBLE, UNLINKED, NOT_LINKED = "sure", "possible", "null", "not linked"
NONE = "none"
# The labelling of the report's agreement counts: aligned to NULL kept apart.
BROCKETT_CATEGORIES = (SURE, POSSIBLE, UNLINKED, NOT_LINKED)
# The labelling of the report's κ: a link to NULL is no link.
KAPPA_CATEGORIES = (SURE, POSSIBLE, NONE)
NULL_WORD = -1
NULL_TOKEN_ITEM = (NULL_WORD, NULL_WORD)

Side = Literal["source", "target"]


@dataclass(frozen=True)
class BrockettAgreement:
    """Fleiss' κ over link items, the items behind it, and Cohen's κ per annotator pair.

    ``kappa`` and ``pairwise`` use the κ's labelling (sure, possible, none); ``agreeing``,
    ``categories`` and ``kappa_null_apart`` the agreement counts' (NULL kept apart).
    """

    annotators: tuple[str, ...]
    sentence_pairs: int
    items: int
    kappa: float
    # items by the size of the largest group of annotators that chose one category
    agreeing: dict[int, int] = field(default_factory=dict)
    # items by category, summed over annotators (each item counted once per annotator)
    categories: dict[str, int] = field(default_factory=dict)
    pairwise: dict[tuple[str, str], float] = field(default_factory=dict)
    kappa_null_apart: float = float("nan")

    @property
    def all_agree(self) -> int:
        return self.agreeing.get(len(self.annotators), 0)

    @property
    def none_agree(self) -> int:
        """Items on which no two annotators chose the same category."""
        return self.agreeing.get(1, 0)


def brockett_items(
    alignments: Iterable[Alignment], words: int, *, null_side: Side = "target"
) -> list[tuple[int, int]]:
    """The link items of one sentence pair, as (word, other word) with the NULL side first.

    ``words`` is the length of the ``null_side`` sentence. Items are ``(k, position)`` where
    ``k`` is a word of the NULL side and ``position`` a word of the other side, or
    ``NULL_WORD`` for the word's NULL item; ``NULL_TOKEN_ITEM`` is the NULL token's.
    """
    items: set[tuple[int, int]] = {NULL_TOKEN_ITEM}
    for alignment in alignments:
        links = _oriented(alignment.possible, null_side)
        items |= links
        linked = {k for k, _ in links}
        items |= {(k, NULL_WORD) for k in range(words) if k not in linked}
    return sorted(items)


def _oriented(links: Iterable[tuple[int, int]], null_side: Side) -> set[tuple[int, int]]:
    return {(j, i) if null_side == "target" else (i, j) for i, j in links}


def brockett_labels(
    alignment: Alignment, items: Sequence[tuple[int, int]], *, null_side: Side = "target"
) -> list[str]:
    """One annotator's category for each item of ``brockett_items``, NULL kept apart."""
    sure = _oriented(alignment.sure, null_side)
    possible = _oriented(alignment.possible, null_side)
    linked = {k for k, _ in possible}
    labels = []
    for k, position in items:
        if (k, position) == NULL_TOKEN_ITEM:
            # Links between words only: no text word is aligned to the NULL token.
            labels.append(UNLINKED)
        elif position == NULL_WORD:
            labels.append(NOT_LINKED if k in linked else UNLINKED)
        elif (k, position) in sure:
            labels.append(SURE)
        elif (k, position) in possible:
            labels.append(POSSIBLE)
        else:
            labels.append(NOT_LINKED)
    return labels


def kappa_label(label: str) -> str:
    """An item's category in the κ's labelling: aligned to NULL and not linked are both none."""
    return NONE if label in (UNLINKED, NOT_LINKED) else label


def brockett_fleiss_kappa(
    pairs: Iterable[tuple[Sequence[str], Sequence[str], Mapping[str, Alignment]]],
    annotators: Sequence[str] | None = None,
    *,
    null_side: Side = "target",
) -> BrockettAgreement:
    """Brockett's Fleiss' κ over the link items of every sentence pair all annotators aligned.

    ``pairs`` are (source tokens, target tokens, {annotator: alignment}); ``annotators``
    defaults to those of the first pair, and pairs missing one of them are skipped (Fleiss' κ
    needs the same raters on every item). Cohen's κ of each two annotators is computed on the
    same items, so the figures can be compared.
    """
    labels: dict[str, list[str]] = {}
    sentence_pairs = 0
    for source, target, alignments in pairs:
        if annotators is None:
            annotators = sorted(alignments)
        if not all(name in alignments for name in annotators):
            continue
        sentence_pairs += 1
        chosen = [alignments[name] for name in annotators]
        words = len(target) if null_side == "target" else len(source)
        items = brockett_items(chosen, words, null_side=null_side)
        for name, alignment in zip(annotators, chosen, strict=True):
            labels.setdefault(name, []).extend(
                brockett_labels(alignment, items, null_side=null_side)
            )
    names = tuple(annotators or ())
    columns = [labels.get(name, []) for name in names]
    kappa_columns = {name: [kappa_label(label) for label in labels.get(name, [])] for name in names}
    table, table_null_apart = [], []
    agreeing: Counter[int] = Counter()
    categories: Counter[str] = Counter()
    for item_labels in zip(*columns, strict=True):
        counts = Counter(item_labels)
        table_null_apart.append([counts[category] for category in BROCKETT_CATEGORIES])
        merged = Counter(kappa_label(label) for label in item_labels)
        table.append([merged[category] for category in KAPPA_CATEGORIES])
        agreeing[max(counts.values())] += 1
        categories.update(counts)
    enough = len(names) >= 2
    return BrockettAgreement(
        annotators=names,
        sentence_pairs=sentence_pairs,
        items=len(table),
        kappa=fleiss_kappa(table) if enough else float("nan"),
        agreeing=dict(sorted(agreeing.items(), reverse=True)),
        categories={category: categories[category] for category in BROCKETT_CATEGORIES},
        pairwise={
            (first, second): cohen_kappa(kappa_columns[first], kappa_columns[second])
            for first, second in combinations(names, 2)
        },
        kappa_null_apart=fleiss_kappa(table_null_apart) if enough else float("nan"),
    )
