"""Print the agreement table for alignment files, without touching the database.

    manage.py alignment_agreement RTE2_dev_A.align.txt RTE2_dev_B.align.txt RTE2_dev_C.align.txt

Each file is one annotator's alignments of the same sentence pairs: MSR RTE files
(``--format msr``, the default), or Pharaoh link files with ``--source``/``--target`` token files.
"""

import os
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from annotations.agreement import annotated_pairs_from, format_rows, table_rows
from paracrowd_metrics.alignment import (
    AlignedPair,
    agreement_table,
    read_msr_annotator,
    read_pharaoh,
)


def annotator_names(file_names: list[str]) -> list[str]:
    """What tells the files apart: RTE2_dev_A.align.txt, …_B…, …_C… → A, B, C."""
    prefix = os.path.commonprefix(file_names)
    suffix = os.path.commonprefix([name[::-1] for name in file_names])[::-1]
    names = [name[len(prefix) : len(name) - len(suffix)] for name in file_names]
    if all(names) and len(set(names)) == len(names):
        return names
    stems = [name.split(".")[0] for name in file_names]  # one file: its name without extensions
    return stems if all(stems) and len(set(stems)) == len(stems) else file_names


def corpus_name(file_names: list[str]) -> str:
    """What the files share at the start: RTE2_test_A.align.txt, … → RTE2_test."""
    return os.path.commonprefix(file_names).rstrip("_-. ") or "files"


class Command(BaseCommand):
    help = "Agreement between annotators of the same sentence pairs, read from files."

    def add_arguments(self, parser):
        parser.add_argument(
            "files", nargs="+", type=Path, help="one file per annotator, at least two"
        )
        parser.add_argument(
            "--format",
            choices=["msr", "pharaoh"],
            default="msr",
            help="msr: MSR RTE alignment files; pharaoh: link files with --source and --target "
            "(default %(default)s)",
        )
        parser.add_argument("--source", type=Path, help="tokenised sentences (pharaoh format)")
        parser.add_argument("--target", type=Path, help="tokenised sentences (pharaoh format)")
        parser.add_argument(
            "--samples",
            type=int,
            default=1000,
            help="Monte Carlo samples J per pair and annotator for Ĉ (default %(default)s)",
        )
        parser.add_argument(
            "--seed",
            type=int,
            default=0,
            help="seed of the Monte Carlo draws (default %(default)s)",
        )
        parser.add_argument(
            "--pre-alignment",
            choices=["trained", "none"],
            default="trained",
            help=(
                "the pre-alignment the chance model edits and the annotators are compared "
                "with: the pre-aligner trained on these pairs, or nothing"
            ),
        )

    def handle(self, *args, files, format, source, target, samples, seed, **options):
        if len(files) < 2:
            raise CommandError("Agreement needs two or more annotators' files.")
        try:
            names = annotator_names([path.name for path in files])
            by_annotator = {
                name: self._read(path, format, source, target)
                for name, path in zip(names, files, strict=True)
            }
            pairs, notes = annotated_pairs_from(
                by_annotator,
                pre_alignment=options["pre_alignment"],
                corpus=corpus_name([path.name for path in files]),
            )
        except (OSError, ValueError) as error:
            raise CommandError(str(error)) from None
        if not pairs:
            raise CommandError("No sentence pair is annotated in two or more of the files.")
        table = agreement_table(pairs, samples=samples, seed=seed)
        self.stdout.write(f"{len(pairs)} sentence pairs, {len(files)} annotators")
        if notes:
            self.stdout.write(
                f"{len(notes)} pairs kept the first annotator's words where files spell them "
                f"differently (same word counts), e.g. {notes[0]}"
            )
        self.stdout.write(format_rows(table_rows(table)))

    def _read(self, path, format, source, target):
        if format == "msr":
            return read_msr_annotator(path)
        if not (source and target):
            raise CommandError("--format pharaoh needs --source and --target token files.")
        sources = source.read_text(encoding="utf-8").splitlines()
        targets = target.read_text(encoding="utf-8").splitlines()
        alignments = read_pharaoh(path.read_text(encoding="utf-8").splitlines())
        if not len(sources) == len(targets) == len(alignments):
            raise CommandError(f"{path}: line counts of links, sources and targets differ")
        return [
            AlignedPair(str(n), tuple(s.split()), tuple(t.split()), a)
            for n, (s, t, a) in enumerate(zip(sources, targets, alignments, strict=True), 1)
        ]
