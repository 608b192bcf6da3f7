"""Reads of rating batches that pages, the API, exports and the correlation analysis share:
each item with its judges' ratings, a batch's progress, means and agreement, and the mean
ratings per system (Chen & Dolan's Table 3).

Ratings that count are accepted ones and those still waiting for review; rejected ratings
count nowhere. A batch holds at most ``batches.MAX_ITEMS`` items, so its summary is bounded.
"""

from collections.abc import Iterator
from dataclasses import dataclass, field
from itertools import islice

from django.db.models import Avg, Count, F, Q

from collector.selectors import cluster_descriptions
from paracrowd_metrics.rating_agreement import RatingAgreement, rating_agreement
from paracrowd_metrics.ratings import DIMENSIONS, RatingError, RatingRecord, leave_one_out

from ..models import Rating, RatingBatch, RatingItem
from ..selection import worker_label

ITEMS_PER_QUERY = 1000


@dataclass(frozen=True)
class JudgeRating:
    judge: str  # the judge as exports name workers: "<platform>-<our id>"
    semantic: int
    dissimilarity: int
    overall: int
    status: str


@dataclass(frozen=True)
class RatedItem:
    """One item with its counted ratings, one per judge, in the order they arrived."""

    item_id: int
    batch_id: int
    system: str
    language: str
    source: str
    candidate: str
    segment_id: int | None
    ratings: list[JudgeRating] = field(default_factory=list)


def rated_items(batch: RatingBatch | None = None) -> Iterator[RatedItem]:
    """Every item (of ``batch``, or of every batch) with its accepted and pending ratings per
    judge, in item order; items nobody has rated yet come with no ratings. Read a thousand
    items at a time, so any number of batches can be walked."""
    items = RatingItem.objects.select_related("batch").order_by("pk")
    if batch is not None:
        items = items.filter(batch=batch)
    iterator = items.iterator(chunk_size=ITEMS_PER_QUERY)
    while chunk := list(islice(iterator, ITEMS_PER_QUERY)):
        ratings = {}
        for row in (
            Rating.objects.counted()
            .filter(item__in=chunk)
            .annotate(judge=worker_label())
            .order_by("created_at", "pk")
            .values("item_id", "judge", *Rating.DIMENSIONS, "status")
        ):
            ratings.setdefault(row.pop("item_id"), []).append(JudgeRating(**row))
        for item in chunk:
            yield RatedItem(
                item_id=item.pk,
                batch_id=item.batch_id,
                system=item.batch.system,
                language=item.batch.language,
                source=item.source,
                candidate=item.candidate,
                segment_id=item.segment_id,
                ratings=ratings.get(item.pk, []),
            )


def ratings_from_db(batch: RatingBatch | None = None) -> tuple[list[RatingRecord], tuple[str, ...]]:
    """The ratings collected in the app (of ``batch``, or of every batch) as records, one per
    judge's rating, with the three dimensions. The references are the descriptions of the
    item's segment in the batch's language, less one copy of the source: a corpus pair's
    source is one of them, and the source is added only when asked (``with_source``). Items
    with no segment (uploaded without a cluster) have no references and are left out."""
    items = [item for item in rated_items(batch) if item.ratings and item.segment_id is not None]
    clusters = cluster_descriptions({item.segment_id for item in items})
    records = []
    for item in items:
        members = [text for _, text in clusters.get((item.segment_id, item.language), [])]
        references = leave_one_out(members, item.source)
        for rating in item.ratings:
            records.append(
                RatingRecord(
                    source=item.source,
                    candidate=item.candidate,
                    references=references,
                    ratings={dimension: getattr(rating, dimension) for dimension in DIMENSIONS},
                    judge=rating.judge,
                    language=item.language,
                    where=f"rating item {item.item_id}",
                    cluster=item.segment_id,
                )
            )
    if not records:
        raise RatingError("No stored ratings of items with a cluster to take references from.")
    return records, DIMENSIONS


@dataclass(frozen=True)
class BatchSummary:
    batch: RatingBatch
    items: int
    needed: int  # ratings wanted: items × judges
    rated: int  # ratings that count
    means: dict[str, float | None]
    agreement: dict[str, RatingAgreement]

    @property
    def done_percent(self) -> float:
        return 100.0 * min(self.rated, self.needed) / self.needed if self.needed else 0.0


def batch_summary(batch: RatingBatch) -> BatchSummary:
    """How far ``batch`` is rated, its mean rating per dimension, and agreement between its
    judges per dimension (Pearson's r and Krippendorff's α, ordinal)."""
    per_item: dict[str, dict[int, list[int]]] = {dimension: {} for dimension in Rating.DIMENSIONS}
    rows = (
        Rating.objects.counted()
        .filter(item__batch=batch)
        .values_list("item_id", *Rating.DIMENSIONS)
    )
    rated = 0
    for item_id, *values in rows:
        rated += 1
        for dimension, value in zip(Rating.DIMENSIONS, values, strict=True):
            per_item[dimension].setdefault(item_id, []).append(value)
    items = batch.items.count()
    means = {}
    for dimension, by_item in per_item.items():
        values = [value for item_values in by_item.values() for value in item_values]
        means[dimension] = sum(values) / len(values) if values else None
    return BatchSummary(
        batch=batch,
        items=items,
        needed=items * batch.judges,
        rated=rated,
        means=means,
        agreement={
            dimension: rating_agreement(list(by_item.values()))
            for dimension, by_item in per_item.items()
        },
    )


def system_means() -> list[dict]:
    """Mean rating per dimension for each system over all its batches, with how many
    ratings and items they rest on: one row per system, as the paper's Table 3."""
    rows = (
        Rating.objects.counted()
        .annotate(system=F("item__batch__system"))
        .values("system")
        .annotate(
            ratings=Count("pk"),
            items=Count("item", distinct=True),
            **{dimension: Avg(dimension) for dimension in Rating.DIMENSIONS},
        )
        .order_by("system")
    )
    return list(rows)


def batches_with_progress():
    """Every batch, newest first, with its number of items and of ratings that count."""
    return RatingBatch.objects.annotate(
        item_count=Count("items", distinct=True),
        rated=Count("items__ratings", filter=~Q(items__ratings__status=Rating.Status.REJECTED)),
    ).order_by("-created_at", "-pk")
