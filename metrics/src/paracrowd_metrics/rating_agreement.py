"""Agreement between judges who rated the same items on one ordinal scale (Chen & Dolan's
1–4 ratings of semantic equivalence, dissimilarity and overall quality).

Each item's ratings are a sequence of values, one per judge; items need not have the same
number of judges, and which judge gave which value does not matter: both measures look only
at the values given to the same item.
"""

import math
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import permutations

import krippendorff
import numpy as np

from paracrowd_metrics.combined import pearson

RATING_SCALE = (1, 2, 3, 4)


@dataclass(frozen=True)
class RatingAgreement:
    """Agreement on one rating dimension: how many items had two judges or more, how many
    ordered pairs of judgements Pearson's r was computed over, r itself and Krippendorff's α
    (ordinal). A figure is None when there is too little to compute it from."""

    items: int
    pairs: int
    pearson: float | None
    alpha: float | None


def judge_pairs(ratings_per_item: Sequence[Sequence[float]]) -> tuple[list, list]:
    """Every ordered pair of two judgements of the same item, as two lists (x, y).

    Both orders are kept, so the correlation does not depend on which judge is called first
    (with two judges per item it is the correlation of judge A with judge B over a random
    choice of who is A)."""
    xs, ys = [], []
    for values in ratings_per_item:
        for x, y in permutations(values, 2):
            xs.append(x)
            ys.append(y)
    return xs, ys


def judges_pearson(ratings_per_item: Sequence[Sequence[float]]) -> float | None:
    """Pearson's r between judges of the same items (see ``judge_pairs``); None with fewer
    than two pairs or no spread."""
    xs, ys = judge_pairs(ratings_per_item)
    if len(xs) < 2:
        return None
    r = pearson(xs, ys)
    return None if math.isnan(r) else r


def krippendorff_ordinal(
    ratings_per_item: Sequence[Sequence[float]], scale: Sequence[float] = RATING_SCALE
) -> float | None:
    """Krippendorff's α for ordinal data, by the ``krippendorff`` library, over the items
    with two judgements or more; ``scale`` is the ordered set of values a judge may give (the
    ordinal distance depends on it). None when nothing is pairable or no value varies."""
    rated = [values for values in ratings_per_item if len(values) >= 2]
    if not rated:
        return None
    judges = max(len(values) for values in rated)
    # The library wants judges × items with NaN where a judge gave no value; an item's values
    # go in its first slots, as α looks only at the values within each item.
    matrix = np.full((judges, len(rated)), np.nan)
    for column, values in enumerate(rated):
        matrix[: len(values), column] = values
    if len(np.unique(matrix[~np.isnan(matrix)])) < 2:
        return None
    alpha = float(
        krippendorff.alpha(
            reliability_data=matrix,
            value_domain=list(scale),
            level_of_measurement="ordinal",
        )
    )
    return None if math.isnan(alpha) else alpha


def rating_agreement(
    ratings_per_item: Sequence[Sequence[float]], scale: Sequence[float] = RATING_SCALE
) -> RatingAgreement:
    """Pearson's r between judges and Krippendorff's α (ordinal) for one rating dimension."""
    xs, _ = judge_pairs(ratings_per_item)
    return RatingAgreement(
        items=sum(1 for values in ratings_per_item if len(values) >= 2),
        pairs=len(xs),
        pearson=judges_pearson(ratings_per_item),
        alpha=krippendorff_ordinal(ratings_per_item, scale),
    )
