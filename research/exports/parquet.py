"""Parquet with a dataset card: a folder the Hugging Face ``datasets`` library loads as it is.

    README.md                     the dataset card (YAML metadata, then prose)
    data/train-00000.parquet      one row per description of the training clusters
    data/dev-00000.parquet        ... of the dev clusters, when a dev share is asked for,
    data/test-00000.parquet       ... and of the test clusters (the seeded split by video),
                                  when there are any

PostgreSQL streams the rows as CSV (COPY) into Arrow's CSV reader; batches are buffered a row
group at a time and written with ``pyarrow.parquet.ParquetWriter``, so memory stays flat
however many descriptions there are.
"""

import json
import os
import threading
from array import array
from collections import Counter
from contextlib import ExitStack

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pa_csv
import pyarrow.parquet as pq
from django.db import connection
from django.db.models import BigIntegerField, Count, F, FloatField, Func, Window
from django.db.models.functions import Cast

from research.selection import CHUNK_SIZE, video_label
from research.splits import video_key

from .base import Progress
from .database_copy import query_sql

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
    "cluster_size",
)
# How Arrow reads each column of the CSV that COPY writes: created_at comes as microseconds and
# becomes a timestamp afterwards.
CSV_TYPES = {
    field.name: pa.int64() if field.name == "created_at" else field.type for field in SCHEMA
}
# Columns with few distinct values, stored as dictionaries. The others (text, ids, scores) are
# nearly all distinct: building a dictionary for them only to drop it took a third of the
# writing time.
DICTIONARY_COLUMNS = ["video", "video_source", "language", "worker", "status"]
# Bytes between COPY's thread and Arrow's reader (one block of CSV at a time).
PIPE_BUFFER = 1 << 20
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
    "cluster_size": Window(Count("pk"), partition_by=[F("segment_id"), F("language")]),
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
    """One split's Parquet file, fed record batches and written a row group at a time."""

    def __init__(self, file):
        self.writer = pq.ParquetWriter(file, SCHEMA, use_dictionary=DICTIONARY_COLUMNS)
        self.buffered = []
        self.buffered_rows = 0
        self.rows = 0  # from the cluster counts, before any row arrives
        self.languages = Counter()

    def add(self, batch: pa.RecordBatch) -> None:
        self.buffered.append(batch)
        self.buffered_rows += batch.num_rows
        if self.buffered_rows >= ROW_GROUP_ROWS:
            self.flush()

    def flush(self) -> None:
        if not self.buffered:
            return
        self.writer.write_table(pa.Table.from_batches(self.buffered, schema=SCHEMA))
        self.buffered, self.buffered_rows = [], 0
        # Hand the row group's Arrow buffers back, so that memory does not creep up.
        pa.default_memory_pool().release_unused()

    def close(self) -> None:
        self.flush()
        self.writer.close()


def write_parquet(destination, options, report, progress: Progress) -> None:
    """One Parquet file per split that has rows (the datasets library refuses a split with
    none), and the dataset card naming them.

    The clusters are counted first (one row each: which split its video is on), then
    PostgreSQL streams every row as CSV (COPY) into Arrow's CSV reader, and each batch is
    divided between the splits by segment."""
    names = {
        "train": "data/train-00000.parquet",
        "dev": "data/dev-00000.parquet",
        "test": "data/test-00000.parquet",
    }
    split = options.split
    splits = {}
    segments_by_side = {side: array("q") for side in names}  # ids, 8 bytes each
    with ExitStack() as stack:

        def split_writer(side: str) -> _SplitWriter:
            if side not in splits:
                file = stack.enter_context(destination.open(names[side], binary=True))
                splits[side] = _SplitWriter(file)
            return splits[side]

        sizes = (
            options.filter.descriptions()
            .annotate(video=video_label())
            .values_list("segment_id", "segment__source", "video", "language")
            .annotate(size=Count("pk"))
            .order_by("segment_id", "language")  # the card's languages, in cluster order
        )
        for segment_id, source, video, language, size in sizes.iterator(chunk_size=CHUNK_SIZE):
            key = video_key(source, video)
            side = split.side(key)
            writer = split_writer(side)
            writer.rows += size
            writer.languages[language] += size
            segments_by_side[side].append(segment_id)
            report.count_split(side, key, size)
            report.clusters += 1
            report.descriptions += size
        if not splits:
            split_writer("train")  # an empty export still has its (empty) table
        rows = options.filter.rows(FIELDS, **EXPRESSIONS)
        sides = {
            side: _int64_array(segment_ids)
            for side, segment_ids in segments_by_side.items()
            if segment_ids
        }
        # Arrow's reader refuses an empty stream: with no rows selected, none is asked for.
        batches = _copy_batches(query_sql(rows)) if report.descriptions else ()
        for batch in batches:
            for side, segment_ids in sides.items():
                on_side = batch.filter(pc.is_in(batch.column("segment_id"), value_set=segment_ids))
                if on_side.num_rows:
                    splits[side].add(on_side)
            progress.step(batch.num_rows)
        for writer in splits.values():
            writer.close()
    names = {side: name for side, name in names.items() if side in splits}
    for side, name in names.items():
        report.files[destination.path(name)] = splits[side].rows
    with destination.open("README.md") as card:
        card.write(dataset_card(options, names, splits))
    report.files[destination.path("README.md")] = 1


def _int64_array(values: array) -> pa.Array:
    """``pa.array(values)`` without its first-call import of pandas (seconds, for nothing)."""
    return pa.Array.from_buffers(pa.int64(), len(values), [None, pa.py_buffer(values)])


def _copy_batches(sql: str):
    """The rows of ``sql`` (columns as ``SCHEMA``) as Arrow record batches: COPY writes CSV
    into a pipe from a second thread while Arrow's reader parses it here, a block at a time.
    An error on either side ends both, and is raised here."""
    read_end, write_end = os.pipe()
    failures = []
    with connection.cursor() as cursor:
        raw_cursor = cursor.cursor  # psycopg2's own: Django's is for this thread only

        def copy():
            try:
                with open(write_end, "wb", buffering=PIPE_BUFFER) as pipe:
                    raw_cursor.copy_expert(f"COPY ({sql}) TO STDOUT WITH (FORMAT csv)", pipe)
            except BaseException as error:  # noqa: BLE001 (raised again in the reading thread)
                failures.append(error)

        copying = threading.Thread(target=copy, name="export-copy")
        copying.start()
        try:
            with open(read_end, "rb") as pipe:
                reader = pa_csv.open_csv(
                    pipe,
                    read_options=pa_csv.ReadOptions(
                        column_names=SCHEMA.names, block_size=PIPE_BUFFER
                    ),
                    parse_options=pa_csv.ParseOptions(newlines_in_values=True),
                    convert_options=pa_csv.ConvertOptions(
                        column_types=CSV_TYPES, strings_can_be_null=False
                    ),
                )
                for batch in reader:
                    yield pa.RecordBatch.from_arrays(
                        [
                            column.cast(field.type) if column.type != field.type else column
                            for column, field in zip(batch.columns, SCHEMA, strict=True)
                        ],
                        schema=SCHEMA,
                    )
        except BaseException:
            # Closing the pipe has stopped COPY (a broken pipe there); a database error that
            # ended the CSV early is the one to report, rather than the reader's.
            copying.join()
            if failures and not isinstance(failures[0], BrokenPipeError):
                raise failures[0] from None
            raise
        copying.join()
    if failures:
        raise failures[0]


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
