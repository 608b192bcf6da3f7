"""Word alignments: sure and possible links between two token sequences.

A link is a pair ``(i, j)`` of 0-based word positions, ``i`` in the source sentence and ``j`` in
the target sentence. Following Och & Ney, every sure link is also a possible link (S ⊆ P), so
``Alignment.possible`` always contains ``Alignment.sure``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

Link = tuple[int, int]


def _as_links(links: Iterable[Sequence[int]]) -> frozenset[Link]:
    result = set()
    for link in links:
        i, j = (int(position) for position in link)
        if i < 0 or j < 0:
            raise ValueError(f"link {link!r} has a negative word position")
        result.add((i, j))
    return frozenset(result)


@dataclass(frozen=True)
class Alignment:
    """One annotator's (or one aligner's) links for one sentence pair.

    ``sure`` and ``possible`` accept any iterable of ``(i, j)`` pairs; the stored ``possible``
    set is the union of both, so S ⊆ P holds whatever the caller passes.
    """

    sure: frozenset[Link] = field(default_factory=frozenset)
    possible: frozenset[Link] = field(default_factory=frozenset)

    def __post_init__(self) -> None:
        sure = _as_links(self.sure)
        object.__setattr__(self, "sure", sure)
        object.__setattr__(self, "possible", _as_links(self.possible) | sure)

    @property
    def links(self) -> frozenset[Link]:
        """Every link, sure or possible (the same set as ``possible``)."""
        return self.possible

    @property
    def possible_only(self) -> frozenset[Link]:
        """Links marked possible and not sure."""
        return self.possible - self.sure

    def transposed(self) -> Alignment:
        """The same alignment seen from the target side: ``(i, j)`` becomes ``(j, i)``."""
        return Alignment(
            sure={(j, i) for i, j in self.sure}, possible={(j, i) for i, j in self.possible}
        )

    def without(self, links: Iterable[Link]) -> Alignment:
        """This alignment with the given links removed (from both S and P)."""
        removed = frozenset(links)
        return Alignment(sure=self.sure - removed, possible=self.possible - removed)

    def without_identical_words(self, source: Sequence[str], target: Sequence[str]) -> Alignment:
        """This alignment without links between identical words (same surface form).

        The comparison is exact string equality: "The" and "the" are different words.
        """
        return self.without(identical_word_links(self.possible, source, target))


def identical_word_links(
    links: Iterable[Link], source: Sequence[str], target: Sequence[str]
) -> frozenset[Link]:
    """The links of ``links`` that join two identical words."""
    identical = set()
    for i, j in links:
        if i >= len(source) or j >= len(target):
            raise ValueError(
                f"link ({i}, {j}) is outside a {len(source)}×{len(target)} sentence pair"
            )
        if source[i] == target[j]:
            identical.add((i, j))
    return frozenset(identical)


@dataclass(frozen=True)
class AlignedPair:
    """A tokenised sentence pair with one alignment between its words."""

    pair_id: str
    source: tuple[str, ...]
    target: tuple[str, ...]
    alignment: Alignment

    def __post_init__(self) -> None:
        object.__setattr__(self, "source", tuple(self.source))
        object.__setattr__(self, "target", tuple(self.target))
        for i, j in self.alignment.possible:
            if i >= len(self.source) or j >= len(self.target):
                raise ValueError(
                    f"pair {self.pair_id}: link ({i}, {j}) is outside a "
                    f"{len(self.source)}×{len(self.target)} sentence pair"
                )
