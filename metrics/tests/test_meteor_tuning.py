"""Tuning the METEOR-style score: grid search and k-fold cross-validation."""

import random

import numpy as np
import pytest

from paracrowd_metrics.meteor import Meteor, MeteorParameters, ParaphraseTable
from paracrowd_metrics.meteor.tuning import (
    Grid,
    RatedPairs,
    cross_validate,
    folds_of,
    grid_points,
)

TRUE = MeteorParameters(alpha=0.25, beta=1.0, gamma=0.5, stem=0.4, synonym=0.0, paraphrase=0.8)
SMALL_GRID = Grid(
    alpha=(0.25, 0.75), beta=(1.0, 3.0), gamma=(0.0, 0.5), stem=(0.4, 1.0), paraphrase=(0.2, 0.8)
)


def rated_pairs():
    table = ParaphraseTable()
    table.add("is cutting", "slices", 0.5)
    table.add("guy", "man", 0.5)
    words = [
        "a",
        "guy",
        "man",
        "is",
        "cutting",
        "slices",
        "cuts",
        "the",
        "tomato",
        "tomatoes",
        "onion",
        "quickly",
    ]
    rng = random.Random(3)
    candidates = [" ".join(rng.choices(words, k=rng.randint(2, 7))) for _ in range(40)]
    references = [["a man slices a tomato", "the guy is cutting onions"]] * 40
    truth = Meteor(paraphrases=table, parameters=TRUE)
    ratings = [truth.score(c, refs) for c, refs in zip(candidates, references, strict=True)]
    return RatedPairs(candidates, references, ratings, paraphrases=table), truth


def test_scores_from_stored_counts_equal_the_scorer():
    rated, truth = rated_pairs()
    assert rated.scores(TRUE) == pytest.approx(rated.ratings)


def test_the_grid_search_finds_the_parameters_behind_the_ratings():
    rated, _ = rated_pairs()
    result = cross_validate(rated, grid_points(SMALL_GRID, paraphrases=True), folds=4)
    assert result.fitted == pytest.approx(1.0)
    assert result.held_out == pytest.approx(1.0)
    assert result.parameters.paraphrase == 0.8 and result.parameters.alpha == 0.25


def test_without_paraphrases_the_tuned_score_correlates_less():
    rated, _ = rated_pairs()
    result = cross_validate(rated, grid_points(SMALL_GRID, paraphrases=False), folds=4)
    assert result.parameters.paraphrase == 0.0
    assert result.held_out < 0.99


def test_folds_deal_every_rating_once():
    folds = folds_of(10, 3, seed=1)
    assert sorted(np.concatenate(folds).tolist()) == list(range(10))
    with pytest.raises(ValueError):
        folds_of(3, 5, seed=1)
