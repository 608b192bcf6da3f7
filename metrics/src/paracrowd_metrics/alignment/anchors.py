"""Links an aligner can trust without a model: identical words, and what punctuation is.

Paraphrases share many words, and a link between two occurrences of the same word is right far
more often than anything a small unsupervised model proposes. When a word occurs more than
once on a side, the occurrence whose neighbours match too is taken (``the`` next to ``dog``
in both sentences), so repeated function words do not all fall on the first occurrence.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Collection, Sequence

from .links import Link


def is_punctuation(word: str) -> bool:
    """Whether every character of ``word`` is punctuation (Unicode category P*)."""
    return bool(word) and all(unicodedata.category(char).startswith("P") for char in word)


def _context_score(
    source: Sequence[str], target: Sequence[str], i: int, j: int, favoured: Collection[Link]
) -> float:
    score = 0.0
    for offset, weight in ((-1, 2.0), (1, 2.0), (-2, 1.0), (2, 1.0)):
        a, b = i + offset, j + offset
        if 0 <= a < len(source) and 0 <= b < len(target) and source[a] == target[b]:
            score += weight
    if (i, j) in favoured:
        score += 0.5
    return score


def identical_word_anchors(
    source: Sequence[str], target: Sequence[str], *, favoured: Collection[Link] = ()
) -> frozenset[Link]:
    """Link identical words (compared lowercased) one to one.

    Where a word occurs more than once, the pairing whose neighbours also match wins; then one
    in ``favoured`` (e.g. a model's choice); then the one nearest the diagonal. Punctuation
    links only to identical punctuation, since the words are the same.
    """
    lowered_source = [word.lower() for word in source]
    lowered_target = [word.lower() for word in target]
    candidates = [
        (_context_score(lowered_source, lowered_target, i, j, favoured), -abs(i - j), i, j)
        for j, word in enumerate(lowered_target)
        for i, other in enumerate(lowered_source)
        if word == other
    ]
    # Best-supported first, each word linked once: a second "a" in one sentence does not take
    # the other sentence's only "a" away from the first.
    links = set()
    linked_source: set[int] = set()
    linked_target: set[int] = set()
    for *_, i, j in sorted(candidates, reverse=True):
        if i not in linked_source and j not in linked_target:
            links.add((i, j))
            linked_source.add(i)
            linked_target.add(j)
    return frozenset(links)
