"""The combined paraphrase score PINC x sigmoid(BLEU), and how well metrics track ratings.

Chen & Dolan (2011) reward paraphrases that are both new (high PINC) and faithful (high
BLEU against the other descriptions). Multiplying PINC by a sigmoid of BLEU lets BLEU act as
a soft gate: below ``centre`` adequacy is doubtful and the novelty is discounted, above it
the novelty counts almost in full. ``slope`` sets how sharp the gate is.

    combined = PINC * 1 / (1 + exp(-(BLEU - centre) * slope))

with BLEU and PINC on 0-100, so the combined score is on 0-100 too.
"""

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy.special import expit

# The coarse grid fit_combined starts from: centres across the whole BLEU range, slopes
# from an almost flat gate (0.001 per BLEU point) to an almost hard threshold (10).
_CENTRE_GRID = [5.0 * step for step in range(21)]
_LOG_SLOPE_GRID = [-3.0 + 0.25 * step for step in range(17)]
_CENTRE_LIMITS = (0.0, 100.0)
_LOG_SLOPE_LIMITS = (-4.0, 2.0)
_SMALLEST_CENTRE_STEP = 1e-3


def sigmoid(x: float) -> float:
    """The logistic function 1 / (1 + e^-x), without overflow for large |x|."""
    if x >= 0:
        return 1.0 / (1.0 + math.exp(-x))
    shrunk = math.exp(x)
    return shrunk / (1.0 + shrunk)


def combined(bleu: float, pinc: float, *, centre: float, slope: float) -> float:
    """PINC * sigmoid((BLEU - centre) * slope); all scores on 0-100."""
    return pinc * sigmoid((bleu - centre) * slope)


def pearson(xs: Sequence[float], ys: Sequence[float]) -> float:
    """Pearson's correlation coefficient; NaN when either sequence is constant."""
    if len(xs) != len(ys):
        raise ValueError("need as many x values as y values")
    if len(xs) < 2:
        raise ValueError("correlation needs at least two points")
    mean_x, mean_y = math.fsum(xs) / len(xs), math.fsum(ys) / len(ys)
    dx = [x - mean_x for x in xs]
    dy = [y - mean_y for y in ys]
    spread = math.sqrt(math.fsum(d * d for d in dx) * math.fsum(d * d for d in dy))
    if spread == 0.0:
        return math.nan
    return math.fsum(a * b for a, b in zip(dx, dy, strict=True)) / spread


def combined_scores(bleu, pinc, *, centre: float, slope: float) -> np.ndarray:
    """``combined`` of every (BLEU, PINC) pair at once, as an array."""
    return np.asarray(pinc, dtype=float) * expit((np.asarray(bleu, dtype=float) - centre) * slope)


def _combined_r(bleu, pinc, ratings, centre: float, log_slope: float) -> float:
    """r of the combined score with the (centred) ratings; -inf where it is undefined."""
    scores = pinc * expit((bleu - centre) * 10.0**log_slope)
    if not np.ptp(scores):
        return -math.inf
    scores = scores - scores.mean()
    spread = math.sqrt(float(scores @ scores) * float(ratings @ ratings))
    return float(scores @ ratings) / spread if spread else -math.inf


def _clamp(value: float, limits: tuple[float, float]) -> float:
    return min(max(value, limits[0]), limits[1])


def fit_combined(
    bleu_scores: Sequence[float], pinc_scores: Sequence[float], ratings: Sequence[float]
) -> tuple[float, float, float]:
    """Choose ``centre`` and ``slope`` maximising Pearson's r between the combined score and
    human ``ratings``; return ``(centre, slope, r)``.

    A grid over centre (0-100) and log-slope, then a pattern search from the best grid
    point that halves its steps until they are tiny. Deterministic; no optimiser needed. Each
    point scores every item with array arithmetic, so thousands of ratings fit in a moment.
    """
    if not len(bleu_scores) == len(pinc_scores) == len(ratings):
        raise ValueError("need one BLEU score, one PINC score and one rating per item")
    if math.isnan(pearson(ratings, ratings)):
        raise ValueError("ratings are all equal: no correlation to maximise")
    bleu = np.asarray(bleu_scores, dtype=float)
    pinc = np.asarray(pinc_scores, dtype=float)
    centred = np.asarray(ratings, dtype=float)
    centred = centred - centred.mean()

    def r_at(centre, log_slope):
        return _combined_r(bleu, pinc, centred, centre, log_slope)

    best_r, centre, log_slope = max(
        (r_at(c, s), c, s) for c in _CENTRE_GRID for s in reversed(_LOG_SLOPE_GRID)
    )
    if best_r == -math.inf:
        raise ValueError("the combined score is constant for every centre and slope")

    centre_step, log_slope_step = 2.5, 0.125
    while centre_step >= _SMALLEST_CENTRE_STEP:
        moves = [
            (_clamp(centre + dc, _CENTRE_LIMITS), _clamp(log_slope + ds, _LOG_SLOPE_LIMITS))
            for dc, ds in (
                (centre_step, 0),
                (-centre_step, 0),
                (0, log_slope_step),
                (0, -log_slope_step),
            )
        ]
        improved = False
        for candidate_centre, candidate_log_slope in moves:
            r = r_at(candidate_centre, candidate_log_slope)
            if r > best_r:
                best_r, centre, log_slope, improved = r, candidate_centre, candidate_log_slope, True
        if not improved:
            centre_step /= 2
            log_slope_step /= 2
    return centre, 10.0**log_slope, best_r


@dataclass(frozen=True)
class CorrelationTable:
    """Pearson's r of each metric with human ratings (the rows of Chen & Dolan's table),
    and the sigmoid parameters fitted for the combined score."""

    bleu: float
    pinc: float
    arithmetic_mean: float
    geometric_mean: float
    harmonic_mean: float
    combined: float
    centre: float
    slope: float

    def rows(self) -> list[tuple[str, float]]:
        """(metric name, r) pairs in the paper's order, for printing."""
        return [
            ("BLEU", self.bleu),
            ("PINC", self.pinc),
            ("Arithmetic mean", self.arithmetic_mean),
            ("Geometric mean", self.geometric_mean),
            ("Harmonic mean", self.harmonic_mean),
            (
                f"PINC x sigmoid(BLEU; centre={self.centre:.2f}, slope={self.slope:.3g})",
                self.combined,
            ),
        ]


def _harmonic_mean(a: float, b: float) -> float:
    return 2 * a * b / (a + b) if a + b else 0.0


def correlation_table(
    bleu: Sequence[float], pinc: Sequence[float], ratings: Sequence[float]
) -> CorrelationTable:
    """Pearson's r with ``ratings`` of BLEU, PINC, their arithmetic, geometric and harmonic
    means, and the combined score with its parameters fitted by ``fit_combined``."""
    pairs = list(zip(bleu, pinc, strict=True))
    centre, slope, combined_r = fit_combined(bleu, pinc, ratings)
    return CorrelationTable(
        bleu=pearson(bleu, ratings),
        pinc=pearson(pinc, ratings),
        arithmetic_mean=pearson([(b + p) / 2 for b, p in pairs], ratings),
        geometric_mean=pearson([math.sqrt(b * p) for b, p in pairs], ratings),
        harmonic_mean=pearson([_harmonic_mean(b, p) for b, p in pairs], ratings),
        combined=combined_r,
        centre=centre,
        slope=slope,
    )
