"""Paired bootstrap resampling of two systems' sentence scores."""

import random

import pytest

from paracrowd_metrics.significance import paired_bootstrap


def scores(seed: int, count: int = 300) -> list[float]:
    rng = random.Random(seed)
    return [rng.uniform(0, 100) for _ in range(count)]


def test_a_clear_gain_on_every_item_is_significant_and_its_interval_is_above_zero():
    baseline = scores(1)
    system = [value + 5 for value in baseline]

    found = paired_bootstrap(system, baseline, samples=500, seed=0)

    assert found.difference == pytest.approx(5)
    assert found.low == pytest.approx(5) and found.high == pytest.approx(5)
    assert found.p_value == pytest.approx(1 / 501)


def test_noise_around_the_baseline_is_not_significant_and_its_interval_spans_zero():
    baseline = scores(2)
    rng = random.Random(3)
    system = [value + rng.gauss(0, 10) for value in baseline]

    found = paired_bootstrap(system, baseline, samples=1000, seed=0)

    assert found.low < 0 < found.high or found.p_value > 0.05
    assert found.items == 300


def test_the_same_seed_gives_the_same_figures_and_another_seed_others():
    baseline, system = scores(4), scores(5)

    first = paired_bootstrap(system, baseline, samples=200, seed=7)

    assert first == paired_bootstrap(system, baseline, samples=200, seed=7)
    assert first != paired_bootstrap(system, baseline, samples=200, seed=8)


def test_a_system_identical_to_the_baseline_has_p_one_and_no_items_give_nothing():
    same = scores(6)
    assert paired_bootstrap(same, same, samples=100).p_value == 1.0
    assert paired_bootstrap([], [], samples=100) is None
    with pytest.raises(ValueError, match="same items"):
        paired_bootstrap([1.0], [1.0, 2.0])
