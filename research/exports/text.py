"""Text formats: the MSVD CSV, clusters as JSON lines, paraphrase pairs and the train/test split.

Each reads the selected descriptions once, cluster by cluster, through a server-side cursor and
writes as it goes; nothing holds more than one batch of clusters.
"""

import csv
import json
from contextlib import ExitStack
from itertools import groupby, islice

from collector.corpus_formats import CSV_COLUMNS
from collector.models import Segment
from crowd.models import Tier
from paracrowd.spreadsheets import spreadsheet_cell
from research.selection import Cluster, clusters
from research.splits import SplitOptions, cluster_random, paraphrase_partners, video_key
from scoring.models import ClusterScore

from .base import Progress, duration_seconds, duration_text, language_name, seconds_text

# Clusters whose stored scores are looked up in one query.
SCORE_BATCH = 500
HOSTED_FILES_LEFT_OUT = (
    "descriptions of hosted-file segments (the MSVD CSV names YouTube videos only; "
    "use jsonl or parquet for them)"
)
# The MSVD CSV needs only these (fewer columns to convert is most of its speed).
CSV_FIELDS = (
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
SPLIT_FIELDS = (*PAIR_FIELDS, "segment__source", "video", "tier")
SINGLETONS_LEFT_OUT = "descriptions alone in their cluster (no paraphrase to pair with)"


def write_msvd_csv(destination, options, report, progress: Progress) -> None:
    """One row per description with the MSVD columns; Source is "clean" for Tier 2 and
    "unverified" otherwise, as the original corpus marks them."""
    selected = options.filter.rows(CSV_FIELDS)
    report.left_out[HOSTED_FILES_LEFT_OUT] = selected.filter(
        segment__source=Segment.Source.FILE
    ).count()
    rows = selected.filter(segment__source=Segment.Source.YOUTUBE)
    location = destination.path()
    written = 0
    with destination.open() as file:
        writer = csv.writer(file)
        writer.writerow(CSV_COLUMNS)
        for cluster in clusters(rows):
            # What a whole cluster shares is formatted once.
            first = cluster.segment
            # A YouTube id may start with "-", but eleven letters, digits, - and _ make no
            # formula that could do anything, and the id must stay exact to find the video.
            segment = (
                first.video,
                seconds_text(first.segment__start),
                seconds_text(first.segment__end),
            )
            language = spreadsheet_cell(language_name(cluster.language))
            writer.writerows(
                (
                    *segment,
                    spreadsheet_cell(row.worker_label),
                    "clean" if row.tier == Tier.TWO else "unverified",
                    duration_text(row.time_spent),
                    language,
                    spreadsheet_cell(row.text),
                )
                for row in cluster.members
            )
            written += len(cluster.members)
            report.clusters += 1
            progress.step(len(cluster.members))
    report.descriptions = written
    report.files[location] = written


def write_msvd_json(destination, options, report, progress: Progress) -> None:
    """One JSON object, each YouTube segment's selected descriptions (every selected language,
    in cluster order) under ``<YouTubeID>_<start>_<end>``; written a segment at a time."""
    selected = options.filter.rows(CSV_FIELDS)
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
    descriptions of its cluster, seeded per cluster."""
    location = destination.path()
    with destination.open() as file:
        file.write(PAIRS_HEADER)
        for cluster in clusters(options.filter.rows(PAIR_FIELDS)):
            written = write_cluster_pairs(file, cluster, options)
            _count(report, cluster, progress, pairs=written)
    report.files[location] = report.pairs


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
    """A cluster's stored scores: computed over all its descriptions that are not rejected."""
    if score is None:
        return None
    return {
        "size": score.size,
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
    }


def batched(items, size: int):
    iterator = iter(items)
    while batch := tuple(islice(iterator, size)):
        yield batch
