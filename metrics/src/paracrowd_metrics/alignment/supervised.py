"""A supervised pre-aligner, learnt from human sure/possible alignments.

Three L2-regularised logistic regressions over the grid's cells (``features``):

1. *first pass*: is the cell linked, from the cell's own features (word forms, lexicon,
   position, the unsupervised model's posteriors);
2. *second pass*: the same question, adding the first pass's probabilities around the cell
   (diagonal and side neighbours, the best of its row and column). It is trained on
   out-of-fold first-pass probabilities (stacking), so it learns how far to trust them on
   pairs the first pass never saw;
3. *sure*: among linked cells, is the link sure or possible.

Decoding links every cell whose second-pass probability reaches ``threshold``: a word may
take several partners, so phrase (many-to-many) links come out as blocks of cells, and the
sure model marks each link sure or possible. A punctuation mark is never linked to a word.

Why this and not a CRF: the cells' dependencies that matter here (phrases along the diagonal,
a word's better partner elsewhere) are captured by the second pass in closed form, training
is a convex problem solved in seconds with scipy, the stored model is a few hundred numbers
of JSON, and no library beyond numpy/scipy is needed at run time.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace

import numpy as np
from scipy.optimize import minimize
from scipy.special import expit

from .aligner import Aligner
from .anchors import is_punctuation
from .features import (
    FEATURES,
    NEIGHBOUR_FEATURES,
    NO_LEXICON,
    Lexicon,
    cell_features,
    neighbour_features,
)
from .links import AlignedPair, Alignment

FORMAT_VERSION = 1
# Chosen on a split of the RTE-2 dev pairs (bench/aligner.py --development): the best F1 over
# all links (0.4 gives more non-identical recall for 0.8 points less F1; 0.6 no more F1).
THRESHOLD = 0.5
REGULARISATION = 1e-3
FOLDS = 5


@dataclass(frozen=True)
class LogisticModel:
    """P(y = 1 | x) = σ(w · (x − mean) / scale + b), fitted with an L2 penalty on w."""

    mean: tuple[float, ...]
    scale: tuple[float, ...]
    weights: tuple[float, ...]
    intercept: float

    def probabilities(self, rows: np.ndarray) -> np.ndarray:
        standard = (rows - np.asarray(self.mean)) / np.asarray(self.scale)
        return expit(standard @ np.asarray(self.weights) + self.intercept)

    @classmethod
    def fit(cls, rows: np.ndarray, labels: np.ndarray, *, regularisation: float):
        """Minimise the mean log-loss plus ``regularisation``/2 · |w|² (L-BFGS)."""
        mean = rows.mean(axis=0)
        scale = rows.std(axis=0)
        scale[scale == 0] = 1.0
        standard = (rows - mean) / scale
        labels = labels.astype(float)
        rate = float(np.clip(labels.mean(), 1e-6, 1 - 1e-6)) if len(labels) else 0.5
        start = np.zeros(rows.shape[1] + 1)
        start[-1] = np.log(rate / (1 - rate))

        def loss(parameters):
            weights, intercept = parameters[:-1], parameters[-1]
            scores = standard @ weights + intercept
            # log(1 + e^s) − y·s, computed without overflow
            value = np.mean(np.logaddexp(0, scores) - labels * scores)
            residual = (expit(scores) - labels) / len(labels)
            gradient = np.append(standard.T @ residual, residual.sum())
            gradient[:-1] += regularisation * weights
            return value + regularisation / 2 * weights @ weights, gradient

        if 0 < labels.sum() < len(labels):
            start = minimize(loss, start, jac=True, method="L-BFGS-B").x
        return cls(
            tuple(mean.tolist()), tuple(scale.tolist()), tuple(start[:-1].tolist()), start[-1]
        )

    def to_dict(self) -> dict:
        return {
            "mean": list(self.mean),
            "scale": list(self.scale),
            "weights": list(self.weights),
            "intercept": self.intercept,
        }

    @classmethod
    def from_dict(cls, data: dict) -> LogisticModel:
        return cls(
            tuple(data["mean"]), tuple(data["scale"]), tuple(data["weights"]), data["intercept"]
        )


@dataclass(frozen=True)
class SupervisedAligner:
    """The three passes and the decoding threshold; ``lexicon`` and ``base`` (the
    unsupervised model whose posteriors are features) are given, not stored."""

    first: LogisticModel
    second: LogisticModel
    sure: LogisticModel
    threshold: float = THRESHOLD
    lexicon: Lexicon = field(default=NO_LEXICON, compare=False)
    base: Aligner | None = field(default=None, compare=False)

    def probabilities(
        self, source: Sequence[str], target: Sequence[str]
    ) -> tuple[np.ndarray, np.ndarray]:
        """The I×J link probabilities and the I×J probabilities that a link is sure."""
        shape = (len(source), len(target))
        if not source or not target:
            return np.zeros(shape), np.zeros(shape)
        cells = cell_features(source, target, lexicon=self.lexicon, model=self.base)
        first = self.first.probabilities(cells.reshape(-1, len(FEATURES))).reshape(shape)
        both = np.concatenate([cells, neighbour_features(first)], axis=-1)
        rows = both.reshape(-1, both.shape[-1])
        return (
            self.second.probabilities(rows).reshape(shape),
            self.sure.probabilities(rows).reshape(shape),
        )

    def prealign(self, source: Sequence[str], target: Sequence[str]) -> Alignment:
        """The decoded links (see the module docs); punctuation links only to punctuation."""
        linked, sure = self.probabilities(source, target)
        links = {
            (i, j)
            for i, j in zip(*np.nonzero(linked >= self.threshold), strict=True)
            if is_punctuation(source[i]) == is_punctuation(target[j])
        }
        return Alignment(
            sure={(int(i), int(j)) for i, j in links if sure[i, j] >= 0.5},
            possible={(int(i), int(j)) for i, j in links},
        )

    def with_threshold(self, threshold: float) -> SupervisedAligner:
        return replace(self, threshold=threshold)

    def to_dict(self) -> dict:
        """A JSON-ready description of the passes (not the lexicon or base model)."""
        return {
            "version": FORMAT_VERSION,
            "features": list(FEATURES + NEIGHBOUR_FEATURES),
            "first": self.first.to_dict(),
            "second": self.second.to_dict(),
            "sure": self.sure.to_dict(),
            "threshold": self.threshold,
        }

    @classmethod
    def from_dict(
        cls, data: dict, *, lexicon: Lexicon = NO_LEXICON, base: Aligner | None = None
    ) -> SupervisedAligner:
        if data.get("version") != FORMAT_VERSION:
            raise ValueError(f"unknown supervised aligner version {data.get('version')!r}")
        if data.get("features") != list(FEATURES + NEIGHBOUR_FEATURES):
            raise ValueError("the supervised aligner was trained with other features")
        return cls(
            LogisticModel.from_dict(data["first"]),
            LogisticModel.from_dict(data["second"]),
            LogisticModel.from_dict(data["sure"]),
            float(data["threshold"]),
            lexicon,
            base,
        )


def _candidates(pair: AlignedPair) -> np.ndarray:
    """Which cells may be linked at all: not a punctuation mark with a word."""
    source = np.array([is_punctuation(word) for word in pair.source])
    target = np.array([is_punctuation(word) for word in pair.target])
    return (source[:, None] == target[None, :]).reshape(-1)


def _labels(pair: AlignedPair) -> tuple[np.ndarray, np.ndarray]:
    shape = (len(pair.source), len(pair.target))
    linked, sure = np.zeros(shape, bool), np.zeros(shape, bool)
    for i, j in pair.alignment.possible:
        linked[i, j] = True
    for i, j in pair.alignment.sure:
        sure[i, j] = True
    return linked.reshape(-1), sure.reshape(-1)


def train_supervised_aligner(
    pairs: Sequence[AlignedPair],
    *,
    base: Aligner | None = None,
    lexicon: Lexicon = NO_LEXICON,
    regularisation: float = REGULARISATION,
    threshold: float = THRESHOLD,
    folds: int = FOLDS,
) -> SupervisedAligner:
    """Learn the three passes from gold alignments (one ``AlignedPair`` per annotation: a pair
    annotated twice counts twice, and the model learns where annotators disagree)."""
    pairs = [pair for pair in pairs if pair.source and pair.target]
    if len(pairs) < 2:
        raise ValueError("the supervised aligner needs at least two annotated sentence pairs")
    cells = [cell_features(p.source, p.target, lexicon=lexicon, model=base) for p in pairs]
    candidates = [_candidates(pair) for pair in pairs]
    labels = [_labels(pair) for pair in pairs]

    def fit(indices, rows_of, which=0, among=None):
        rows = np.concatenate([rows_of(n)[candidates[n]] for n in indices])
        chosen = np.concatenate([labels[n][which][candidates[n]] for n in indices])
        if among is not None:
            keep = np.concatenate([labels[n][among][candidates[n]] for n in indices])
            rows, chosen = rows[keep], chosen[keep]
        return LogisticModel.fit(rows, chosen, regularisation=regularisation)

    def flat(n):
        return cells[n].reshape(-1, len(FEATURES))

    # Out-of-fold first-pass probabilities for every pair, so the second pass sees them as
    # they will be on new pairs.
    folds = max(2, min(folds, len(pairs)))
    fold_of = np.arange(len(pairs)) % folds
    first_pass: list[np.ndarray | None] = [None] * len(pairs)
    for fold in range(folds):
        model = fit(np.nonzero(fold_of != fold)[0], flat)
        for n in np.nonzero(fold_of == fold)[0]:
            shape = cells[n].shape[:2]
            first_pass[n] = model.probabilities(flat(n)).reshape(shape)
    stacked = [
        np.concatenate([cells[n], neighbour_features(first_pass[n])], axis=-1).reshape(
            -1, len(FEATURES) + len(NEIGHBOUR_FEATURES)
        )
        for n in range(len(pairs))
    ]
    everything = range(len(pairs))
    return SupervisedAligner(
        first=fit(everything, flat),
        second=fit(everything, stacked.__getitem__),
        sure=fit(everything, stacked.__getitem__, which=1, among=0),
        threshold=threshold,
        lexicon=lexicon,
        base=base,
    )
