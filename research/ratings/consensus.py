"""Reliability-weighted consensus of a rating batch: the Dawid–Skene estimate
(paracrowd_metrics.rating_consensus) of each judge's reliability and each item's rating, per
dimension, beside the plain mean every judge counts the same in.

The ratings that count are the same as everywhere (accepted and waiting for review). A batch
holds at most ``batches.MAX_ITEMS`` items of at most ``batches.MAX_JUDGES`` judges, so the
estimate is bounded: at the largest (50,000 ratings), about half a second per dimension.
"""

from dataclasses import dataclass

from paracrowd.spreadsheets import spreadsheet_cell
from paracrowd_metrics.rating_consensus import (
    RatingConsensus,
    dawid_skene,
    reliability_table,
)

from ..models import Rating, RatingBatch, RatingItem
from ..selection import worker_label

# The dimension that orders judges and items on the page: the overall judgement.
ORDER_BY = "overall"
# Items shown on the page: those where the consensus departs most from the plain mean.
ITEMS_SHOWN = 20


@dataclass(frozen=True)
class ItemRow:
    item_id: int
    mean: dict[str, float]
    consensus: dict[str, float]
    most_likely: dict[str, float]
    source: str = ""
    candidate: str = ""

    @property
    def ordering_mean(self) -> float:
        return self.mean[ORDER_BY]

    @property
    def ordering_consensus(self) -> float:
        return self.consensus[ORDER_BY]

    @property
    def ordering_most_likely(self) -> float:
        return self.most_likely[ORDER_BY]

    @property
    def departure(self) -> float:
        return abs(self.ordering_consensus - self.ordering_mean)


@dataclass(frozen=True)
class BatchConsensus:
    judges: list[dict]  # reliability_table rows, least reliable first
    items: list[ItemRow]  # every rated item, in item order
    means: dict[str, float]  # the mean over items of the plain mean, per dimension
    consensus_means: dict[str, float]  # the mean over items of the consensus, per dimension
    converged: bool
    dimensions = Rating.DIMENSIONS
    order_by = ORDER_BY

    @property
    def mean_rows(self) -> list[tuple[str, float, float]]:
        """(dimension, plain mean, consensus mean) per dimension."""
        return [(d, self.means[d], self.consensus_means[d]) for d in self.dimensions]

    @property
    def judge_rows(self) -> list[tuple[str, int, list[float]]]:
        """(judge, ratings, reliability per dimension), least reliable first."""
        return [
            (row["judge"], row["ratings"], [row["reliability"][d] for d in self.dimensions])
            for row in self.judges
        ]

    def departing(self, count: int = ITEMS_SHOWN) -> list[ItemRow]:
        """The ``count`` items whose consensus is furthest from their plain mean."""
        return sorted(self.items, key=lambda row: (-row.departure, row.item_id))[:count]


def batch_consensus(batch: RatingBatch) -> BatchConsensus | None:
    """The Dawid–Skene consensus of ``batch``, None before its first rating. One query."""
    rows = list(
        Rating.objects.counted()
        .filter(item__batch=batch)
        .annotate(judge=worker_label())
        .values_list("item_id", "judge", *Rating.DIMENSIONS)
    )
    if not rows:
        return None
    estimates: dict[str, RatingConsensus] = {
        dimension: dawid_skene((row[0], row[1], row[2 + n]) for row in rows)
        for n, dimension in enumerate(Rating.DIMENSIONS)
    }
    given: dict[int, list[tuple]] = {}
    for item_id, _, *values in rows:
        given.setdefault(item_id, []).append(values)
    items = [
        ItemRow(
            item_id=item_id,
            mean={
                dimension: sum(v[n] for v in values) / len(values)
                for n, dimension in enumerate(Rating.DIMENSIONS)
            },
            consensus={d: estimates[d].items[item_id].expected for d in Rating.DIMENSIONS},
            most_likely={d: estimates[d].items[item_id].most_likely for d in Rating.DIMENSIONS},
        )
        for item_id, values in sorted(given.items())
    ]
    return BatchConsensus(
        judges=reliability_table(
            {d: estimates[d].judges for d in Rating.DIMENSIONS}, order_by=ORDER_BY
        ),
        items=items,
        means={d: sum(row.mean[d] for row in items) / len(items) for d in Rating.DIMENSIONS},
        consensus_means={
            d: sum(row.consensus[d] for row in items) / len(items) for d in Rating.DIMENSIONS
        },
        converged=all(estimate.converged for estimate in estimates.values()),
    )


def with_texts(rows: list[ItemRow]) -> list[ItemRow]:
    """``rows`` with their items' source and candidate (one query)."""
    texts = _texts(RatingItem.objects.filter(pk__in=[row.item_id for row in rows]))
    return [
        ItemRow(row.item_id, row.mean, row.consensus, row.most_likely, *texts[row.item_id])
        for row in rows
    ]


def _texts(items) -> dict[int, tuple[str, str]]:
    return {
        pk: (source, candidate)
        for pk, source, candidate in items.values_list("pk", "source", "candidate")
    }


CSV_HEADER = (
    "item",
    "source",
    "candidate",
    *(f"{d}_{kind}" for d in Rating.DIMENSIONS for kind in ("mean", "consensus", "most_likely")),
)


def consensus_csv_rows(batch: RatingBatch):
    """The batch's consensus as CSV rows: the header, then one row per rated item with each
    dimension's plain mean, consensus (expected rating) and most likely rating; text cells
    formula-safe. Nothing but the header before the first rating."""
    yield CSV_HEADER
    consensus = batch_consensus(batch)
    if consensus is None:
        return
    texts = _texts(batch.items.all())
    for row in consensus.items:
        source, candidate = texts[row.item_id]
        yield [
            row.item_id,
            spreadsheet_cell(source),
            spreadsheet_cell(candidate),
            *(
                value
                for d in Rating.DIMENSIONS
                for value in (
                    round(row.mean[d], 4),
                    round(row.consensus[d], 4),
                    f"{row.most_likely[d]:g}",
                )
            ),
        ]
