"""Researchers' exports of the corpus, in the formats other tools read.

``corpus_export`` writes one format to a ``Destination`` (a local path or an s3:// URL) and
says what it wrote and what it left out. Every format streams: rows come through a
server-side cursor and are written as they come, so memory stays flat at any size.
"""

from django.db import connection, transaction

from .alignments import alignment_writer
from .base import ExportOptions, ExportReport, Progress
from .parquet import write_parquet
from .text import write_jsonl, write_msvd_csv, write_pairs, write_split

# format → (writer, whether it writes a folder of files rather than one file, what it is)
FORMATS = {
    "msvd-csv": (write_msvd_csv, False, "one row per description, MSR Video Description columns"),
    "jsonl": (write_jsonl, False, "one cluster per line, with segment and scores"),
    "pairs": (write_pairs, False, "paraphrase pairs (TSV) for training"),
    "split": (write_split, True, "train.tsv pairs and test.jsonl sources with references"),
    "parquet": (write_parquet, True, "Parquet with a Hugging Face dataset card"),
    "pharaoh": (alignment_writer("pharaoh"), True, "word alignments, Pharaoh/Moses"),
    "naacl": (alignment_writer("naacl"), True, "word alignments, NAACL/WPT"),
}
ALIGNMENT_FORMATS = ("pharaoh", "naacl")


def corpus_export(*, destination, options: ExportOptions, progress=None) -> ExportReport:
    """Write the selected part of the corpus to ``destination`` in ``options.format``.

    Reads one consistent snapshot (a repeatable-read transaction when not already inside
    one). ``progress(n)`` is called as descriptions (or sentence pairs) are written. The
    report counts what the status filter left out, so that pending descriptions are visible
    rather than silently missing.
    """
    writer, _, _ = FORMATS[options.format]
    report = ExportReport(format=options.format)
    outermost = not connection.in_atomic_block
    with transaction.atomic():
        if outermost:
            with connection.cursor() as cursor:
                cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
        if options.format not in ALIGNMENT_FORMATS:
            counts = options.filter.status_counts()
            for status, n in counts.items():
                if status not in options.filter.statuses:
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


__all__ = ["FORMATS", "ExportOptions", "ExportReport", "corpus_export", "export_size"]
