"""Dawid–Skene consensus of judges' ratings: deterministic, weights reliable judges, and
recovers simulated true ratings better than the plain mean."""

import math
import random

import pytest

from paracrowd_metrics.rating_consensus import (
    dawid_skene,
    pairs_with_consensus,
    reliability_table,
)
from paracrowd_metrics.ratings import RatedPair

SCALE = (1, 2, 3, 4)


def test_judges_who_all_agree_give_their_rating_with_certainty():
    estimate = dawid_skene([(item, judge, 3) for item in "ab" for judge in "XYZ"])
    assert estimate.categories == (3.0,)
    assert estimate.items["a"].expected == 3.0
    assert estimate.items["a"].probabilities == {3.0: 1.0}
    assert estimate.judges["X"].reliability == pytest.approx(1.0)
    assert estimate.judges["X"].ratings == 2


def test_nothing_to_estimate_gives_an_empty_consensus():
    estimate = dawid_skene([])
    assert estimate.items == {} and estimate.judges == {} and estimate.converged


def test_a_judge_rating_one_item_twice_is_refused():
    with pytest.raises(ValueError, match="rated item 'a' twice"):
        dawid_skene([("a", "X", 1), ("a", "X", 2)])


def test_the_estimate_does_not_depend_on_the_order_of_the_ratings():
    _, _, ratings = simulate(seed=3, items=40)
    forward = dawid_skene(ratings)
    backward = dawid_skene(list(reversed(ratings)))
    assert forward == backward


def test_a_judge_who_contradicts_the_majority_is_outweighed():
    # Two judges agree on every item; a third always says the opposite end of the scale.
    ratings = []
    for item, truth in enumerate([1, 2, 3, 4] * 5):
        ratings += [(item, "A", truth), (item, "B", truth), (item, "C", 5 - truth)]
    estimate = dawid_skene(ratings)
    # (The prior keeps five items per rating from proving anyone perfect, or hopeless.)
    assert estimate.judges["C"].reliability < 0.3 < 0.8 < estimate.judges["A"].reliability
    for item, truth in enumerate([1, 2, 3, 4] * 5):
        assert estimate.items[item].most_likely == truth
        assert estimate.items[item].expected == pytest.approx(truth, abs=0.05)


def test_rated_pairs_take_the_consensus_and_keep_the_judges_ratings():
    pairs = [
        RatedPair(
            "s", f"c{n}", ("r",), {"overall": 0.0}, {"A": {"overall": v}, "B": {"overall": v}}
        )
        for n, v in enumerate([1.0, 2.0, 4.0, 4.0])
    ]
    weighted, reliabilities = pairs_with_consensus(pairs, ["overall"])
    assert [round(p.ratings["overall"]) for p in weighted] == [1, 2, 4, 4]
    assert weighted[0].judges == pairs[0].judges
    (first, second) = reliability_table(reliabilities)
    assert {first["judge"], second["judge"]} == {"A", "B"}
    assert first["ratings"] == 4 and first["reliability"]["overall"] > 0.75


def simulate(*, seed: int, items: int = 300, honest: int = 20, clickers: int = 8, per_item=5):
    """True ratings of ``items`` items, and ratings of each by ``per_item`` judges drawn from
    a population of honest judges, each right with their own chance (55–95%) and otherwise
    one point off, and random clickers, who pick any point of the scale."""
    rng = random.Random(seed)
    truth = {item: rng.choice(SCALE) for item in range(items)}
    right = {f"honest-{n}": rng.uniform(0.55, 0.95) for n in range(honest)}
    right |= {f"clicker-{n}": None for n in range(clickers)}
    judges = sorted(right)
    ratings = []
    for item, true_rating in truth.items():
        for judge in rng.sample(judges, per_item):
            chance = right[judge]
            if chance is None:
                rating = rng.choice(SCALE)
            elif rng.random() < chance:
                rating = true_rating
            else:
                rating = rng.choice([r for r in (true_rating - 1, true_rating + 1) if r in SCALE])
            ratings.append((item, judge, rating))
    return truth, right, ratings


def rmse(estimates: dict, truth: dict) -> float:
    return math.sqrt(sum((estimates[i] - truth[i]) ** 2 for i in truth) / len(truth))


def exact(estimates: dict, truth: dict) -> float:
    return sum(estimates[i] == truth[i] for i in truth) / len(truth)


def test_the_weighted_consensus_recovers_true_ratings_better_than_the_mean():
    truth, right, ratings = simulate(seed=25)
    given = {}
    for item, _, rating in ratings:
        given.setdefault(item, []).append(rating)
    mean = {item: sum(values) / len(values) for item, values in given.items()}
    estimate = dawid_skene(ratings)
    consensus = {item: c.expected for item, c in estimate.items.items()}
    mean_rmse, consensus_rmse = rmse(mean, truth), rmse(consensus, truth)
    rounded_mean = {item: math.floor(value + 0.5) for item, value in mean.items()}
    most_likely = {item: c.most_likely for item, c in estimate.items.items()}
    mean_exact, consensus_exact = exact(rounded_mean, truth), exact(most_likely, truth)
    honest = [j for j, chance in right.items() if chance is not None]
    clickers = [j for j, chance in right.items() if chance is None]
    print(
        f"\n{len(truth)} items, {len(ratings)} ratings by {len(honest)} honest judges and "
        f"{len(clickers)} random clickers (seed 25)\n"
        f"RMSE against the true ratings: plain mean {mean_rmse:.3f}, "
        f"Dawid–Skene {consensus_rmse:.3f}\n"
        f"exactly right: rounded mean {mean_exact:.1%}, Dawid–Skene {consensus_exact:.1%}\n"
        f"reliability: honest {min(estimate.judges[j].reliability for j in honest):.2f}–"
        f"{max(estimate.judges[j].reliability for j in honest):.2f}, clickers "
        f"{min(estimate.judges[j].reliability for j in clickers):.2f}–"
        f"{max(estimate.judges[j].reliability for j in clickers):.2f}"
    )
    assert estimate.converged
    assert consensus_rmse < 0.8 * mean_rmse
    assert consensus_exact > mean_exact + 0.1
    # Every random clicker is found less reliable than every honest judge.
    assert max(estimate.judges[j].reliability for j in clickers) < min(
        estimate.judges[j].reliability for j in honest
    )


def test_ratings_on_a_continuous_scale_are_refused_not_made_into_hundreds_of_categories():
    ratings = [(item, judge, item / 10 + judge / 100) for item in range(30) for judge in range(2)]
    with pytest.raises(ValueError, match="60 different rating values"):
        dawid_skene(ratings)
