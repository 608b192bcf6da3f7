"""Researchers' exports of the corpus, in the formats other tools read.

``corpus_export`` writes one format to a ``Destination`` (a local path or an s3:// URL) and
says what it wrote and what it left out. Every format streams, so memory stays flat at any
size: rows come through COPY or a server-side cursor and are written as they come.
"""

from contextlib import contextmanager
from dataclasses import dataclass

from django.db import connection, transaction
from django.utils.module_loading import import_string

from .base import ExportOptions, ExportReport, Progress


@dataclass(frozen=True)
class Format:
    writer: str  # imported when used: web processes never load pyarrow
    file_name: str | None  # one-file formats: the name an export job gives the file
    description: str


FORMATS = {
    "msvd-csv": Format(
        "research.exports.text.write_msvd_csv",
        "corpus.csv",
        "one row per description, MSR Video Description Corpus columns",
    ),
    "msvd-json": Format(
        "research.exports.text.write_msvd_json",
        "corpus.json",
        'one JSON object {"<YouTubeID>_<start>_<end>": [descriptions]} (YouTube segments)',
    ),
    "jsonl": Format(
        "research.exports.text.write_jsonl",
        "clusters.jsonl",
        "one cluster per line, with segment and scores",
    ),
    "pairs": Format(
        "research.exports.text.write_pairs", "pairs.tsv", "paraphrase pairs (TSV) for training"
    ),
    "split": Format(
        "research.exports.text.write_split",
        None,
        "train.tsv pairs and test.jsonl sources with their references",
    ),
    "parquet": Format(
        "research.exports.parquet.write_parquet", None, "Parquet with a Hugging Face dataset card"
    ),
    "pharaoh": Format(
        "research.exports.alignments.write_pharaoh", None, "word alignments, Pharaoh/Moses"
    ),
    "naacl": Format("research.exports.alignments.write_naacl", None, "word alignments, NAACL/WPT"),
    "edinburgh": Format(
        "research.exports.alignments.write_edinburgh",
        None,
        "word alignments, Edinburgh++ JSON (.sure.json and .sure+poss.json)",
    ),
    "multimwa": Format(
        "research.exports.alignments.write_multimwa", None, "word alignments, MultiMWA TSV"
    ),
}
ALIGNMENT_FORMATS = ("pharaoh", "naacl", "edinburgh", "multimwa")


# Settings for the export's transaction (SET LOCAL: they end with it).
EXPORT_SETTINGS = "SET LOCAL jit = off; SET LOCAL cursor_tuple_fraction = 1.0"


@contextmanager
def snapshot():
    """A transaction reading one consistent snapshot of the corpus (repeatable read) when it
    is the outermost one; inside another transaction, that transaction's own reads."""
    outermost = not connection.in_atomic_block
    with transaction.atomic():
        if outermost:
            with connection.cursor() as cursor:
                cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
        yield


def corpus_export(*, destination, options: ExportOptions, progress=None) -> ExportReport:
    """Write the selected part of the corpus to ``destination`` in ``options.format``.

    Reads one consistent snapshot (a repeatable-read transaction when not already inside
    one). ``progress(n)`` is called as descriptions (or sentence pairs) are written. The
    report counts what the status filter left out, so that pending descriptions are visible
    rather than silently missing.
    """
    writer = import_string(FORMATS[options.format].writer)
    report = ExportReport(format=options.format)
    with snapshot():
        with connection.cursor() as cursor:
            # An export reads every row of each query once, to the end: plan for all rows, not
            # the first few, and do not compile expressions (JIT costs more than it saves).
            cursor.execute(EXPORT_SETTINGS)
        if options.format not in ALIGNMENT_FORMATS:
            for status, n in options.filter.status_counts(left_out=True).items():
                report.left_out[f"{status} descriptions (status filter)"] = n
        steps = Progress(progress)
        writer(destination, options, report, steps)
        steps.finish()
    return report


def export_size(options: ExportOptions) -> int:
    """How many steps ``progress`` will count: descriptions, or alignments' sentence pairs."""
    if options.format in ALIGNMENT_FORMATS:
        return options.filter.alignments().values("pair").distinct().count()
    return options.filter.descriptions().count()


__all__ = [
    "EXPORT_SETTINGS",
    "FORMATS",
    "ExportOptions",
    "ExportReport",
    "corpus_export",
    "export_size",
    "snapshot",
]
