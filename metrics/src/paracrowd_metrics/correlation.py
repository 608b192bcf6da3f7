"""Pearson's and Spearman's correlation with seeded bootstrap 95% intervals.

Several correlations over the same items are resampled together: each resample draws the
items once (with replacement) and every correlation is computed on that draw, so the rows of
one table rest on the same resamples. A resample is held as how many times it took each item
(a weight), which lets Spearman's ranks of a resample be computed without copying the items:
an item's mid-rank is the weight of everything below its value plus half of its own tie
group's weight. Items whose value is NaN take no part in that correlation (the rows of a
table may cover different items, say PINC where BLEU is above a threshold).
"""

import math
import warnings
from collections.abc import Hashable, Mapping
from dataclasses import asdict, dataclass

import numpy as np
from scipy import stats

DEFAULT_RESAMPLES = 1000
# Weights held at once: bounds memory at resamples × items without a loop per resample.
_BLOCK_CELLS = 2_000_000
# Fewer items than this have no correlation worth reporting.
MINIMUM_ITEMS = 3


@dataclass(frozen=True)
class Correlation:
    """Pearson's and Spearman's coefficients over ``items`` items, each with the 2.5th and
    97.5th percentiles of its bootstrap resamples (None without resampling); NaN when the
    coefficient is undefined (fewer than three items, or a constant side)."""

    items: int
    pearson: float
    spearman: float
    pearson_low: float | None = None
    pearson_high: float | None = None
    spearman_low: float | None = None
    spearman_high: float | None = None

    def as_dict(self) -> dict:
        """The figures as JSON can hold them: NaN becomes None."""
        return {key: _finite_or_none(value) for key, value in asdict(self).items()}


def _finite_or_none(value):
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def pearson_spearman(x, y) -> tuple[float, float]:
    """Pearson's and Spearman's coefficients of two equally long sequences (scipy's);
    NaN when undefined."""
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    if len(x) != len(y):
        raise ValueError("need as many x values as y values")
    if len(x) < MINIMUM_ITEMS or not np.ptp(x) or not np.ptp(y):
        return math.nan, math.nan
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return float(stats.pearsonr(x, y).statistic), float(stats.spearmanr(x, y).statistic)


def weighted_ranks(values: np.ndarray, weights: np.ndarray, order=None) -> np.ndarray:
    """Mid-ranks (from 1, ties averaged) of ``values`` in each resample: ``weights`` is
    (resamples, items), how often each resample took each item. With all weights 1 this is
    scipy's ``rankdata``. ``order`` may pass ``np.argsort(values)`` when it is known."""
    if order is None:
        order = np.argsort(values, kind="stable")
    ordered = values[order]
    starts = np.flatnonzero(np.r_[True, ordered[1:] != ordered[:-1]])
    ends = np.r_[starts[1:], len(ordered)] - 1
    group = np.repeat(np.arange(len(starts)), np.diff(np.r_[starts, len(ordered)]))
    through = np.cumsum(weights[:, order], axis=1)[:, ends]
    before = np.zeros_like(through)
    before[:, 1:] = through[:, :-1]
    middle = (before + through + 1) / 2
    ranks = np.empty(weights.shape, dtype=float)
    ranks[:, order] = middle[:, group]
    return ranks


def _pearson_from_sums(total, sx, sy, sxx, syy, sxy) -> np.ndarray:
    """Pearson's r of each resample from its weighted sums (total weight, Σwx, Σwy, Σwx²,
    Σwy², Σwxy); NaN where a resample took no item or one side is constant."""
    with np.errstate(divide="ignore", invalid="ignore"):
        covariance = sxy - sx * sy / total
        spread = np.sqrt(
            np.maximum(sxx - sx * sx / total, 0) * np.maximum(syy - sy * sy / total, 0)
        )
        return np.where((total > 0) & (spread > 0), covariance / spread, np.nan)


class _Block:
    """One block of resamples (``weights``: resamples × items) and what its correlations
    share: the weights of a subset of the items, and weighted ranks with their sums."""

    def __init__(self, weights: np.ndarray, orders: dict):
        self.weights = weights
        self._orders = orders
        self._chosen: dict[bytes, np.ndarray] = {}
        self._ranks: dict[tuple[bytes, bytes], tuple] = {}

    def chosen(self, columns: np.ndarray) -> np.ndarray:
        if len(columns) == self.weights.shape[1]:
            return self.weights
        memo = columns.tobytes()
        if memo not in self._chosen:
            self._chosen[memo] = self.weights[:, columns]
        return self._chosen[memo]

    def ranks(self, values: np.ndarray, columns: np.ndarray) -> tuple:
        """(ranks, weights × ranks, Σw·rank, Σw·rank²) per resample; scores and ratings
        recur across a table's rows, so each (values, items) is ranked once a block."""
        memo = (values.tobytes(), columns.tobytes())
        if memo not in self._ranks:
            if memo not in self._orders:
                self._orders[memo] = np.argsort(values, kind="stable")
            chosen = self.chosen(columns)
            ranks = weighted_ranks(values, chosen, self._orders[memo])
            weighted = chosen * ranks
            self._ranks[memo] = (
                ranks,
                weighted,
                weighted.sum(axis=1),
                np.einsum("ij,ij->i", weighted, ranks),
            )
        return self._ranks[memo]

    def spearman(self, x: np.ndarray, y: np.ndarray, columns: np.ndarray) -> np.ndarray:
        x_ranks, _, sx, sxx = self.ranks(x, columns)
        _, y_weighted, sy, syy = self.ranks(y, columns)
        total = self.chosen(columns).sum(axis=1)
        sxy = np.einsum("ij,ij->i", y_weighted, x_ranks)
        return _pearson_from_sums(total, sx, sy, sxx, syy, sxy)


def _pearson_features(prepared: dict, items: int) -> np.ndarray:
    """Per correlation, six columns over all items, zero where it takes no part: 1, x, y,
    x², y², xy, with x and y centred on their means (which keeps the sums of squares free
    of cancellation). One product with a block's weights gives every resample's sums."""
    features = np.zeros((items, 6 * len(prepared)))
    for k, (x, y, columns) in enumerate(prepared.values()):
        x, y = x - x.mean(), y - y.mean()
        features[columns, 6 * k : 6 * k + 6] = np.column_stack(
            [np.ones_like(x), x, y, x * x, y * y, x * y]
        )
    return features


def correlate(
    pairs: Mapping[Hashable, tuple],
    *,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = 0,
) -> dict[Hashable, Correlation]:
    """Pearson and Spearman, with bootstrap intervals, of every (x, y) in ``pairs``.

    All x and y are arrays over the same items (NaN: the item takes no part in that pair);
    one set of ``resamples`` draws of the items serves every pair (seeded by ``seed``), and
    ``resamples=0`` gives the coefficients alone. Percentile intervals, NaN resamples (a
    draw where one side is constant) left out.
    """
    prepared = {}
    items = None
    for key, (x, y) in pairs.items():
        x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
        if items is None:
            items = len(x)
        if not len(x) == len(y) == items:
            raise ValueError("every correlated sequence must cover the same items")
        valid = ~(np.isnan(x) | np.isnan(y))
        prepared[key] = (x[valid], y[valid], np.flatnonzero(valid))
    points = {key: pearson_spearman(x, y) for key, (x, y, _) in prepared.items()}
    if not resamples or not items:
        return {key: Correlation(len(prepared[key][0]), *points[key]) for key in prepared}
    eligible = {
        key: found
        for key, found in prepared.items()
        if len(found[0]) >= MINIMUM_ITEMS and not any(math.isnan(v) for v in points[key])
    }
    samples = {key: ([], []) for key in prepared}
    features = _pearson_features(eligible, items)
    orders = {}
    rng = np.random.default_rng(seed)
    block_size = max(1, _BLOCK_CELLS // items)
    for start in range(0, resamples, block_size):
        size = min(block_size, resamples - start)
        weights = rng.multinomial(items, np.full(items, 1.0 / items), size=size).astype(float)
        block = _Block(weights, orders)
        sums = weights @ features
        for k, (key, (x, y, columns)) in enumerate(eligible.items()):
            pearsons, spearmans = samples[key]
            pearsons.append(_pearson_from_sums(*sums[:, 6 * k : 6 * k + 6].T))
            spearmans.append(block.spearman(x, y, columns))
    correlations = {}
    for key, (x, _, _) in prepared.items():
        pearson, spearman = points[key]
        pearsons, spearmans = samples[key]
        if not pearsons:
            correlations[key] = Correlation(len(x), pearson, spearman)
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            p_low, p_high = np.nanpercentile(np.concatenate(pearsons), [2.5, 97.5])
            s_low, s_high = np.nanpercentile(np.concatenate(spearmans), [2.5, 97.5])
        correlations[key] = Correlation(
            len(x),
            pearson,
            spearman,
            float(p_low),
            float(p_high),
            float(s_low),
            float(s_high),
        )
    return correlations
