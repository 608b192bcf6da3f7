"""Parquet with a dataset card: a folder the Hugging Face ``datasets`` library loads as it is.

    README.md                     the dataset card (YAML metadata, then prose)
    data/train-00000.parquet      one row per description of the training clusters
    data/dev-00000.parquet        ... of the dev clusters, when a dev share is asked for,
    data/test-00000.parquet       ... and of the test clusters (the seeded split by video),
                                  when there are any

PostgreSQL streams the rows as CSV (COPY) into Arrow's CSV reader, in cluster order; the
clusters are counted and sent to their split as they pass, batches are buffered a row group at
a time and written with ``pyarrow.parquet.ParquetWriter``, so memory stays flat however many
descriptions there are, and the rows are read once.
"""

import json
import os
import threading
from collections import Counter
from contextlib import ExitStack

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pa_csv
import pyarrow.parquet as pq
from django.db import connection
from django.db.models import F, FloatField, Func
from django.db.models.functions import Cast

from research.selection import TYPING_FIELDS
from research.splits import video_key

from .base import Progress, typing_sql
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
        # How the text came into its box (collector.provenance), after the columns before it.
        ("typing", pa.string()),
        *((name, pa.int32()) for name in TYPING_FIELDS[1:]),
    ]
)
# The columns of SCHEMA that the database hands over, ready for Arrow (times as floats, and
# created_at as PostgreSQL writes it, which Arrow reads exactly); cluster_size is counted here.
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
    "created_at",
    "score__bleu",
    "score__pinc",
    "score__references",
    "typing_cell",
    *TYPING_FIELDS[1:],
)
# cluster_size is counted here, and put in its place among the database's columns.
CLUSTER_SIZE = SCHEMA.get_field_index("cluster_size")
CSV_SCHEMA = pa.schema([field for field in SCHEMA if field.name != "cluster_size"])
# Columns with few distinct values, stored as dictionaries. The others (text, ids, scores) are
# nearly all distinct: building a dictionary for them only to drop it took a third of the
# writing time.
DICTIONARY_COLUMNS = ["video", "video_source", "language", "worker", "status", "typing"]
# Bytes between COPY's thread and Arrow's reader (one block of CSV at a time).
PIPE_BUFFER = 1 << 20
EXPRESSIONS = {
    "start_seconds": Cast("segment__start", FloatField()),
    "end_seconds": Cast("segment__end", FloatField()),
    "typing_cell": typing_sql(),
    "time_spent_seconds": Cast(
        Func(F("time_spent"), template="EXTRACT(EPOCH FROM %(expressions)s)"), FloatField()
    ),
}
# How PostgreSQL writes created_at for Arrow to read: ISO 8601, in UTC. (Counting the rows of a
# cluster with a window function, and the time as microseconds, cost the query a third more.)
COPY_SETTINGS = "SET LOCAL DateStyle = 'ISO'; SET LOCAL TimeZone = 'UTC'"
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
    "typing": "how the text came into its box: `clean` (typed on the page), `unknown` (no "
    "record: scripts off, or imported), or the signals raised, joined by `+`: `pasted` (most "
    "of the text pasted), `too_fast` (faster than a person types), `background` (written with "
    "the page in the background)",
    "typing_key_presses": "key presses in the text box (the keys themselves are not recorded)",
    "typing_pastes": "paste and drop events in the text box",
    "typing_pasted_characters": "characters those pastes brought",
    "typing_first_key_ms": "milliseconds from the page opening to the first key",
    "typing_writing_ms": "milliseconds from the first change of the text to the last",
    "typing_focus_losses": "times the page was left while the text was being written",
    "typing_background_ms": "milliseconds the page was left in that time",
    "typing_input_method_characters": "characters an input method wrote: an IME's composition, a "
    "swipe keyboard's word, an autocorrection, dictation (typing, all of them)",
    # Null (unknown) also in records from pages that did not count them yet.
    "typing_prompt_copies": "copies of the task page's own text (instructions, the sentence)",
    "typing_pastes_after_copy": "pastes into the text box after such a copy",
    "typing_inserted_without_keys": "insertions of words without a key press: a drop, "
    "autofill, an extension",
    "typing_untrusted_events": "input events in the text box made by a script (isTrusted false)",
    "typing_webdriver": "1 when the browser reported automation (navigator.webdriver), else 0",
    "typing_left_after_copy": "times the page was left for 15 s or more right after a copy "
    "of the task's text",
    "typing_key_intervals": "times between key presses in the rhythm (pauses of 2 s or more, "
    "a held key's repeats left out)",
    "typing_key_interval_variation": "their standard deviation over their mean, in thousandths "
    "(below 150 over 20 or more: an even, machine-like rhythm)",
}


class _CountingFile:
    """A binary file that counts the bytes written to it: the card's ``num_bytes``, known
    without asking the destination (a local folder or S3) for the file's size."""

    def __init__(self, file):
        self.file = file
        self.bytes = 0

    def write(self, data) -> int:
        self.bytes += len(data)
        return self.file.write(data)

    def flush(self) -> None:
        self.file.flush()

    def tell(self) -> int:
        return self.bytes

    @property
    def closed(self) -> bool:
        return self.file.closed

    def close(self) -> None:
        pass  # the destination closes the file it opened


class _SplitWriter:
    """One split's Parquet file, fed record batches and written a row group at a time; counts
    its rows, and their languages in cluster order, for the dataset card."""

    def __init__(self, file):
        self.file = _CountingFile(file)
        self.writer = pq.ParquetWriter(self.file, SCHEMA, use_dictionary=DICTIONARY_COLUMNS)
        self.buffered = []
        self.buffered_rows = 0
        self.rows = 0
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

    PostgreSQL streams every row, cluster by cluster, as CSV (COPY) into Arrow's CSV reader;
    each batch, cut at the end of a cluster, gets its clusters' sizes and is divided between
    the splits by video, and the clusters are counted for the report and the card as they
    pass: the rows are read once."""
    names = {
        "train": "data/train-00000.parquet",
        "dev": "data/dev-00000.parquet",
        "test": "data/test-00000.parquet",
    }
    split = options.split
    splits = {}
    with ExitStack() as stack:

        def split_writer(side: str) -> _SplitWriter:
            if side not in splits:
                file = stack.enter_context(destination.open(names[side], binary=True))
                splits[side] = _SplitWriter(file)
            return splits[side]

        rows = options.filter.rows(FIELDS, **EXPRESSIONS)
        for batch, clusters in _whole_clusters(_copy_batches(query_sql(rows))):
            cluster_sides = []
            for size, language, source, video in clusters:
                key = video_key(source, video)
                side = split.side(key)
                writer = split_writer(side)
                writer.rows += size
                writer.languages[language] += size
                report.count_split(side, key, size)
                cluster_sides.append(side)
            report.clusters += len(clusters)
            report.descriptions += batch.num_rows
            sides = list(dict.fromkeys(cluster_sides))
            if len(sides) == 1:
                splits[sides[0]].add(batch)
            else:
                sizes = [size for size, *_ in clusters]
                row_sides = np.repeat([sides.index(side) for side in cluster_sides], sizes)
                for number, side in enumerate(sides):
                    splits[side].add(batch.filter(_arrow_mask(row_sides == number)))
            progress.step(batch.num_rows)
        if not splits:
            split_writer("train")  # an empty export still has its (empty) table
        for writer in splits.values():
            writer.close()
    names = {side: name for side, name in names.items() if side in splits}
    for side, name in names.items():
        report.files[destination.path(name)] = splits[side].rows
    with destination.open("README.md") as card:
        card.write(
            dataset_card(
                options, names, splits, sizes={side: splits[side].file.bytes for side in names}
            )
        )
    report.files[destination.path("README.md")] = 1


def _whole_clusters(batches):
    """``batches`` of rows in cluster order (columns as ``CSV_SCHEMA``) again, each ending
    where a cluster ends and completed with cluster_size, beside its clusters' (size,
    language, video source, video). The rows of the cluster still open at the end of a batch
    wait for the next one."""
    waiting = None
    for batch in batches:
        if waiting is not None:
            batch = pa.concat_batches([waiting, batch])
        starts = _cluster_starts(batch)
        waiting = batch.slice(starts[-1])
        if len(starts) > 1:
            yield _sized_clusters(batch.slice(0, starts[-1]), starts[:-1])
    if waiting is not None and waiting.num_rows:
        yield _sized_clusters(waiting, np.zeros(1, dtype=np.int64))


def _cluster_starts(batch: pa.RecordBatch) -> np.ndarray:
    """Where each cluster (segment and language) begins in ``batch``: 0, then each row whose
    segment or language differs from the row before."""
    before, after = batch.slice(0, batch.num_rows - 1), batch.slice(1)
    changed = pc.or_(
        pc.not_equal(before.column("segment_id"), after.column("segment_id")),
        pc.not_equal(before.column("language"), after.column("language")),
    )
    changes = pc.indices_nonzero(changed)  # uint64, no nulls
    after_change = np.frombuffer(
        changes.buffers()[1], dtype=np.uint64, count=len(changes), offset=changes.offset * 8
    )
    return np.concatenate(([0], after_change.astype(np.int64) + 1))


def _sized_clusters(batch: pa.RecordBatch, starts: np.ndarray):
    """``batch`` of whole clusters beginning at ``starts`` with its cluster_size column, and
    each cluster's (size, language, video source, video)."""
    sizes = np.diff(starts, append=batch.num_rows)
    cluster_size = _arrow_array(pa.int32(), np.repeat(sizes, sizes).astype(np.int32))
    firsts = batch.select(["language", "video_source", "video"])
    firsts = firsts.take(_arrow_array(pa.int64(), starts.astype(np.int64)))
    columns = (column.to_pylist() for column in firsts.columns)
    clusters = list(zip(sizes.tolist(), *columns, strict=True))
    columns = batch.columns
    columns.insert(CLUSTER_SIZE, cluster_size)
    return pa.RecordBatch.from_arrays(columns, schema=SCHEMA), clusters


# pyarrow's own ways between NumPy and Arrow (pa.array, to_numpy) import pandas on first use,
# which takes seconds, for nothing: these hand the buffers over as they are.
def _arrow_array(arrow_type: pa.DataType, values: np.ndarray) -> pa.Array:
    """``values`` (of ``arrow_type``'s width, contiguous) as an Arrow array."""
    return pa.Array.from_buffers(arrow_type, len(values), [None, pa.py_buffer(values)])


def _arrow_mask(values: np.ndarray) -> pa.Array:
    """A NumPy boolean array as an Arrow one (bits, least significant first)."""
    bits = np.packbits(values, bitorder="little")
    return pa.Array.from_buffers(pa.bool_(), len(values), [None, pa.py_buffer(bits)])


def _copy_batches(sql: str):
    """The rows of ``sql`` (columns as ``CSV_SCHEMA``) as Arrow record batches: COPY writes
    CSV into a pipe from a second thread while Arrow's reader parses it here, a block at a
    time. An error on either side ends both, and is raised here."""
    read_end, write_end = os.pipe()
    failures = []
    with connection.cursor() as cursor:
        cursor.execute(COPY_SETTINGS)
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
                # Arrow's reader refuses an empty stream: no rows (or an error before the
                # first) make no batches.
                if pipe.peek(1):
                    yield from _csv_batches(pipe)
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


def _csv_batches(pipe):
    reader = pa_csv.open_csv(
        pipe,
        read_options=pa_csv.ReadOptions(column_names=CSV_SCHEMA.names, block_size=PIPE_BUFFER),
        parse_options=pa_csv.ParseOptions(newlines_in_values=True),
        convert_options=pa_csv.ConvertOptions(
            column_types=dict(zip(CSV_SCHEMA.names, CSV_SCHEMA.types, strict=True)),
            strings_can_be_null=False,
        ),
    )
    for batch in reader:
        yield pa.RecordBatch.from_arrays(
            [
                column.cast(field.type) if column.type != field.type else column
                for column, field in zip(batch.columns, CSV_SCHEMA, strict=True)
            ],
            schema=CSV_SCHEMA,
        )


def dataset_card(
    options, names: dict[str, str], splits: dict, *, sizes: dict[str, int], metadata=(), sections=()
) -> str:
    """The Hugging Face dataset card: YAML metadata (configs, features, splits), then prose.
    ``splits``: each split's ``rows`` and ``languages`` (a Counter); ``sizes``: each split
    file's bytes (the datasets library warns on every load of a split without ``num_bytes``);
    ``metadata``: more YAML lines, ``sections``: more prose lines (a release adds its licence,
    citation, changes)."""
    total = sum(writer.rows for writer in splits.values())
    languages = Counter()
    for writer in splits.values():
        languages.update(writer.languages)
    q = json.dumps  # a JSON string is a valid YAML scalar, whatever it holds
    lines = ["---", "pretty_name: ParaCrowd video descriptions", *metadata]
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
        lines += [
            f"  - name: {split}",
            f"    num_bytes: {sizes[split]}",
            f"    num_examples: {splits[split].rows}",
        ]
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
        *sections,
    ]
    return "\n".join(lines)


def size_category(n: int) -> str:
    bounds = [(1_000, "n<1K"), (10_000, "1K<n<10K"), (100_000, "10K<n<100K")]
    bounds += [(1_000_000, "100K<n<1M"), (10_000_000, "1M<n<10M")]
    for bound, label in bounds:
        if n < bound:
            return label
    return "10M<n<100M"
