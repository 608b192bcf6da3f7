"""Pearson and Spearman with bootstrap intervals, and the BLEU of many reference subsets."""

import math
import random

import numpy as np
import pytest
from scipy import stats

from paracrowd_metrics import sentence_bleu
from paracrowd_metrics.correlation import correlate, pearson_spearman, weighted_ranks
from paracrowd_metrics.reference_subsets import ReferenceSubsets, SentenceCounts


def test_weighted_ranks_are_scipys_ranks_of_the_resample_they_describe():
    values = np.array([3.0, 1.0, 2.0, 2.0, 5.0, 1.0])
    weights = np.array([[1, 1, 1, 1, 1, 1], [2, 0, 1, 3, 0, 1]], dtype=float)
    ranks = weighted_ranks(values, weights)
    assert ranks[0] == pytest.approx(stats.rankdata(values))
    resample = np.repeat(values, weights[1].astype(int))
    expected = dict(zip(resample, stats.rankdata(resample), strict=True))
    taken = weights[1] > 0
    assert ranks[1][taken] == pytest.approx([expected[v] for v in values[taken]])


def test_the_coefficients_are_scipys():
    rng = random.Random(4)
    x = [rng.random() for _ in range(50)]
    y = [a + rng.gauss(0, 0.3) for a in x]
    pearson, spearman = pearson_spearman(x, y)
    assert pearson == pytest.approx(stats.pearsonr(x, y).statistic)
    assert spearman == pytest.approx(stats.spearmanr(x, y).statistic)
    assert all(math.isnan(r) for r in pearson_spearman([1, 1, 1], [1, 2, 3]))


def test_intervals_are_seeded_hold_the_estimate_and_narrow_with_more_items():
    rng = np.random.default_rng(1)
    x = rng.random(400)
    y = x + rng.normal(0, 0.5, 400)
    alone = correlate({"r": (x, y)}, resamples=0)["r"]
    assert alone.pearson_low is None and alone.pearson == pytest.approx(stats.pearsonr(x, y)[0])
    both = {"many": (x, y), "few": (np.r_[x[:40], [np.nan] * 360], y)}
    found = correlate(both, resamples=300, seed=3)
    assert found == correlate(both, resamples=300, seed=3)
    assert found != correlate(both, resamples=300, seed=4)
    for key, correlation in found.items():
        assert correlation.pearson_low < correlation.pearson < correlation.pearson_high, key
        assert correlation.spearman_low < correlation.spearman < correlation.spearman_high, key
    assert found["few"].items == 40
    many, few = found["many"], found["few"]
    assert many.pearson_high - many.pearson_low < few.pearson_high - few.pearson_low


def test_a_bootstrap_spearman_resample_is_the_spearman_of_that_resample():
    # One resample, made by hand from the same weights the bootstrap draws.
    rng = np.random.default_rng(0)
    x, y = rng.integers(1, 5, 30).astype(float), rng.random(30)
    weights = rng.multinomial(30, np.full(30, 1 / 30), size=1).astype(float)
    rx, ry = weighted_ranks(x, weights), weighted_ranks(y, weights)
    resample = np.repeat(np.arange(30), weights[0].astype(int))
    taken = np.flatnonzero(weights[0])
    w = weights[0][taken]
    mx, my = np.average(rx[0][taken], weights=w), np.average(ry[0][taken], weights=w)
    r = np.sum(w * (rx[0][taken] - mx) * (ry[0][taken] - my)) / math.sqrt(
        np.sum(w * (rx[0][taken] - mx) ** 2) * np.sum(w * (ry[0][taken] - my) ** 2)
    )
    assert r == pytest.approx(stats.spearmanr(x[resample], y[resample]).statistic)


def test_subsets_score_exactly_as_sentence_bleu_on_the_chosen_references():
    rng = random.Random(1)
    words = [
        "a",
        "man",
        "is",
        "the",
        "dog",
        "cat",
        "playing",
        "plays",
        "guitar",
        "a",
        "a",
        "on",
        "with",
    ]
    counts = SentenceCounts()
    for trial in range(200):
        references = [
            " ".join(rng.choice(words) for _ in range(rng.randint(1, 9)))
            for _ in range(rng.randint(1, 8))
        ]
        hypothesis = " ".join(rng.choice(words) for _ in range(rng.randint(0, 9)))
        subsets = ReferenceSubsets(hypothesis, references, counts)
        chosen = np.random.default_rng(trial).random((4, len(references))) < 0.5
        chosen[:, trial % len(references)] = True
        for row, score in zip(chosen, subsets.bleu(chosen), strict=True):
            kept = [r for r, keep in zip(references, row, strict=True) if keep]
            assert score == sentence_bleu(hypothesis, kept)


def test_an_empty_subset_is_refused():
    subsets = ReferenceSubsets("a cat", ["a cat sits"], SentenceCounts())
    with pytest.raises(ValueError, match="at least one reference"):
        subsets.bleu(np.array([[False]]))
