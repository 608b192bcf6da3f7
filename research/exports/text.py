"""Text formats: the MSVD CSV, clusters as JSON lines, paraphrase pairs and the train/test split.

The MSVD CSV and every paraphrase pair are formatted and written by PostgreSQL (COPY, see
``database_copy``), at the speed of getting the rows out at all. The others read the selected
descriptions once, cluster by cluster, through a server-side cursor and write as they go;
nothing holds more than one batch of clusters.
"""

import csv
import io
import json
from contextlib import ExitStack
from itertools import groupby, islice

from django.contrib.postgres.aggregates import ArrayAgg
from django.db.models import Case, CharField, Count, F, Func, Value, When, Window
from django.db.models.functions import NullIf, Replace, RowNumber

from collector.corpus_formats import CSV_COLUMNS
from collector.models import Segment
from crowd.models import Tier
from paracrowd.spreadsheets import spreadsheet_cell, spreadsheet_cell_sql
from research.selection import TYPING_FIELDS, Cluster, cluster_counts, clusters
from research.splits import SplitOptions, cluster_random, paraphrase_partners, video_key
from scoring.models import ClusterScore

from .base import (
    Progress,
    duration_seconds,
    duration_sql,
    language_cell_sql,
    seconds_sql,
    seconds_text,
    typing_record,
    typing_sql,
)
from .database_copy import copy_rows, query_sql

# Clusters whose stored scores are looked up in one query.
SCORE_BATCH = 500
HOSTED_FILES_LEFT_OUT = (
    "descriptions of hosted-file segments (the MSVD CSV names YouTube videos only; "
    "use jsonl or parquet for them)"
)
# The MSVD CSV's cells (CSV_COLUMNS), formatted by PostgreSQL. An empty value is NULL, which
# COPY writes as nothing, as Python's csv writer writes an empty string (COPY would quote it).
# Each row is numbered within its cluster first, so that counting clusters costs no query.
MSVD_CSV_CELLS = {
    "cluster_row": Window(
        RowNumber(), partition_by=[F("segment_id"), F("language")], order_by=F("id").asc()
    ),
    # A YouTube id may start with "-", but eleven letters, digits, - and _ make no formula that
    # could do anything, and the id must stay exact to find the video.
    "cell_video": NullIf(F("video"), Value("")),
    "cell_start": seconds_sql("segment__start"),
    "cell_end": seconds_sql("segment__end"),
    "cell_worker": NullIf(spreadsheet_cell_sql(F("worker_label")), Value("")),
    "cell_source": Case(
        When(tier=Tier.TWO, then=Value("clean")),
        default=Value("unverified"),
        output_field=CharField(),
    ),
    "cell_time_spent": duration_sql("time_spent"),
    "cell_language": NullIf(language_cell_sql("language"), Value("")),
    "cell_text": NullIf(spreadsheet_cell_sql(F("text")), Value("")),
    "cell_typing": typing_sql(),
}
# After the MSVD columns, how each description came into its box (collector.provenance): the
# signals, then the task page's counts, empty when the page sent none. The importer reads the
# MSVD columns by name, so an export with these still imports.
TYPING_CSV_COLUMNS = (
    "Typing",
    "KeyPresses",
    "Pastes",
    "PastedCharacters",
    "FirstKeyMs",
    "TypingMs",
    "FocusLosses",
    "BackgroundMs",
    "InputMethodCharacters",
    "PromptCopies",
    "PastesAfterCopy",
    "InsertedWithoutKeys",
    "UntrustedEvents",
    "Webdriver",
    "LeftAfterCopy",
    "KeyIntervals",
    "KeyIntervalVariation",
)
MSVD_CSV_FIELDS = (*MSVD_CSV_CELLS, *TYPING_FIELDS[1:])
# msvd-json needs only these.
MSVD_JSON_FIELDS = (
    "segment_id",
    "video",
    "segment__start",
    "segment__end",
    "worker_label",
    "tier",
    "language",
    "text",
    "time_spent",
)
# Pairs and the split need only the sentences.
PAIR_FIELDS = ("id", "segment_id", "language", "text")
# The split also needs each description's video (to draw its side) and tier (for references).
# test.jsonl also gives each source how it was typed.
SPLIT_FIELDS = (*PAIR_FIELDS, "segment__source", "video", "tier", *TYPING_FIELDS)
SINGLETONS_LEFT_OUT = "descriptions alone in their cluster (no paraphrase to pair with)"


def write_msvd_csv(destination, options, report, progress: Progress) -> None:
    """One row per description with the MSVD columns, then how it was typed
    (``TYPING_CSV_COLUMNS``); Source is "clean" for Tier 2 and "unverified" otherwise, as the
    original corpus marks them. PostgreSQL formats and writes
    the rows (COPY), cluster by cluster; cells a spreadsheet would run are escaped in SQL."""
    report.left_out[HOSTED_FILES_LEFT_OUT] = (
        options.filter.descriptions().filter(segment__source=Segment.Source.FILE).count()
    )
    rows = options.filter.rows(MSVD_CSV_FIELDS, **MSVD_CSV_CELLS).filter(
        segment__source=Segment.Source.YOUTUBE
    )
    with destination.open(binary=True) as file:
        header = io.StringIO()
        csv.writer(header).writerow((*CSV_COLUMNS, *TYPING_CSV_COLUMNS))
        file.write(header.getvalue().encode())
        copied = copy_rows(query_sql(rows), file, progress, csv=True, numbered=True)
    report.descriptions = copied.rows
    report.clusters = copied.clusters
    report.files[destination.path()] = copied.rows


def write_msvd_json(destination, options, report, progress: Progress) -> None:
    """One JSON object, each YouTube segment's selected descriptions (every selected language,
    in cluster order) under ``<YouTubeID>_<start>_<end>``; written a segment at a time."""
    selected = options.filter.rows(MSVD_JSON_FIELDS)
    report.left_out[HOSTED_FILES_LEFT_OUT.replace("the MSVD CSV", "msvd-json")] = selected.filter(
        segment__source=Segment.Source.FILE
    ).count()
    rows = selected.filter(segment__source=Segment.Source.YOUTUBE)
    location = destination.path()
    written = 0
    with destination.open() as file:
        file.write("{")
        separator = "\n"
        for _, group in groupby(clusters(rows), key=lambda cluster: cluster.segment_id):
            group = list(group)
            first = group[0].segment
            key = (
                f"{first.video}_{seconds_text(first.segment__start)}_"
                f"{seconds_text(first.segment__end)}"
            )
            texts = [row.text for cluster in group for row in cluster.members]
            file.write(f"{separator}{json.dumps(key)}: {json.dumps(texts, ensure_ascii=False)}")
            separator = ",\n"
            written += len(texts)
            report.clusters += len(group)
            progress.step(len(texts))
        file.write("\n}\n")
    report.descriptions = written
    report.files[location] = written


def write_jsonl(destination, options, report, progress: Progress) -> None:
    """One cluster per line: the segment, the language, the cluster's stored scores and every
    selected description with its own scores."""
    location = destination.path()
    with destination.open() as file:
        for batch in batched(clusters(options.filter.rows()), SCORE_BATCH):
            scores = stored_cluster_scores(batch)
            for cluster in batch:
                record = cluster_record(cluster, scores.get(cluster.key))
                file.write(json.dumps(record, ensure_ascii=False) + "\n")
                report.clusters += 1
                report.descriptions += len(cluster.members)
                progress.step(len(cluster.members))
    report.files[location] = report.clusters


def write_pairs(destination, options, report, progress: Progress) -> None:
    """Paraphrase pairs for training: each sentence with ``pairs_per_sentence`` (or all) other
    descriptions of its cluster, seeded per cluster. Every pair is made and written by
    PostgreSQL (COPY); a drawn few are drawn in Python, by the seeded generator the split uses.
    """
    if options.pairs_per_sentence is not None:
        with destination.open() as file:
            file.write(PAIRS_HEADER)
            for cluster in clusters(options.filter.rows(PAIR_FIELDS)):
                written = write_cluster_pairs(file, cluster, options)
                _count(report, cluster, progress, pairs=written)
        report.files[destination.path()] = report.pairs
        return
    selected = options.filter.descriptions()
    counts = cluster_counts(selected)
    with destination.open(binary=True) as file:
        file.write(PAIRS_HEADER.encode())
        # Progress counts descriptions; COPY's rows are pairs, so it is told once, at the end.
        report.pairs = copy_rows(all_pairs_sql(selected), file, Progress(), csv=False).rows
    progress.step(counts.descriptions)
    report.clusters = counts.clusters - counts.singletons
    report.descriptions = counts.descriptions - counts.singletons
    report.left_out[SINGLETONS_LEFT_OUT] += counts.singletons
    report.files[destination.path()] = report.pairs


def all_pairs_sql(selected) -> str:
    """Every ordered pair of two descriptions of one cluster, as ``write_cluster_pairs``
    writes them (source, paraphrase, segment, language; cluster by cluster, then in the order
    the two were stored), from each cluster's texts gathered in one array."""
    texts = (
        selected.annotate(
            pair_text=tsv_field_sql(F("text")), pair_language=tsv_field_sql(F("language"))
        )
        .values("segment_id", "language", "pair_language")
        .annotate(texts=ArrayAgg("pair_text", order_by="id"), size=Count("pk"))
        .filter(size__gt=1)
        .order_by("segment_id", "language")
    )
    return f"""
        SELECT a.text, b.text, c.segment_id, c.pair_language
        FROM ({query_sql(texts)}) c
        CROSS JOIN LATERAL unnest(c.texts) WITH ORDINALITY AS a(text, i)
        CROSS JOIN LATERAL unnest(c.texts) WITH ORDINALITY AS b(text, j)
        WHERE a.i <> b.j
        ORDER BY c.segment_id, c.language, a.i, b.j
    """  # noqa: S608 (Django's own SQL, its values quoted by psycopg2)


def write_split(destination, options, report, progress: Progress) -> None:
    """A train/dev/test split by video: ``train.tsv`` (and ``dev.tsv`` when there is a dev
    share) hold the paraphrase pairs of their clusters; ``test.jsonl`` lists each sentence of a
    test cluster with its references (see ``SplitOptions.references``). Videos are drawn whole,
    so no video, and no segment or cluster, is on two sides; the report gives each side's
    videos, clusters and descriptions."""
    split = options.split
    rows = {"train": 0, "dev": 0, "test": 0}
    names = {"train": "train.tsv", "dev": "dev.tsv", "test": "test.jsonl"}
    if not split.dev_fraction:
        del names["dev"]
    with ExitStack() as stack:
        files = {side: stack.enter_context(destination.open(name)) for side, name in names.items()}
        files["train"].write(PAIRS_HEADER)
        if "dev" in files:
            files["dev"].write(PAIRS_HEADER)
        for cluster in clusters(options.filter.rows(SPLIT_FIELDS)):
            video = video_key(cluster.segment.segment__source, cluster.segment.video)
            side = split.side(video)
            if side == "test":
                rows["test"] += write_test_cluster(files["test"], cluster, split)
                _count(report, cluster, progress, pairs=0)
            else:
                written = write_cluster_pairs(files[side], cluster, options)
                rows[side] += written
                _count(report, cluster, progress, pairs=written)
            if len(cluster.members) > 1:
                report.count_split(side, video, len(cluster.members))
    for side, name in names.items():
        report.files[destination.path(name)] = rows[side]


PAIRS_HEADER = "source\tparaphrase\tsegment_id\tlanguage\n"


def write_cluster_pairs(file, cluster: Cluster, options) -> int:
    texts = [tsv_field(row.text) for row in cluster.members]
    rng = cluster_random(options.seed, *cluster.key)
    suffix = f"\t{cluster.segment_id}\t{tsv_field(cluster.language)}\n"
    written = 0
    for i, partners in paraphrase_partners(len(texts), options.pairs_per_sentence, rng):
        for j in partners:
            file.write(f"{texts[i]}\t{texts[j]}{suffix}")
        written += len(partners)
    return written


def write_test_cluster(file, cluster: Cluster, split: SplitOptions) -> int:
    members = cluster.members
    written = 0
    for i, row in enumerate(members):
        references = split.references(members, i)
        if not references:
            continue  # nothing to score this source against
        record = {
            "segment_id": cluster.segment_id,
            "language": cluster.language,
            "description_id": row.id,
            "source": row.text,
            "references": references,
            "typing": typing_record(row),
        }
        file.write(json.dumps(record, ensure_ascii=False) + "\n")
        written += 1
    return written


def _count(report, cluster: Cluster, progress: Progress, *, pairs: int) -> None:
    size = len(cluster.members)
    if size < 2:
        report.left_out[SINGLETONS_LEFT_OUT] += size
    else:
        report.clusters += 1
        report.descriptions += size
    report.pairs += pairs
    progress.step(size)


def tsv_field(text: str) -> str:
    """A line-based file holds no tab or line break inside a field: each becomes a space. A
    field a spreadsheet would run as a formula is escaped (see paracrowd.spreadsheets)."""
    text = text.replace("\t", " ").replace("\r\n", " ").replace("\n", " ").replace("\r", " ")
    return spreadsheet_cell(text)


def tsv_field_sql(expression):
    """``tsv_field`` in SQL (a CRLF becomes one space, then each tab, LF and CR one space)."""
    one_line = Func(
        Replace(expression, Value("\r\n"), Value(" ")),
        Value("\t\n\r"),
        Value("   "),
        function="TRANSLATE",
        output_field=CharField(),
    )
    return spreadsheet_cell_sql(one_line)


def stored_cluster_scores(batch: tuple[Cluster, ...]) -> dict[tuple[int, str], ClusterScore]:
    wanted = {cluster.key for cluster in batch}
    found = ClusterScore.objects.filter(segment_id__in={segment for segment, _ in wanted})
    return {
        (score.segment_id, score.language): score
        for score in found
        if (score.segment_id, score.language) in wanted
    }


def cluster_record(cluster: Cluster, score: ClusterScore | None) -> dict:
    segment = cluster.segment
    return {
        "segment": {
            "id": cluster.segment_id,
            "video": segment.video,
            "source": segment.segment__source,
            "start": float(segment.segment__start),
            "end": float(segment.segment__end),
            "title": segment.segment__title,
        },
        "language": cluster.language,
        "size": len(cluster.members),
        "scores": cluster_scores(score),
        "descriptions": [description_record(row) for row in cluster.members],
    }


def cluster_scores(score: ClusterScore | None) -> dict | None:
    """A cluster's stored scores: computed over its accepted descriptions alone (null below
    ``ClusterScore.MIN_SIZE`` of them), with the descriptions awaiting review counted apart."""
    if score is None:
        return None
    return {
        "size": score.size,
        "pending": score.pending,
        "corpus_bleu": score.corpus_bleu,
        "mean_bleu": score.mean_bleu,
        "mean_pinc": score.mean_pinc,
        "bleu_signature": score.bleu_signature,
        "pinc_signature": score.pinc_signature,
    }


def description_record(row) -> dict:
    return {
        "id": row.id,
        "text": row.text,
        "worker": row.worker_label,
        "tier": row.tier,
        "status": row.status,
        "time_spent": duration_seconds(row.time_spent),
        "created_at": row.created_at.isoformat(),
        "scores": None
        if row.score__references is None
        else {
            "bleu": row.score__bleu,
            "pinc": row.score__pinc,
            "references": row.score__references,
        },
        "typing": typing_record(row),
    }


def batched(items, size: int):
    iterator = iter(items)
    while batch := tuple(islice(iterator, size)):
        yield batch
