"""Word alignments in the Pharaoh/Moses or NAACL/WPT form, written by
``annotations.alignment_files`` (the same files ``export_alignments`` writes, which
``import_alignments`` reads back)."""

from annotations.alignment_files import alignments_export
from research.selection import worker_label

from .base import Progress


def annotator_label(alignment) -> str:
    """An imported annotator keeps their name; a worker gets the label every export uses."""
    return alignment.annotator or alignment.worker_label


def write_alignments(destination, options, report, progress: Progress, *, format: str) -> None:
    alignments = options.filter.alignments().annotate(worker_label=worker_label())
    written = []

    def open_file(name):
        written.append(name)
        return destination.open(name)

    report.aligned_pairs = alignments_export(
        open_file, format=format, alignments=alignments, annotator_name=annotator_label
    )
    progress.step(report.aligned_pairs)
    for name in written:
        report.files[destination.path(name)] = report.aligned_pairs


def write_pharaoh(destination, options, report, progress: Progress) -> None:
    write_alignments(destination, options, report, progress, format="pharaoh")


def write_naacl(destination, options, report, progress: Progress) -> None:
    write_alignments(destination, options, report, progress, format="naacl")


def write_edinburgh(destination, options, report, progress: Progress) -> None:
    write_alignments(destination, options, report, progress, format="edinburgh")


def write_multimwa(destination, options, report, progress: Progress) -> None:
    write_alignments(destination, options, report, progress, format="multimwa")
