"""The combined score PINC x sigmoid(BLEU), its fitting, and the correlation table."""

import math
import random

import pytest

from paracrowd_metrics import combined, correlation_table, fit_combined, pearson, sigmoid


def test_at_the_centre_half_the_novelty_counts():
    assert combined(40.0, 80.0, centre=40.0, slope=0.2) == pytest.approx(40.0)


def test_well_above_the_centre_all_the_novelty_counts_and_well_below_none():
    assert combined(100.0, 80.0, centre=20.0, slope=1.0) == pytest.approx(80.0)
    assert combined(0.0, 80.0, centre=80.0, slope=1.0) == pytest.approx(0.0, abs=1e-12)


def test_the_sigmoid_is_the_logistic_function_and_never_overflows():
    assert sigmoid(0.0) == 0.5
    assert sigmoid(2.0) == pytest.approx(1 / (1 + math.exp(-2.0)))
    assert sigmoid(-2.0) == pytest.approx(1 / (1 + math.exp(2.0)))
    assert sigmoid(1e6) == 1.0
    assert sigmoid(-1e6) == 0.0


def test_pearson_is_1_for_a_rising_line_and_minus_1_for_a_falling_one():
    assert pearson([1, 2, 3, 4], [10, 20, 30, 40]) == pytest.approx(1.0)
    assert pearson([1, 2, 3, 4], [4, 3, 2, 1]) == pytest.approx(-1.0)
    # Worked by hand: deviations (-1, 0, 1) and (-1, 1, 0) -> 1 / sqrt(2 * 2).
    assert pearson([1, 2, 3], [1, 3, 2]) == pytest.approx(0.5)
    assert math.isnan(pearson([1, 1, 1], [1, 2, 3]))


def scores_and_ratings(centre, slope, noise, seed=7, count=300):
    rng = random.Random(seed)
    bleu = [rng.uniform(0, 100) for _ in range(count)]
    pinc = [rng.uniform(0, 100) for _ in range(count)]
    ratings = [
        combined(b, p, centre=centre, slope=slope) + rng.gauss(0, noise)
        for b, p in zip(bleu, pinc, strict=True)
    ]
    return bleu, pinc, ratings


def test_fitting_recovers_the_parameters_that_produced_the_ratings():
    bleu, pinc, ratings = scores_and_ratings(centre=40.0, slope=0.2, noise=0.0)
    centre, slope, r = fit_combined(bleu, pinc, ratings)
    assert centre == pytest.approx(40.0, abs=0.5)
    assert slope == pytest.approx(0.2, rel=0.05)
    assert r == pytest.approx(1.0, abs=1e-6)


def test_fitting_beats_every_point_of_a_coarse_grid():
    bleu, pinc, ratings = scores_and_ratings(centre=25.0, slope=0.05, noise=8.0)
    _, _, best = fit_combined(bleu, pinc, ratings)
    for centre in range(0, 101, 10):
        for slope in (0.01, 0.03, 0.1, 0.3, 1.0):
            scores = [
                combined(b, p, centre=centre, slope=slope) for b, p in zip(bleu, pinc, strict=True)
            ]
            assert best >= pearson(scores, ratings) - 1e-12


def test_the_table_has_the_papers_rows_and_the_fitted_combined_score_leads():
    bleu, pinc, ratings = scores_and_ratings(centre=50.0, slope=0.1, noise=5.0)
    table = correlation_table(bleu, pinc, ratings)

    assert table.bleu == pytest.approx(pearson(bleu, ratings))
    assert table.pinc == pytest.approx(pearson(pinc, ratings))
    pairs = list(zip(bleu, pinc, strict=True))
    assert table.arithmetic_mean == pytest.approx(pearson([(b + p) / 2 for b, p in pairs], ratings))
    assert table.geometric_mean == pytest.approx(
        pearson([math.sqrt(b * p) for b, p in pairs], ratings)
    )
    assert table.harmonic_mean == pytest.approx(
        pearson([2 * b * p / (b + p) for b, p in pairs], ratings)
    )
    assert (table.centre, table.slope, table.combined) == fit_combined(bleu, pinc, ratings)
    assert table.combined == max(r for _, r in table.rows())
    assert [name for name, _ in table.rows()][:5] == [
        "BLEU",
        "PINC",
        "Arithmetic mean",
        "Geometric mean",
        "Harmonic mean",
    ]


def test_fitting_refuses_ratings_that_cannot_be_correlated():
    with pytest.raises(ValueError, match="equal"):
        fit_combined([10.0, 20.0, 30.0], [50.0, 60.0, 70.0], [3.0, 3.0, 3.0])
    with pytest.raises(ValueError, match="one rating"):
        fit_combined([10.0, 20.0], [50.0, 60.0], [1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match="constant"):
        fit_combined([10.0, 20.0, 30.0], [0.0, 0.0, 0.0], [1.0, 2.0, 3.0])
