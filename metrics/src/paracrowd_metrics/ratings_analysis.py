"""How well the metrics track human ratings: Chen & Dolan's (2011) Table 4 and Figure 4.

Table 4: per rating dimension, Pearson's and Spearman's correlation (with bootstrap 95%
intervals) of the judges with each other, and of the ratings with BLEU, PINC, the
METEOR-style score, PINC where BLEU is above 0, 30, 60 and 90, the arithmetic, geometric and
harmonic means of BLEU and PINC, and PINC × sigmoid(BLEU). The combined score's centre and
slope are fitted to the very ratings it is judged by, which would flatter it; so its row is
*out of fold*: the ratings are dealt into k folds, each fold scored with the centre and slope
fitted on the others, and the pooled held-out scores correlated. The centre and slope fitted
on all the ratings are reported beside it (they are what a site would use).

Figure 4: BLEU's correlation with the ratings as the number of references grows. For each
count k, each rated sentence is scored against k of its references drawn at random (seeded;
sentences with fewer than k references sit that count out), several draws are averaged and
their spread reported; "all" uses every reference. With the source, the source sentence is
one reference more.
"""

import math
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass

import numpy as np

from paracrowd_metrics.combined import combined_scores, fit_combined
from paracrowd_metrics.correlation import DEFAULT_RESAMPLES, correlate
from paracrowd_metrics.meteor.tuning import folds_of
from paracrowd_metrics.pinc import pinc
from paracrowd_metrics.ratings import SINGLE, RatedPair, RatingError
from paracrowd_metrics.reference_subsets import ReferenceSubsets, SentenceCounts
from paracrowd_metrics.tokens import default_max_order

REFERENCE_COUNTS: tuple[int | None, ...] = (1, 2, 4, 8, 16, None)  # None: every reference
BLEU_THRESHOLDS = (0, 30, 60, 90)
# The metrics each point of the reference curve reports (PINC does not move with the
# references; it stands beside the others for comparison).
CURVE_METRICS = ("bleu", "pinc", "arithmetic_mean", "geometric_mean", "harmonic_mean", "combined")


@dataclass(frozen=True)
class AnalysisOptions:
    reference_counts: tuple[int | None, ...] = REFERENCE_COUNTS
    with_source: bool = False
    folds: int = 5
    seed: int = 1
    draws: int = 10
    resamples: int = DEFAULT_RESAMPLES
    tokenize: str = "13a"

    def __post_init__(self):
        if self.draws < 1:
            raise RatingError("draws must be at least 1")
        if self.folds < 2:
            raise RatingError("folds must be at least 2")
        if self.resamples < 0:
            raise RatingError("bootstrap resamples cannot be negative")
        if any(k is not None and k < 1 for k in self.reference_counts):
            raise RatingError("reference counts must be at least 1")


def reference_counts(text: str) -> tuple[int | None, ...]:
    """Reference counts written as "1,2,4,8,16,all" ("all": every reference). RatingError
    naming a part that is neither a count above 0 nor "all"."""
    counts = []
    for part in text.split(","):
        part = part.strip()
        if part == "all":
            counts.append(None)
        elif part.isdecimal() and int(part) > 0:
            counts.append(int(part))
        else:
            raise RatingError(f"--references: {part!r} is neither a count above 0 nor 'all'")
    return tuple(dict.fromkeys(counts))


def check_enough_pairs(count: int, options: AnalysisOptions) -> None:
    """RatingError unless ``count`` rated pairs are enough: three, and one per fold."""
    if count < max(options.folds, 3):
        raise RatingError(
            f"{count} rated pairs; at least {max(options.folds, 3)} are needed "
            "(three, and one per fold)"
        )


def count_label(count: int | None) -> str:
    return "all" if count is None else str(count)


def _means(bleu: np.ndarray, pinc_: np.ndarray) -> dict[str, np.ndarray]:
    with np.errstate(divide="ignore", invalid="ignore"):
        total = bleu + pinc_
        harmonic = np.where(total > 0, 2 * bleu * pinc_ / total, 0.0)
    harmonic = np.where(np.isnan(total), np.nan, harmonic)
    return {
        "arithmetic_mean": total / 2,
        "geometric_mean": np.sqrt(bleu * pinc_),
        "harmonic_mean": harmonic,
    }


def _row_labels(dimensions, has_judges, has_meteor) -> list[tuple[str, str]]:
    rows = [("judges", "Judge A vs. B")] if has_judges else []
    rows += [("bleu", "BLEU"), ("pinc", "PINC")]
    if has_meteor:
        rows.append(("meteor", "METEOR-style"))
    rows += [(f"pinc_bleu_above_{t}", f"PINC where BLEU > {t}") for t in BLEU_THRESHOLDS]
    rows += [
        ("arithmetic_mean", "Arithmetic mean"),
        ("geometric_mean", "Geometric mean"),
        ("harmonic_mean", "Harmonic mean"),
        ("combined", "PINC × sigmoid(BLEU), out of fold"),
    ]
    return rows


def _fit(bleu, pinc_, ratings) -> tuple[float, float, float]:
    try:
        return fit_combined(bleu, pinc_, ratings)
    except ValueError:
        return math.nan, math.nan, math.nan


def _out_of_fold(bleu, pinc_, ratings, *, folds: int, seed: int) -> np.ndarray:
    """Each rating's combined score with the centre and slope fitted on the other folds."""
    held_out = np.full(len(ratings), np.nan)
    everything = np.arange(len(ratings))
    for fold in folds_of(len(ratings), folds, seed):
        training = np.setdiff1d(everything, fold)
        centre, slope, _ = _fit(bleu[training], pinc_[training], ratings[training])
        if not math.isnan(centre):
            held_out[fold] = combined_scores(bleu[fold], pinc_[fold], centre=centre, slope=slope)
    return held_out


def _judge_columns(pairs: Sequence[RatedPair], dimension: str) -> tuple[np.ndarray, np.ndarray]:
    """The first two judges' ratings (by name) of each pair that two judges rated."""
    first = np.full(len(pairs), np.nan)
    second = np.full(len(pairs), np.nan)
    for i, pair in enumerate(pairs):
        if len(pair.judges) >= 2:
            a, b = sorted(pair.judges)[:2]
            first[i], second[i] = pair.judges[a][dimension], pair.judges[b][dimension]
    return first, second


def _pearson_rows(scores: np.ndarray, ratings: np.ndarray) -> np.ndarray:
    """Pearson's r of each row of ``scores`` with ``ratings`` over the columns where the row
    is not NaN (the same columns for every row)."""
    valid = ~np.isnan(scores[0])
    if valid.sum() < 3:
        return np.full(len(scores), np.nan)
    x = scores[:, valid]
    y = ratings[valid] - ratings[valid].mean()
    x = x - x.mean(axis=1, keepdims=True)
    spread = np.sqrt((x * x).sum(axis=1) * (y @ y))
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(spread > 0, (x @ y) / spread, np.nan)


def _summary(values: np.ndarray) -> dict:
    finite = values[~np.isnan(values)]
    if not len(finite):
        return {"r": None, "sd": None, "min": None, "max": None}
    return {
        "r": float(finite.mean()),
        "sd": float(finite.std()),
        "min": float(finite.min()),
        "max": float(finite.max()),
    }


class _CurveScores:
    """BLEU of every pair against each draw of each reference count, with and without the
    source: ``bleu[with_source][count]`` is (draws, pairs), NaN where a pair has fewer
    references than the count."""

    def __init__(self, subsets: list[ReferenceSubsets], options: AnalysisOptions):
        rng = np.random.default_rng(options.seed)
        counts = options.reference_counts
        sides = (False, True) if options.with_source else (False,)
        draws = {count: 1 if count is None else options.draws for count in counts}
        self.bleu = {
            side: {count: np.full((draws[count], len(subsets)), np.nan) for count in counts}
            for side in sides
        }
        for column, subset in enumerate(subsets):
            references = subset.references - 1  # the last row is the source
            positions = rng.random((options.draws, references)).argsort(axis=1).argsort(axis=1)
            blocks, places = [], []
            for count in counts:
                if count is not None and count > references:
                    continue
                for side in sides:
                    block = np.zeros((draws[count], references + 1), dtype=bool)
                    # The first k of each draw's random order: the k-reference subset.
                    block[:, :references] = True if count is None else positions < count
                    block[:, references] = side
                    blocks.append(block)
                    places.append((side, count))
            if not blocks:
                continue
            scores = subset.bleu(np.vstack(blocks))
            start = 0
            for (side, count), block in zip(places, blocks, strict=True):
                self.bleu[side][count][:, column] = scores[start : start + len(block)]
                start += len(block)


def analyse_ratings(
    pairs: Sequence[RatedPair],
    dimensions: Sequence[str],
    *,
    options: AnalysisOptions = AnalysisOptions(),
    meteor: Callable[[str, Sequence[str]], float] | None = None,
    primary: str | None = None,
) -> dict:
    """Table 4 and Figure 4 for ``pairs`` (see the module docstring), as one JSON-ready dict.

    ``meteor(candidate, references)``, if given, adds the METEOR-style row. ``primary`` is
    the dimension whose curve is ``by_references`` (``semantic``, or ``rating``, by default:
    BLEU measures the meaning kept). RatingError when there are too few pairs for the folds.
    """
    check_enough_pairs(len(pairs), options)
    primary = primary or (SINGLE if SINGLE in dimensions else "semantic")
    if primary not in dimensions:
        raise RatingError(f"no {primary} ratings to draw the reference curve with")
    counts = SentenceCounts(tokenize=options.tokenize)
    subsets = [
        ReferenceSubsets(pair.candidate, [*pair.references, pair.source], counts) for pair in pairs
    ]
    # Every reference but the source (the last row).
    bleu = np.array([s.bleu(np.arange(s.references)[None] < s.references - 1)[0] for s in subsets])
    max_order = default_max_order(options.tokenize)
    novelty = np.array(
        [pinc(p.source, p.candidate, tokenize=options.tokenize, max_order=max_order) for p in pairs]
    )
    scores = {"bleu": bleu, "pinc": novelty, **_means(bleu, novelty)}
    if meteor is not None:
        scores["meteor"] = np.array([meteor(p.candidate, list(p.references)) for p in pairs])
    for threshold in BLEU_THRESHOLDS:
        scores[f"pinc_bleu_above_{threshold}"] = np.where(bleu > threshold, novelty, np.nan)

    ratings = {d: np.array([p.ratings[d] for p in pairs]) for d in dimensions}
    has_judges = any(len(p.judges) >= 2 for p in pairs)
    correlated = {}
    fitted = {}
    for dimension, rating in ratings.items():
        for name, values in scores.items():
            correlated[name, dimension] = (values, rating)
        if has_judges:
            correlated["judges", dimension] = _judge_columns(pairs, dimension)
        centre, slope, in_sample = _fit(bleu, novelty, rating)
        held_out = _out_of_fold(bleu, novelty, rating, folds=options.folds, seed=options.seed)
        correlated["combined", dimension] = (held_out, rating)
        fitted[dimension] = {"centre": centre, "slope": slope, "in_sample": in_sample}
    found = correlate(correlated, resamples=options.resamples, seed=options.seed)
    table = [
        {
            "row": row,
            "label": label,
            "cells": {d: found[row, d].as_dict() for d in dimensions},
        }
        for row, label in _row_labels(dimensions, has_judges, meteor is not None)
    ]
    combined = {
        d: {
            **{k: None if math.isnan(v) else v for k, v in fitted[d].items()},
            "out_of_fold": found["combined", d].as_dict()["pearson"],
            "folds": options.folds,
        }
        for d in dimensions
    }
    curves = _reference_curves(subsets, scores["pinc"], ratings, fitted, options)
    result = {
        "pairs": len(pairs),
        "ratings": sum(len(p.judges) + len(p.unnamed) for p in pairs),
        "judges": len({name for p in pairs for name in p.judges}),
        "dimensions": list(dimensions),
        "primary_dimension": primary,
        "options": asdict(options)
        | {"reference_counts": [count_label(k) for k in options.reference_counts]},
        "table": table,
        "combined": combined,
        "by_references": _by_references(curves[primary]["without_source"]),
        "reference_curves": curves,
    }
    if options.with_source:
        result["by_references_with_source"] = _by_references(curves[primary]["with_source"])
    return result


def _reference_curves(subsets, novelty, ratings, fitted, options: AnalysisOptions) -> dict:
    curve_scores = _CurveScores(subsets, options)
    curves = {}
    for dimension, rating in ratings.items():
        centre, slope = fitted[dimension]["centre"], fitted[dimension]["slope"]
        curves[dimension] = {}
        for side, by_count in curve_scores.bleu.items():
            points = {}
            for count, bleu in by_count.items():
                metrics = {"bleu": bleu, "pinc": np.where(np.isnan(bleu), np.nan, novelty)}
                metrics |= _means(bleu, novelty)
                if math.isnan(centre):
                    metrics["combined"] = np.full_like(bleu, np.nan)
                else:
                    metrics["combined"] = np.where(
                        np.isnan(bleu),
                        np.nan,
                        combined_scores(np.nan_to_num(bleu), novelty, centre=centre, slope=slope),
                    )
                points[count_label(count)] = {
                    "pairs": int((~np.isnan(bleu[0])).sum()),
                    "draws": len(bleu),
                    **{
                        name: _summary(_pearson_rows(metrics[name], rating))
                        for name in CURVE_METRICS
                    },
                }
            curves[dimension]["with_source" if side else "without_source"] = points
    return curves


def _by_references(points: dict) -> dict:
    """{count: {metric: mean r}}: one curve, as ``--json``'s ``by_references`` gives it."""
    return {
        label: {name: point[name]["r"] for name in CURVE_METRICS} for label, point in points.items()
    }
