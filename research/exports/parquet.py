"""Parquet with a dataset card: a folder the Hugging Face ``datasets`` library loads as it is.

    README.md                     the dataset card (YAML metadata, then prose)
    data/train-00000.parquet      one row per description of the training clusters
    data/dev-00000.parquet        ... of the dev clusters, when a dev share is asked for,
    data/test-00000.parquet       ... and of the test clusters (the seeded split by video),
                                  when there are any

Rows are buffered a row group at a time and written with ``pyarrow.parquet.ParquetWriter``, so
memory stays flat however many descriptions there are.
"""

import json
from collections import Counter
from contextlib import ExitStack

import pyarrow as pa
import pyarrow.parquet as pq
from django.db.models import BigIntegerField, F, FloatField, Func
from django.db.models.functions import Cast

from research.selection import clusters
from research.splits import video_key

from .base import Progress

ROW_GROUP_ROWS = 20_000
SCHEMA = pa.schema(
    [
        ("description_id", pa.int64()),
        ("segment_id", pa.int64()),
        ("video", pa.string()),
        ("video_source", pa.string()),
        ("start", pa.float64()),
        ("end", pa.float64()),
        ("language", pa.string()),
        ("text", pa.string()),
        ("worker", pa.string()),
        ("tier", pa.int8()),
        ("status", pa.string()),
        ("time_spent", pa.float64()),
        ("created_at", pa.timestamp("us", tz="UTC")),
        ("bleu", pa.float64()),
        ("pinc", pa.float64()),
        ("references", pa.int32()),
        ("cluster_size", pa.int32()),
    ]
)
# The database hands each column over ready for Arrow: times as floats and microseconds.
FIELDS = (
    "id",
    "segment_id",
    "video",
    "segment__source",
    "start_seconds",
    "end_seconds",
    "language",
    "text",
    "worker_label",
    "tier",
    "status",
    "time_spent_seconds",
    "created_at_us",
    "score__bleu",
    "score__pinc",
    "score__references",
)
EXPRESSIONS = {
    "start_seconds": Cast("segment__start", FloatField()),
    "end_seconds": Cast("segment__end", FloatField()),
    "time_spent_seconds": Cast(
        Func(F("time_spent"), template="EXTRACT(EPOCH FROM %(expressions)s)"), FloatField()
    ),
    "created_at_us": Cast(
        Func(F("created_at"), template="EXTRACT(EPOCH FROM %(expressions)s) * 1000000"),
        BigIntegerField(),
    ),
}
# The datasets library's names for the Arrow types above (the card's dataset_info).
FEATURE_TYPES = {
    pa.int64(): "int64",
    pa.int32(): "int32",
    pa.int8(): "int8",
    pa.float64(): "float64",
    pa.string(): "string",
    pa.timestamp("us", tz="UTC"): "timestamp[us, tz=UTC]",
}
FIELD_NOTES = {
    "description_id": "the description's id in ParaCrowd",
    "segment_id": "the segment described; a cluster is one segment's descriptions in one language",
    "video": "the YouTube video id, or the hosted file's name",
    "video_source": "`youtube` or `file`",
    "start": "segment start, seconds",
    "end": "segment end, seconds",
    "language": "the language the worker declared (a code such as `en`)",
    "text": "the description exactly as written",
    "worker": "an opaque worker label (an imported corpus keeps its own worker ids)",
    "tier": "pay tier: 2 (qualified, the study's clean data), 1, or null when not recorded",
    "status": "`accepted`, `pending` review or `rejected`",
    "time_spent": "seconds the worker spent, when recorded",
    "created_at": "when the description was stored (UTC)",
    "cluster_size": "descriptions of this cluster in this export",
    "bleu": "leave-one-out sentence BLEU against the rest of the cluster (stored score)",
    "pinc": "mean PINC against each other member of the cluster (stored score)",
    "references": "how many references the stored scores used",
}


class _SplitWriter:
    """One split's Parquet file, fed a row group at a time."""

    def __init__(self, file):
        self.writer = pq.ParquetWriter(file, SCHEMA)
        self.buffered = []
        self.cluster_sizes = []
        self.rows = 0
        self.languages = Counter()

    def add(self, cluster) -> None:
        size = len(cluster.members)
        self.buffered += cluster.members
        self.cluster_sizes += [size] * size
        self.rows += size
        self.languages[cluster.language] += size
        if len(self.buffered) >= ROW_GROUP_ROWS:
            self.flush()

    def flush(self) -> None:
        if not self.buffered:
            return
        columns = [*zip(*self.buffered, strict=True), self.cluster_sizes]
        arrays = [
            pa.array(values, type=column.type)
            for values, column in zip(columns, SCHEMA, strict=True)
        ]
        self.writer.write_table(pa.Table.from_arrays(arrays, schema=SCHEMA))
        self.buffered, self.cluster_sizes = [], []
        del arrays
        # Hand the row group's Arrow buffers back, so that memory does not creep up.
        pa.default_memory_pool().release_unused()

    def close(self) -> None:
        self.flush()
        self.writer.close()


def write_parquet(destination, options, report, progress: Progress) -> None:
    """One Parquet file per split that has rows (the datasets library refuses a split with
    none), and the dataset card naming them."""
    names = {
        "train": "data/train-00000.parquet",
        "dev": "data/dev-00000.parquet",
        "test": "data/test-00000.parquet",
    }
    split = options.split
    splits = {}
    with ExitStack() as stack:

        def split_writer(split: str) -> _SplitWriter:
            if split not in splits:
                file = stack.enter_context(destination.open(names[split], binary=True))
                splits[split] = _SplitWriter(file)
            return splits[split]

        for cluster in clusters(options.filter.rows(FIELDS, **EXPRESSIONS)):
            first = cluster.segment
            video = video_key(first.segment__source, first.video)
            side = split.side(video)
            split_writer(side).add(cluster)
            report.count_split(side, video, len(cluster.members))
            report.clusters += 1
            report.descriptions += len(cluster.members)
            progress.step(len(cluster.members))
        if not splits:
            split_writer("train")  # an empty export still has its (empty) table
        for writer in splits.values():
            writer.close()
    names = {split: name for split, name in names.items() if split in splits}
    for split, name in names.items():
        report.files[destination.path(name)] = splits[split].rows
    with destination.open("README.md") as card:
        card.write(dataset_card(options, names, splits))
    report.files[destination.path("README.md")] = 1


def dataset_card(options, names: dict[str, str], splits: dict[str, _SplitWriter]) -> str:
    """The Hugging Face dataset card: YAML metadata (configs, features, splits), then prose."""
    total = sum(writer.rows for writer in splits.values())
    languages = Counter()
    for writer in splits.values():
        languages.update(writer.languages)
    q = json.dumps  # a JSON string is a valid YAML scalar, whatever it holds
    lines = ["---", "pretty_name: ParaCrowd video descriptions"]
    if languages:
        lines.append("language:")
        lines += [f"- {q(code)}" for code in sorted(languages)]
    lines += [
        "task_categories:",
        "- text-generation",
        "- sentence-similarity",
        "size_categories:",
        f"- {size_category(total)}",
        "configs:",
        "- config_name: default",
        "  data_files:",
    ]
    for split, name in names.items():
        lines += [f"  - split: {split}", f"    path: {q(name)}"]
    lines += ["dataset_info:", "  features:"]
    for column in SCHEMA:
        lines += [f"  - name: {column.name}", f"    dtype: {q(FEATURE_TYPES[column.type])}"]
    lines.append("  splits:")
    for split in names:
        lines += [f"  - name: {split}", f"    num_examples: {splits[split].rows}"]
    lines += ["---", ""]
    lines += [
        "# ParaCrowd video descriptions",
        "",
        "Highly parallel paraphrase data collected as in Chen & Dolan (2011), *Collecting",
        "Highly Parallel Data for Paraphrase Evaluation*: crowd workers watched a few seconds",
        "of video and described the main action in one sentence, in any language. The",
        "descriptions of one segment in one language form a **cluster** of paraphrases.",
        "",
        f"- Descriptions: {total:,}"
        + "".join(f", {split} {splits[split].rows:,}" for split in names),
        f"- Selection: {options.filter.describe()}",
        f"- Split: by video, seed {options.seed}: each video (every segment of it, in every "
        f"language) in test with probability {options.test_fraction:g} and in dev with "
        f"probability {options.dev_fraction:g}; no video is on two sides, and a video keeps "
        "its side as the corpus grows",
        "- Languages: "
        + (", ".join(f"{code} ({n:,})" for code, n in languages.most_common()) or "none"),
        "",
        "## Fields",
        "",
        "| field | type | meaning |",
        "|---|---|---|",
    ]
    lines += [
        f"| `{column.name}` | {FEATURE_TYPES[column.type]} | {FIELD_NOTES[column.name]} |"
        for column in SCHEMA
    ]
    lines += [
        "",
        "Scores are the stored leave-one-out scores of each cluster, computed over all of its",
        "descriptions that were not rejected (sacrebleu-compatible BLEU; PINC as in Chen &",
        "Dolan); they are null until computed.",
        "",
        "## Loading",
        "",
        "```python",
        "from datasets import load_dataset",
        'corpus = load_dataset("path/to/this/folder")',
        "```",
        "",
    ]
    return "\n".join(lines)


def size_category(n: int) -> str:
    bounds = [(1_000, "n<1K"), (10_000, "1K<n<10K"), (100_000, "10K<n<100K")]
    bounds += [(1_000_000, "100K<n<1M"), (10_000_000, "1M<n<10M")]
    for bound, label in bounds:
        if n < bound:
            return label
    return "10M<n<100M"
