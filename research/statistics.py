"""Corpus statistics as Chen & Dolan (2011) report them: segments, descriptions, the mean
number of descriptions per segment and the number that 95% of segments reach; overall and
for Tier 2 alone."""

from dataclasses import asdict, dataclass, replace

from django.db import connection
from django.db.models import Count

from .selection import CorpusFilter

# "95% of segments have at least this many descriptions".
REACHED_BY = 0.95
LANGUAGES_SHOWN = 20


@dataclass(frozen=True)
class CorpusCounts:
    segments: int
    descriptions: int
    mean_per_segment: float | None
    # The largest n such that at least 95% of the segments have n descriptions or more.
    reached_by_95_percent: int | None


def corpus_counts(corpus_filter: CorpusFilter) -> CorpusCounts:
    """Counts over the segments that have at least one selected description. PostgreSQL
    counts descriptions per segment and then segments per count, so only one row per
    distinct count comes back, whatever the size of the corpus."""
    per_segment = (
        corpus_filter.descriptions()
        .order_by()
        .values("segment_id")
        .annotate(n=Count("pk"))
        .values("n")
    )
    query, params = per_segment.query.sql_with_params()
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT n, COUNT(*) FROM ({query}) AS per_segment GROUP BY n ORDER BY n DESC",  # noqa: S608 (Django's own SQL, parameters apart)
            params,
        )
        histogram = cursor.fetchall()
    segments = sum(count for _, count in histogram)
    descriptions = sum(n * count for n, count in histogram)
    reached, covered = None, 0
    for n, count in histogram:
        covered += count
        if covered >= REACHED_BY * segments:
            reached = n
            break
    return CorpusCounts(
        segments=segments,
        descriptions=descriptions,
        mean_per_segment=descriptions / segments if segments else None,
        reached_by_95_percent=reached,
    )


def corpus_statistics(corpus_filter: CorpusFilter) -> dict:
    """The study's table for the selection and for its Tier-2 part, how many descriptions of
    each status the other filters match (pending work is shown, not hidden), and the
    languages with the most descriptions."""
    languages = (
        corpus_filter.descriptions()
        .order_by()
        .values("language")
        .annotate(descriptions=Count("pk"), segments=Count("segment_id", distinct=True))
        .order_by("-descriptions", "language")[:LANGUAGES_SHOWN]
    )
    return {
        "filter": corpus_filter.as_dict(),
        "overall": asdict(corpus_counts(corpus_filter)),
        "tier2": asdict(corpus_counts(replace(corpus_filter, tiers=("2",)))),
        "status_counts": corpus_filter.status_counts(),
        "languages": list(languages),
    }
