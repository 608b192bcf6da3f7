"""Word alignments in the Pharaoh/Moses or NAACL/WPT form, written by
``annotations.alignment_files`` (the same files ``export_alignments`` writes, which
``import_alignments`` reads back)."""

from annotations.alignment_files import alignments_export
from research.selection import worker_label

from .base import Progress


def annotator_label(alignment) -> str:
    """An imported annotator keeps their name; a worker gets the label every export uses."""
    return alignment.annotator or alignment.worker_label


def alignment_writer(format: str):
    def write(destination, options, report, progress: Progress) -> None:
        alignments = options.filter.alignments().annotate(worker_label=worker_label())
        report.aligned_pairs = alignments_export(
            destination.open, format=format, alignments=alignments, annotator_name=annotator_label
        )
        progress.step(report.aligned_pairs)
        report.files[destination.location] = report.aligned_pairs

    return write
