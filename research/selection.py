"""What part of the corpus a researcher asks for: the filters shared by ``export_corpus``, the
API and export jobs, and the description rows they select.

A *cluster* is the descriptions of one segment in one declared language, as in scoring.
"""

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, time, timedelta
from itertools import groupby

from django.db.models import (
    Case,
    CharField,
    Count,
    Exists,
    F,
    Func,
    OuterRef,
    Q,
    QuerySet,
    Sum,
    Value,
    When,
    Window,
)
from django.db.models.functions import Coalesce

from annotations.models import Alignment
from collector.models import Description, Segment
from collector.provenance import TypingRecord
from crowd.models import worker_label_sql

# Tier filter value for imported descriptions whose source records no tier.
TIER_UNRECORDED = "unrecorded"
TIER_CHOICES = ("1", "2", TIER_UNRECORDED)
STATUS_ALL = "all"
STATUS_CHOICES = (*Description.Status.values, STATUS_ALL)
# Descriptions leave the database in chunks of this many (a server-side cursor).
CHUNK_SIZE = 5000

# How each description came into its box (collector.provenance): its signals, then the task
# page's counts (null when the page sent none).
TYPING_FIELDS = (
    "typing_signals",
    *(f"typing_{name}" for name in TypingRecord.field_names()),
)
# What every export reads of a description: enough for each format, in one query.
ROW_FIELDS = (
    "id",
    "segment_id",
    "segment__source",
    "video",
    "segment__start",
    "segment__end",
    "segment__title",
    "worker_label",
    "tier",
    "status",
    "language",
    "text",
    "time_spent",
    "created_at",
    "score__bleu",
    "score__pinc",
    "score__references",
    *TYPING_FIELDS,
)


class FilterError(ValueError):
    """A filter value that cannot be used; the message names the parameter."""


@dataclass(frozen=True)
class CorpusFilter:
    """Descriptions by language, tier, status (accepted unless asked), creation date range
    (inclusive, UTC) and the size of their cluster within the selection."""

    languages: tuple[str, ...] = ()
    tiers: tuple[str, ...] = ()  # "1", "2", "unrecorded"; empty means every tier
    statuses: tuple[str, ...] = (Description.Status.ACCEPTED.value,)
    since: date | None = None
    until: date | None = None
    min_cluster_size: int = 1

    PARAMETERS = ("language", "tier", "status", "since", "until", "min_cluster_size")

    @classmethod
    def from_params(cls, get: Callable[[str], list[str]]) -> "CorpusFilter":
        """The filter from request-style parameters: ``get(name)`` lists a parameter's values
        (``QueryDict.getlist``). Raises ``FilterError`` naming a bad parameter."""
        languages = tuple(sorted({v.strip() for v in get("language") if v.strip()}))
        if any(len(language) > 40 for language in languages):
            raise FilterError("language: a language code has at most 40 characters")
        tiers = tuple(sorted(set(get("tier"))))
        for tier in tiers:
            if tier not in TIER_CHOICES:
                raise FilterError(f"tier: {tier!r} is not one of {', '.join(TIER_CHOICES)}")
        statuses = set(get("status")) or {Description.Status.ACCEPTED.value}
        for status in statuses:
            if status not in STATUS_CHOICES:
                raise FilterError(f"status: {status!r} is not one of {', '.join(STATUS_CHOICES)}")
        if STATUS_ALL in statuses:
            statuses = set(Description.Status.values)
        statuses = {str(status) for status in statuses}
        since, until = _one_date(get, "since"), _one_date(get, "until")
        if since and until and until < since:
            raise FilterError("until: the date range ends before it starts")
        sizes = get("min_cluster_size")
        if len(sizes) > 1:
            raise FilterError("min_cluster_size: give it once")
        try:
            min_cluster_size = int(sizes[0]) if sizes else 1
        except ValueError:
            raise FilterError(f"min_cluster_size: {sizes[0]!r} is not a whole number") from None
        if not 1 <= min_cluster_size <= 100_000:
            raise FilterError("min_cluster_size: must be between 1 and 100000")
        return cls(
            languages=languages,
            tiers=tiers,
            statuses=tuple(sorted(statuses)),
            since=since,
            until=until,
            min_cluster_size=min_cluster_size,
        )

    @classmethod
    def from_dict(cls, params: dict) -> "CorpusFilter":
        """The inverse of ``as_dict``."""

        def get(name):
            value = params.get(name)
            if value is None:
                return []
            return [str(v) for v in value] if isinstance(value, list) else [str(value)]

        return cls.from_params(get)

    def as_dict(self) -> dict:
        """The filter as JSON-ready parameters (stored with export jobs)."""
        return {
            "language": list(self.languages),
            "tier": list(self.tiers),
            "status": list(self.statuses),
            "since": self.since.isoformat() if self.since else None,
            "until": self.until.isoformat() if self.until else None,
            "min_cluster_size": self.min_cluster_size,
        }

    def describe(self) -> str:
        """The filter in words, for reports and dataset cards."""
        parts = [f"status {', '.join(self.statuses)}"]
        if self.languages:
            parts.append(f"language {', '.join(self.languages)}")
        if self.tiers:
            parts.append(f"tier {', '.join(self.tiers)}")
        if self.since or self.until:
            parts.append(f"created {self.since or '…'} to {self.until or '…'}")
        if self.min_cluster_size > 1:
            parts.append(f"clusters of at least {self.min_cluster_size}")
        return "; ".join(parts)

    def descriptions(self, *, segment_ids=None) -> QuerySet:
        """The selected descriptions; only those of ``segment_ids`` when given. A cluster lies
        within one segment, so narrowing to the segments first gives the same clusters and
        reads only those segments' descriptions, however large the corpus."""
        selected = self._unfiltered_by_status().filter(status__in=self.statuses)
        if segment_ids is not None:
            selected = selected.filter(segment_id__in=segment_ids)
        if self.min_cluster_size > 1:
            # Through a subquery of ids, so that the result can still be grouped and counted.
            cluster_size = Window(Count("pk"), partition_by=[F("segment_id"), F("language")])
            large_enough = selected.annotate(cluster_size=cluster_size).filter(
                cluster_size__gte=self.min_cluster_size
            )
            selected = selected.filter(pk__in=large_enough.values("pk"))
        return selected

    def cluster_sizes(self) -> QuerySet:
        """``segment_id``, ``language`` and ``size`` of each selected cluster, in cluster order.
        The size filter is the group's own count (HAVING), so a page of clusters reads only
        its segments' descriptions, not a window over the whole corpus."""
        return (
            self._unfiltered_by_status()
            .filter(status__in=self.statuses)
            .values("segment_id", "language")
            .annotate(size=Count("pk"))
            .filter(size__gte=self.min_cluster_size)
            .order_by("segment_id", "language")
        )

    def in_segment(self) -> Exists:
        """Whether the outer query's segment has a selected description: a look at that
        segment's descriptions alone (the segment and status index), so that a page of
        segments in id order reads the segments it walks past and not the whole corpus."""
        selected = self._unfiltered_by_status().filter(
            status__in=self.statuses, segment_id=OuterRef("pk")
        )
        if self.min_cluster_size > 1:
            selected = (
                selected.order_by()
                .values("language")
                .annotate(size=Count("pk"))
                .filter(size__gte=self.min_cluster_size)
            )
        return Exists(selected)

    def status_counts(self, *, left_out: bool = False) -> dict[str, int]:
        """Descriptions of each status under the language, tier and date filters, selected or
        not: what the status filter leaves out is shown, never silently dropped. ``left_out``:
        only the statuses the filter leaves out, which the status index finds without reading
        the (usually far more) selected descriptions."""
        statuses = Description.Status.values
        if left_out:
            statuses = [status for status in statuses if status not in self.statuses]
        counts = dict.fromkeys(statuses, 0)
        rows = self._unfiltered_by_status().filter(status__in=statuses)
        rows = rows.values_list("status").annotate(n=Count("pk"))
        for status, n in rows.order_by():
            counts[status] = n
        return counts

    def alignments(self) -> QuerySet:
        """The selected word alignments: by the language of the pair's descriptions (imported
        pairs have none), the annotator's tier (imported alignments have none recorded) and
        when they were made. Status and cluster size do not apply to alignments."""
        selected = Alignment.objects.filter(self._created("created_at"))
        if self.languages:
            selected = selected.filter(pair__description_a__language__in=self.languages)
        if self.tiers:
            selected = selected.filter(self._tiers("assignment__hit__tier"))
        return selected

    def _unfiltered_by_status(self) -> QuerySet:
        selected = Description.objects.filter(self._created("created_at"))
        if self.languages:
            selected = selected.filter(language__in=self.languages)
        if self.tiers:
            selected = selected.filter(self._tiers("tier"))
        return selected

    def _tiers(self, field: str) -> Q:
        chosen = Q(**{f"{field}__in": [int(t) for t in self.tiers if t != TIER_UNRECORDED]})
        if TIER_UNRECORDED in self.tiers:
            chosen |= Q(**{f"{field}__isnull": True})
        return chosen

    def _created(self, field: str) -> Q:
        within = Q()
        if self.since:
            within &= Q(**{f"{field}__gte": datetime.combine(self.since, time(), UTC)})
        if self.until:
            end = datetime.combine(self.until + timedelta(days=1), time(), UTC)
            within &= Q(**{f"{field}__lt": end})
        return within

    def rows(
        self, fields: tuple[str, ...] = ROW_FIELDS, *, segment_ids=None, **expressions
    ) -> QuerySet:
        """The selected descriptions (of ``segment_ids`` alone when given) as named rows of
        ``fields`` (every format's by default), cluster by cluster (segment, then language), in
        the order they were stored. Fields may name ``video`` and ``worker_label`` and any of
        the extra ``expressions``."""
        return (
            self.descriptions(segment_ids=segment_ids)
            .annotate(video=video_label(), worker_label=worker_label(), **expressions)
            .order_by("segment_id", "language", "id")
            .values_list(*fields, named=True)
        )


def _one_date(get, name) -> date | None:
    values = get(name)
    if not values:
        return None
    if len(values) > 1:
        raise FilterError(f"{name}: give it once")
    try:
        return date.fromisoformat(values[0])
    except ValueError:
        raise FilterError(f"{name}: {values[0]!r} is not a date (YYYY-MM-DD)") from None


@dataclass
class Cluster:
    """One segment's descriptions in one language, as named rows of ``ROW_FIELDS``."""

    segment_id: int
    language: str
    members: list = field(default_factory=list)

    @property
    def key(self) -> tuple[int, str]:
        return (self.segment_id, self.language)

    @property
    def segment(self):
        return self.members[0]


def clusters(rows) -> Iterator[Cluster]:
    """Consecutive rows of one (segment, language) as one cluster; ``rows`` come from
    ``CorpusFilter.rows()`` and are read through a server-side cursor, so only one cluster is
    ever held in memory."""
    for (segment_id, language), members in groupby(
        rows.iterator(chunk_size=CHUNK_SIZE), key=lambda row: (row.segment_id, row.language)
    ):
        yield Cluster(segment_id, language, list(members))


@dataclass(frozen=True)
class ClusterCounts:
    clusters: int
    singletons: int  # clusters of one description
    descriptions: int


def cluster_counts(descriptions: QuerySet) -> ClusterCounts:
    """How many clusters ``descriptions`` make, how many of them hold one description, and
    how many descriptions there are: one aggregate query."""
    sizes = descriptions.values("segment_id", "language").annotate(size=Count("pk")).order_by()
    counts = sizes.aggregate(
        clusters=Count("segment_id"),
        singletons=Count("segment_id", filter=Q(size=1)),
        descriptions=Coalesce(Sum("size"), 0),
    )
    return ClusterCounts(**counts)


def worker_label() -> Case:
    """How exports name a description's or an alignment's worker, in SQL: ``Worker.label``
    (an imported corpus's own worker id, kept so that it round-trips; otherwise
    ``<platform>-<our id>``, never a username or a crowd platform's worker id); empty when
    there is no worker."""
    return worker_label_sql("worker")


def video_label() -> Case:
    """A segment's video as exports name it, in SQL: the YouTube id, or the hosted file's name."""
    return Case(
        When(segment__source=Segment.Source.YOUTUBE, then=F("segment__youtube_id")),
        default=Func(F("segment__video_file"), Value("^.*/"), Value(""), function="REGEXP_REPLACE"),
        output_field=CharField(),
    )
