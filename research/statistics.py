"""Corpus statistics as Chen & Dolan (2011) report them: segments, descriptions, the mean
number of descriptions per segment and the number that 95% of segments reach; overall and
for Tier 2 alone."""

from dataclasses import asdict, dataclass, replace

from django.db import connection

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
    sums the clusters' sizes per segment and then counts segments per sum, so only one row per
    distinct count comes back, whatever the size of the corpus."""
    with connection.cursor() as cursor:
        cursor.execute(
            *_over_clusters(
                corpus_filter,
                "SELECT n, COUNT(*) FROM (SELECT SUM(size) AS n FROM ({clusters}) AS clusters"
                " GROUP BY segment_id) AS per_segment GROUP BY n ORDER BY n DESC",
            )
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
    return {
        "filter": corpus_filter.as_dict(),
        "overall": asdict(corpus_counts(corpus_filter)),
        "tier2": asdict(corpus_counts(replace(corpus_filter, tiers=("2",)))),
        "status_counts": corpus_filter.status_counts(),
        "languages": languages_counted(corpus_filter),
    }


def languages_counted(corpus_filter: CorpusFilter) -> list[dict]:
    """The languages with the most selected descriptions, each with its number of segments:
    a segment has one cluster per language, so that is the number of its clusters (hashed
    groups, where a distinct count over every description would sort them all)."""
    with connection.cursor() as cursor:
        cursor.execute(
            *_over_clusters(
                corpus_filter,
                "SELECT language, SUM(size)::integer, COUNT(*) FROM ({clusters}) AS clusters"
                " GROUP BY language ORDER BY 2 DESC, 1 LIMIT %s",
                LANGUAGES_SHOWN,
            ),
        )
        return [
            {"language": language, "descriptions": descriptions, "segments": segments}
            for language, descriptions, segments in cursor.fetchall()
        ]


def _over_clusters(corpus_filter: CorpusFilter, template: str, *values) -> tuple[str, tuple]:
    """``template`` with ``{clusters}`` replaced by the SQL of the selection's clusters
    (``CorpusFilter.cluster_sizes``), and the parameters: the clusters', then ``values`` for
    the template's own placeholders."""
    query, params = corpus_filter.cluster_sizes().order_by().query.sql_with_params()
    return template.format(clusters=query), (*params, *values)
