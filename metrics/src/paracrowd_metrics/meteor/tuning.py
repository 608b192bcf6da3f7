"""Tuning the METEOR-style score to human ratings: a grid search with k-fold cross-validation.

Denkowski & Lavie tune α, β, γ and the matcher weights by an exhaustive grid search; here the
objective is Pearson's r with ratings of single sentences. The alignment depends only on
which matchers are on (a weight of 0 switches one off), never on the values, so each rated
pair is aligned once per on/off combination and every grid point is then scored from the
stored counts with array arithmetic.

Cross-validation: the ratings are shuffled (seeded) into k folds; for each fold the grid
point with the best r on the other folds is scored on it. The reported figure is the mean
held-out r, which does not flatter the tuned metric the way r on the tuning data would.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import product

import numpy as np

from .parameters import ENGLISH, MeteorParameters
from .score import Meteor
from .table import ParaphraseTable


@dataclass(frozen=True)
class Grid:
    alpha: tuple[float, ...] = (0.1, 0.25, 0.4, 0.55, 0.7, 0.75, 0.85, 0.95)
    beta: tuple[float, ...] = (0.2, 0.6, 1.0, 1.5, 2.0, 3.0)
    gamma: tuple[float, ...] = (0.0, 0.15, 0.35, 0.5, 0.7, 0.9)
    stem: tuple[float, ...] = (0.0, 0.4, 0.6, 0.8, 1.0)
    paraphrase: tuple[float, ...] = (0.2, 0.4, 0.6, 0.8, 1.0)


@dataclass(frozen=True)
class TuningResult:
    parameters: MeteorParameters  # the best on all the ratings
    held_out: float  # mean held-out r over the folds
    folds: tuple[float, ...]
    fitted: float  # r of ``parameters`` on all the ratings


def _correlation(x: np.ndarray, y: np.ndarray) -> float:
    dx, dy = x - x.mean(), y - y.mean()
    spread = math.sqrt(float((dx * dx).sum() * (dy * dy).sum()))
    return float((dx * dy).sum()) / spread if spread else math.nan


class RatedPairs:
    """Rated candidates with their references, aligned once per matcher combination."""

    def __init__(
        self,
        candidates: Sequence[str],
        references: Sequence[Sequence[str]],
        ratings: Sequence[float],
        *,
        paraphrases: ParaphraseTable | None = None,
        language: str = "en",
    ):
        if not len(candidates) == len(references) == len(ratings):
            raise ValueError("need as many references and ratings as candidates")
        if len(ratings) < 3:
            raise ValueError("at least three rated candidates are needed")
        self.ratings = np.asarray(ratings, dtype=float)
        self.rows = np.asarray([n for n, refs in enumerate(references) for _ in refs], dtype=int)
        self.paraphrases = paraphrases
        self.language = language
        self._counts: dict[tuple[bool, bool], np.ndarray] = {}
        self._pairs = [(c, r) for c, refs in zip(candidates, references, strict=True) for r in refs]
        if not self._pairs:
            raise ValueError("every candidate needs at least one reference")

    def counts(self, stem: bool, paraphrase: bool) -> np.ndarray:
        """Per (candidate, reference): |t|, |r|, 4 hypothesis and 4 reference matched-word
        counts by matcher, chunks."""
        key = (stem, paraphrase and self.paraphrases is not None)
        if key not in self._counts:
            scorer = Meteor(
                paraphrases=self.paraphrases if key[1] else None,
                language=self.language,
                parameters=MeteorParameters(stem=float(stem), paraphrase=float(key[1])),
            )
            table = []
            for candidate, reference in self._pairs:
                alignment = scorer.align(candidate, reference)
                hyp, ref = [0] * 4, [0] * 4
                for match in alignment.matches:
                    hyp[match.matcher] += match.hyp_length
                    ref[match.matcher] += match.ref_length
                table.append(
                    [
                        len(alignment.hypothesis),
                        len(alignment.reference),
                        *hyp,
                        *ref,
                        alignment.chunks,
                    ]
                )
            self._counts[key] = np.asarray(table, dtype=float).reshape(-1, 11)
        return self._counts[key]

    def scores(self, parameters: MeteorParameters) -> np.ndarray:
        """The score (0-100) of every candidate against its best reference."""
        counts = self.counts(parameters.stem > 0, parameters.paraphrase > 0)
        weights = np.array(
            [parameters.exact, parameters.stem, parameters.synonym, parameters.paraphrase]
        )
        return self._scores(counts, weights, parameters.alpha, parameters.beta, parameters.gamma)

    def _scores(self, counts, weights, alpha, beta, gamma) -> np.ndarray:
        hyp_length, ref_length, chunks = counts[:, 0], counts[:, 1], counts[:, 10]
        with np.errstate(divide="ignore", invalid="ignore"):
            precision = np.where(hyp_length > 0, counts[:, 2:6] @ weights / hyp_length, 0.0)
            recall = np.where(ref_length > 0, counts[:, 6:10] @ weights / ref_length, 0.0)
            denominator = alpha * precision + (1 - alpha) * recall
            fmean = np.where((precision > 0) & (recall > 0), precision * recall / denominator, 0.0)
            matched = (counts[:, 2:6].sum(axis=1) + counts[:, 6:10].sum(axis=1)) / 2
            penalty = np.where(matched > 0, gamma * (chunks / matched) ** beta, 0.0)
        pair_scores = 100 * (1 - penalty) * fmean
        best = np.zeros(len(self.ratings))
        np.maximum.at(best, self.rows, pair_scores)
        return best

    def correlation(self, scores: np.ndarray, rows: np.ndarray | None = None) -> float:
        if rows is None:
            return _correlation(scores, self.ratings)
        return _correlation(scores[rows], self.ratings[rows])


def folds_of(count: int, folds: int, seed: int) -> list[np.ndarray]:
    """``count`` row numbers shuffled with ``seed`` and dealt into ``folds`` folds."""
    if not 2 <= folds <= count:
        raise ValueError(f"folds must be between 2 and the number of ratings ({count})")
    order = list(range(count))
    random.Random(seed).shuffle(order)
    return [np.asarray(sorted(order[k::folds])) for k in range(folds)]


def grid_points(grid: Grid, *, paraphrases: bool) -> list[MeteorParameters]:
    weights = grid.paraphrase if paraphrases else (0.0,)
    return [
        MeteorParameters(alpha=a, beta=b, gamma=g, stem=s, synonym=0.0, paraphrase=p)
        for a, b, g, s, p in product(grid.alpha, grid.beta, grid.gamma, grid.stem, weights)
    ]


def cross_validate(
    rated: RatedPairs, points: Sequence[MeteorParameters], *, folds: int = 5, seed: int = 1
) -> TuningResult:
    """Choose among ``points`` on k − 1 folds, score on the k-th; see the module docstring."""
    split = folds_of(len(rated.ratings), folds, seed)
    training = [np.setdiff1d(np.arange(len(rated.ratings)), fold) for fold in split]
    best_train = [(-math.inf, None)] * folds
    best_all = (-math.inf, None)
    for point in points:
        scores = rated.scores(point)
        for k in range(folds):
            r = rated.correlation(scores, training[k])
            if r > best_train[k][0]:
                best_train[k] = (r, point)
        r = rated.correlation(scores)
        if r > best_all[0]:
            best_all = (r, point)
    if best_all[1] is None:
        # Every grid point correlates as NaN (constant scores or ratings): keep the defaults.
        return TuningResult(ENGLISH, math.nan, (math.nan,) * folds, math.nan)
    held_out = tuple(
        rated.correlation(rated.scores(point or best_all[1]), split[k])
        for k, (_, point) in enumerate(best_train)
    )
    return TuningResult(best_all[1], float(np.nanmean(held_out)), held_out, best_all[0])


def held_out_mean(rated: RatedPairs, scores: np.ndarray, *, folds: int = 5, seed: int = 1):
    """Mean r of fixed ``scores`` over the same folds (for metrics that are not tuned)."""
    return float(
        np.nanmean([rated.correlation(scores, fold) for fold in folds_of(len(scores), folds, seed)])
    )
