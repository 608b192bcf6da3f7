"""What a supervised aligner knows about each cell (i, j) of a sentence pair's grid.

``cell_features`` gives one row of numbers per cell, in ``FEATURES`` order: the two words'
forms (identical, lower-cased, Snowball stem, WordNet synonyms, the site's paraphrase table,
string similarity for typos and morphology), where the cell lies (relative position, whether
its neighbours are identical words), how ambiguous the words are (an identical word elsewhere
in the other sentence), and the unsupervised model's posteriors in both directions.
``neighbour_features`` adds, from a first pass's link probabilities, what the neighbouring
cells and the rest of the cell's row and column look like: links grow into phrases along the
diagonal, and a word that has a much better partner elsewhere is rarely linked here.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from difflib import SequenceMatcher
from functools import lru_cache

import numpy as np
import snowballstemmer

from .aligner import Aligner
from .anchors import identical_word_anchors, is_punctuation

FEATURES = (
    "identical",
    "lowercase identical",
    "same stem",
    "synonyms",
    "paraphrase table",
    "string similarity",
    "common prefix of 4+",
    "short identical words",
    "identical anchor",
    "identical, once on each side",
    "source word has an identical partner elsewhere",
    "target word has an identical partner elsewhere",
    "identical neighbour before",
    "identical neighbour after",
    "next to a word identical to the other",
    "both capitalised",
    "both capitalised, next to a word identical to the other",
    "distance from the diagonal",
    "either is punctuation",
    "both are punctuation",
    "forward posterior",
    "backward posterior",
    "posterior product",
    "both directions' best",
)
NEIGHBOUR_FEATURES = (
    "first-pass probability",
    "first-pass log-odds",
    "diagonal neighbours' best",
    "row or column neighbours' best",
    "best elsewhere in the row",
    "best elsewhere in the column",
    "best in its row",
    "best in its column",
    "best in both",
)


@dataclass(frozen=True)
class Lexicon:
    """The word knowledge behind the features: a synonym test (e.g. ``WordNet.synonyms``)
    and a paraphrase table's phrase pairs, (source words, target words) → probability."""

    synonyms: Callable[[str, str], bool] | None = None
    paraphrases: dict[tuple[tuple[str, ...], tuple[str, ...]], float] | None = None
    language: str = "english"


NO_LEXICON = Lexicon()


@lru_cache(maxsize=8)
def _stemmer(language: str):
    return snowballstemmer.stemmer(language)


@lru_cache(maxsize=500_000)
def _similarity(first: str, second: str) -> float:
    return SequenceMatcher(None, first, second, autojunk=False).ratio()


def _phrase_cells(
    source: Sequence[str], target: Sequence[str], table: dict, longest: int = 4
) -> np.ndarray:
    """The best table probability of a phrase pair covering each cell."""
    cells = np.zeros((len(source), len(target)))
    for a in range(len(source)):
        for b in range(a + 1, min(a + longest, len(source)) + 1):
            for c in range(len(target)):
                for d in range(c + 1, min(c + longest, len(target)) + 1):
                    found = table.get((tuple(source[a:b]), tuple(target[c:d])))
                    if found:
                        block = cells[a:b, c:d]
                        np.maximum(block, found, out=block)
    return cells


def cell_features(
    source: Sequence[str],
    target: Sequence[str],
    *,
    lexicon: Lexicon = NO_LEXICON,
    model: Aligner | None = None,
) -> np.ndarray:
    """An I×J×len(FEATURES) array of the cells' features."""
    lower_source = [word.lower() for word in source]
    lower_target = [word.lower() for word in target]
    stem = _stemmer(lexicon.language).stemWords
    stems_source, stems_target = stem(lower_source), stem(lower_target)
    count_source, count_target = Counter(lower_source), Counter(lower_target)
    punctuation_source = [is_punctuation(word) for word in source]
    punctuation_target = [is_punctuation(word) for word in target]
    anchors = identical_word_anchors(source, target)
    if model is not None:
        forward, backward = model.posteriors(source, target)
    else:
        forward = backward = np.zeros((len(source), len(target)))
    best = (forward == forward.max(axis=0, keepdims=True)) & (
        backward == backward.max(axis=1, keepdims=True)
    )
    table = (
        _phrase_cells(lower_source, lower_target, lexicon.paraphrases)
        if lexicon.paraphrases
        else np.zeros((len(source), len(target)))
    )
    rows = np.zeros((len(source), len(target), len(FEATURES)))
    for i, (e, e_lower) in enumerate(zip(source, lower_source, strict=True)):
        for j, (f, f_lower) in enumerate(zip(target, lower_target, strict=True)):
            same = e_lower == f_lower
            either_punctuation = punctuation_source[i] or punctuation_target[j]
            rows[i, j] = (
                e == f,
                same,
                not same and stems_source[i] == stems_target[j],
                not same
                and not either_punctuation
                and lexicon.synonyms is not None
                and lexicon.synonyms(e_lower, f_lower),
                table[i, j],
                0.0 if same or either_punctuation else _similarity(e_lower, f_lower),
                not same and len(e_lower) >= 4 and e_lower[:4] == f_lower[:4],
                same and len(e_lower) <= 3,
                (i, j) in anchors,
                same and count_source[e_lower] == 1 and count_target[f_lower] == 1,
                not same and count_target[e_lower] > 0,
                not same and count_source[f_lower] > 0,
                _neighbours_identical(lower_source, lower_target, i - 1, j - 1),
                _neighbours_identical(lower_source, lower_target, i + 1, j + 1),
                (beside := not same and _beside(lower_source, lower_target, i, j)),
                (capitals := e[:1].isupper() and f[:1].isupper()),
                capitals and beside,
                abs((i + 0.5) / len(source) - (j + 0.5) / len(target)),
                either_punctuation,
                punctuation_source[i] and punctuation_target[j],
                forward[i, j],
                backward[i, j],
                forward[i, j] * backward[i, j],
                best[i, j],
            )
    return rows


def _neighbours_identical(source: Sequence[str], target: Sequence[str], i: int, j: int) -> bool:
    return 0 <= i < len(source) and 0 <= j < len(target) and source[i] == target[j]


def _beside(source: Sequence[str], target: Sequence[str], i: int, j: int) -> bool:
    """Whether a word next to one of the two is identical to the other: a phrase (a name such
    as "John Howard" for "Howard") whose other word is linked already."""
    return any(
        0 <= i + step < len(source) and source[i + step] == target[j] for step in (-1, 1)
    ) or any(0 <= j + step < len(target) and target[j + step] == source[i] for step in (-1, 1))


def neighbour_features(probabilities: np.ndarray) -> np.ndarray:
    """An I×J×len(NEIGHBOUR_FEATURES) array from a first pass's I×J link probabilities."""
    p = probabilities
    padded = np.pad(p, 1)
    diagonal = np.maximum(padded[:-2, :-2], padded[2:, 2:])
    sideways = np.maximum.reduce(
        [padded[:-2, 1:-1], padded[2:, 1:-1], padded[1:-1, :-2], padded[1:-1, 2:]]
    )
    clipped = np.clip(p, 1e-4, 1 - 1e-4)
    return np.stack(
        [
            p,
            np.log(clipped / (1 - clipped)),
            diagonal,
            sideways,
            _best_elsewhere_in_row(p),
            _best_elsewhere_in_row(p.T).T,
            p >= p.max(axis=1, keepdims=True),
            p >= p.max(axis=0, keepdims=True),
            (p >= p.max(axis=1, keepdims=True)) & (p >= p.max(axis=0, keepdims=True)),
        ],
        axis=-1,
    )


def _best_elsewhere_in_row(p: np.ndarray) -> np.ndarray:
    """For each cell, the highest probability among the other cells of its row."""
    if p.shape[1] < 2:
        return np.zeros_like(p)
    order = np.sort(p, axis=1)
    first, second = order[:, -1:], order[:, -2:-1]
    return np.where(p >= first, second, first)


def stacked(rows: Iterable[np.ndarray]) -> np.ndarray:
    """Many pairs' I×J×F arrays as one (cells × F) matrix, pairs in order, row-major."""
    return np.concatenate([row.reshape(-1, row.shape[-1]) for row in rows])
