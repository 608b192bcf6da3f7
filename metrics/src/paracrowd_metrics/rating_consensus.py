"""Reliability-weighted consensus of judges' ratings: the Dawid–Skene (1979) estimate.

Each item has one true rating, unknown; each judge has a confusion matrix, the chance of
giving each rating when the true one is each rating; and the true ratings follow a prior.
Expectation–maximisation fits all three from the ratings alone, so a judge who agrees with
the others where the others agree counts for more, and a judge who clicks at random (a flat
confusion matrix) for almost nothing, where the plain mean counts every judge the same.

A judge's **reliability** is the chance their rating is the true one (the confusion matrix's
diagonal weighted by the prior). An item's **consensus** is the expected rating under the
posterior, and the most likely rating beside it.

The ratings are categories: the values judges gave (1–4 on Chen & Dolan's scales, or any
other set of numbers) are the categories, in order. Everything is deterministic: items and
judges are taken in sorted order and the first estimate of the true ratings is each item's
share of votes, with no random start.
"""

from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace

import numpy as np

from paracrowd_metrics.ratings import RatedPair

# Pseudo-counts (a Dirichlet prior) added to every cell of a confusion matrix and of the
# prior, so that a judge seen on a few items does not get a zero chance of a rating they
# happened not to give; and, on the diagonal, the belief that a judge is more often right
# than not. Without it a batch of a few items can slide to the flat estimate (every rating
# equally likely, every judge a random clicker), which is also a fixed point of the updates.
SMOOTHING = 0.5
DIAGONAL = 2.0
MAX_ITERATIONS = 500
TOLERANCE = 1e-6
METHODS = ("mean", "dawid-skene")


@dataclass(frozen=True)
class ItemConsensus:
    expected: float  # the posterior mean rating
    most_likely: float  # the rating of highest posterior probability (the lower one on a tie)
    probabilities: dict[float, float]


@dataclass(frozen=True)
class JudgeReliability:
    reliability: float  # the chance the judge's rating is the item's true rating
    ratings: int


@dataclass(frozen=True)
class RatingConsensus:
    items: dict[Hashable, ItemConsensus]
    judges: dict[Hashable, JudgeReliability]
    categories: tuple[float, ...]
    iterations: int
    converged: bool


# The most distinct rating values treated as categories (0–5 in steps of 0.25 is 21).
MAX_CATEGORIES = 21


def rating_categories(values: Iterable[float]) -> tuple[float, ...]:
    """The distinct rating values, in order: the categories Dawid–Skene weighs judges over.
    ValueError when there are more than MAX_CATEGORIES."""
    categories = tuple(sorted({float(value) for value in values}))
    if len(categories) > MAX_CATEGORIES:
        # Each judge has a categories × categories confusion matrix: ratings on a continuous
        # scale (an average, 3.8 of 5) are not categories, and would make it enormous.
        raise ValueError(
            f"{len(categories)} different rating values; Dawid–Skene weighs judges over at "
            f"most {MAX_CATEGORIES} categories (ratings on a fixed scale of steps)"
        )
    return categories


def dawid_skene(
    ratings: Iterable[tuple[Hashable, Hashable, float]],
    *,
    smoothing: float = SMOOTHING,
    diagonal: float = DIAGONAL,
    max_iterations: int = MAX_ITERATIONS,
    tolerance: float = TOLERANCE,
) -> RatingConsensus:
    """The Dawid–Skene estimate from ``(item, judge, rating)`` triples. A judge rates an item
    at most once (ValueError otherwise). Items and judges are any sortable keys."""
    # Sorted, so that the sums (and so the estimate) do not depend on the input's order.
    triples = sorted((item, judge, float(value)) for item, judge, value in ratings)
    seen = set()
    for item, judge, _ in triples:
        if (item, judge) in seen:
            raise ValueError(f"judge {judge!r} rated item {item!r} twice")
        seen.add((item, judge))
    if not triples:
        return RatingConsensus({}, {}, (), 0, True)
    items = sorted({item for item, _, _ in triples})
    judges = sorted({judge for _, judge, _ in triples})
    categories = rating_categories(value for _, _, value in triples)
    item_index = {item: n for n, item in enumerate(items)}
    judge_index = {judge: n for n, judge in enumerate(judges)}
    category_index = {value: n for n, value in enumerate(categories)}
    item_at = np.array([item_index[item] for item, _, _ in triples])
    judge_at = np.array([judge_index[judge] for _, judge, _ in triples])
    label_at = np.array([category_index[value] for _, _, value in triples])
    fit = _expectation_maximisation(
        item_at,
        judge_at,
        label_at,
        shape=(len(items), len(judges), len(categories)),
        smoothing=smoothing,
        diagonal=diagonal,
        max_iterations=max_iterations,
        tolerance=tolerance,
    )
    posterior, confusion, prior, iterations, converged = fit
    values = np.array(categories)
    reliability = np.einsum("k,jkk->j", prior, confusion)
    counts = np.bincount(judge_at, minlength=len(judges))
    return RatingConsensus(
        items={
            item: ItemConsensus(
                expected=float(posterior[n] @ values),
                most_likely=categories[int(np.argmax(posterior[n]))],
                probabilities={c: float(p) for c, p in zip(categories, posterior[n], strict=True)},
            )
            for n, item in enumerate(items)
        },
        judges={
            judge: JudgeReliability(float(reliability[n]), int(counts[n]))
            for n, judge in enumerate(judges)
        },
        categories=categories,
        iterations=iterations,
        converged=converged,
    )


def _expectation_maximisation(
    item_at, judge_at, label_at, *, shape, smoothing, diagonal, max_iterations, tolerance
):
    items, judges, categories = shape
    every = np.arange(categories)
    # Flat positions for np.bincount, which sums far faster than np.add.at: rating r's
    # share of (item, k) and of (judge, k, label).
    item_cell = (item_at[:, None] * categories + every).ravel()
    judge_cell = (
        ((judge_at * categories)[:, None] + every) * categories + label_at[:, None]
    ).ravel()

    def per_item(weights):  # weights (ratings × categories) summed over each item's ratings
        return np.bincount(item_cell, weights.ravel(), items * categories).reshape(
            items, categories
        )

    # The first estimate of each item's true rating: its share of the votes.
    posterior = per_item(np.eye(categories)[label_at])
    posterior /= posterior.sum(axis=1, keepdims=True)
    pseudo_counts = smoothing + diagonal * np.eye(categories)
    iterations, converged = 0, False
    while iterations < max_iterations:
        iterations += 1
        prior = posterior.sum(axis=0) + smoothing
        prior /= prior.sum()
        # confusion[j, k, l]: the chance judge j says l when the truth is k.
        confusion = np.bincount(
            judge_cell, posterior[item_at].ravel(), judges * categories * categories
        ).reshape(judges, categories, categories)
        confusion += pseudo_counts
        confusion /= confusion.sum(axis=2, keepdims=True)
        log_posterior = np.log(prior) + per_item(np.log(confusion)[judge_at, :, label_at])
        log_posterior -= log_posterior.max(axis=1, keepdims=True)
        updated = np.exp(log_posterior)
        updated /= updated.sum(axis=1, keepdims=True)
        change = float(np.abs(updated - posterior).max())
        posterior = updated
        if change < tolerance:
            converged = True
            break
    return posterior, confusion, prior, iterations, converged


def pairs_with_consensus(
    pairs: Sequence[RatedPair], dimensions: Sequence[str], **options
) -> tuple[list[RatedPair], dict[str, dict[Hashable, JudgeReliability]]]:
    """``pairs`` with each dimension's rating the Dawid–Skene consensus (the expected rating)
    instead of the judges' mean, and each judge's reliability per dimension. The judges'
    own ratings are kept as they are."""
    estimates = {
        dimension: dawid_skene(
            (
                (number, judge, ratings[dimension])
                for number, pair in enumerate(pairs)
                for judge, ratings in pair.judges.items()
            ),
            **options,
        )
        for dimension in dimensions
    }
    weighted = [
        replace(
            pair,
            ratings={
                dimension: estimates[dimension].items[number].expected for dimension in dimensions
            },
        )
        for number, pair in enumerate(pairs)
    ]
    return weighted, {dimension: estimate.judges for dimension, estimate in estimates.items()}


def reliability_table(
    reliabilities: Mapping[str, Mapping[Hashable, JudgeReliability]],
    *,
    order_by: str | None = None,
) -> list[dict]:
    """One JSON-ready row per judge, least reliable first on ``order_by`` (default: the
    first dimension): the judge, how many ratings, and the reliability in each dimension."""
    dimensions = list(reliabilities)
    if not dimensions:
        return []
    first = reliabilities[order_by or dimensions[0]]
    order = sorted(first, key=lambda judge: (first[judge].reliability, str(judge)))
    return [
        {
            "judge": str(judge),
            "ratings": first[judge].ratings,
            "reliability": {d: reliabilities[d][judge].reliability for d in dimensions},
        }
        for judge in order
    ]
