"""Agreement between judges of paraphrase ratings: Pearson's r over pairs of judges of one item
and Krippendorff's α (ordinal) from the krippendorff library."""

import math

import krippendorff
import numpy as np
import pytest

from paracrowd_metrics.rating_agreement import (
    judge_pairs,
    judges_pearson,
    krippendorff_ordinal,
    rating_agreement,
)

# Four items, two judges each (judge A first).
TWO_JUDGES = [[1, 2], [3, 3], [4, 4], [2, 1]]


def test_pairs_of_judges_are_taken_in_both_orders():
    assert judge_pairs([[1, 2], [3, 3, 4]]) == (
        [1, 2, 3, 3, 3, 3, 4, 4],
        [2, 1, 3, 4, 3, 4, 3, 3],
    )


def test_pearson_between_two_judges_matches_a_hand_computed_example():
    # Pairs in both orders: x = 1 2 3 3 4 4 2 1 and y = 2 1 3 3 4 4 1 2; both have mean 2.5
    # and sum of squared deviations 10; the sum of products of deviations is 8: r = 0.8.
    assert judges_pearson(TWO_JUDGES) == pytest.approx(0.8)


def test_ordinal_alpha_matches_a_hand_computed_example():
    # Krippendorff's definitions, written out without the library: the ordinal distance
    # between two values counts the values rated between them (half of each end's own count);
    # α = 1 − observed / expected disagreement. Two items disagree, 1 against 2 (δ = 4):
    # D_o = 2·(2·4)/8 = 2, D_e = 80/7, α = 1 − 14/80 = 0.825.
    values = [v for item in TWO_JUDGES for v in item]
    counts = {v: values.count(v) for v in (1, 2, 3, 4)}

    def delta(c, k):
        low, high = sorted((c, k))
        between = sum(counts[g] for g in range(low, high + 1))
        return (between - (counts[low] + counts[high]) / 2) ** 2

    n = len(values)
    observed = sum(delta(a, b) * 2 for a, b in TWO_JUDGES) / n  # each item: m_u - 1 = 1
    expected = sum(counts[c] * counts[k] * delta(c, k) for c in counts for k in counts) / (
        n * (n - 1)
    )
    assert krippendorff_ordinal(TWO_JUDGES) == pytest.approx(1 - observed / expected)
    assert krippendorff_ordinal(TWO_JUDGES) == pytest.approx(0.825)


def test_the_librarys_documented_example_gives_its_documented_alpha():
    # krippendorff.alpha's docstring: three coders, fifteen units, NaN where a coder gave none;
    # nominal α 0.691358 and interval α 0.810845. Our items are its columns.
    nan = np.nan
    coders = [
        [nan, nan, nan, nan, nan, 3, 4, 1, 2, 1, 1, 3, 3, nan, 3],
        [1, nan, 2, 1, 3, 3, 4, 3, nan, nan, nan, nan, nan, nan, nan],
        [nan, nan, 2, 1, 3, 4, 4, nan, 2, 1, 1, 3, 3, nan, 4],
    ]
    items = [[c[u] for c in coders if not math.isnan(c[u])] for u in range(15)]

    ordinal = krippendorff.alpha(
        reliability_data=coders, value_domain=[1, 2, 3, 4], level_of_measurement="ordinal"
    )
    assert krippendorff_ordinal(items) == pytest.approx(ordinal)
    # Laid out as our function lays items out, the data give the documented figures.
    matrix = np.full((3, 15), nan)
    for u, values in enumerate(items):
        matrix[: len(values), u] = values
    assert krippendorff.alpha(
        reliability_data=matrix, level_of_measurement="nominal"
    ) == pytest.approx(0.691358, abs=1e-6)
    assert krippendorff.alpha(
        reliability_data=matrix, level_of_measurement="interval"
    ) == pytest.approx(0.810845, abs=1e-6)


def test_items_with_one_judge_count_for_nothing():
    agreement = rating_agreement([[1], [2], *TWO_JUDGES, [4]])
    assert (agreement.items, agreement.pairs) == (4, 8)
    assert agreement.pearson == pytest.approx(0.8)
    assert agreement.alpha == pytest.approx(0.825)


@pytest.mark.parametrize("items", [[], [[3]], [[4, 4], [4, 4]]])
def test_too_little_to_go_on_gives_no_figure(items):
    agreement = rating_agreement(items)
    assert agreement.pearson is None and agreement.alpha is None


def test_perfect_agreement_is_one_and_items_may_have_three_judges():
    agreement = rating_agreement([[1, 1, 1], [4, 4], [2, 2, 2]])
    assert agreement.pearson == pytest.approx(1.0)
    assert agreement.alpha == pytest.approx(1.0)
