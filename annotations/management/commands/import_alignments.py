import os
import re
from collections import defaultdict
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from annotations.alignment_files import alignments_import, read_annotator_file
from annotations.management.commands.alignment_agreement import annotator_names
from annotations.trial import trial_pairs_import


def line_annotators(path: Path, default: str, count: int) -> list[str]:
    """Who made each line of ``path``: the export's ``annotators-k.txt`` beside an
    ``alignment-k.*`` file when there is one, else ``default`` for every line."""
    slot = re.match(r"alignment-(\d+)\.", path.name)
    names = path.with_name(f"annotators-{slot[1]}.txt") if slot else None
    if names and names.exists():
        lines = names.read_text(encoding="utf-8").splitlines()
        if len(lines) != count:
            raise ValueError(f"{names}: {len(lines)} names for {count} pairs")
        return lines
    return [default] * count


def edinburgh_files(files: list[Path]) -> list[Path]:
    """One file per Edinburgh++ pair: ``x.sure.json`` (or jacana's ``x.json``) and
    ``x.sure+poss.json`` are one annotator, named by the ``x`` part."""
    kept = {}
    for path in files:
        name = path.name.removesuffix(".sure+poss.json").removesuffix(".sure.json")
        stem = name.removesuffix(".json")
        kept.setdefault(path.with_name(stem), path)
    return list(kept.values())


class Command(BaseCommand):
    help = (
        "Import annotators' alignments of the same sentence pairs: MSR RTE files, Edinburgh++ "
        "JSON pairs, MultiMWA TSV, or Pharaoh / NAACL link files with --source and --target "
        "token files. One file (or Edinburgh++ pair of files) per annotator."
    )

    def add_arguments(self, parser):
        parser.add_argument("files", nargs="+", type=Path, help="one file per annotator")
        parser.add_argument(
            "--format",
            choices=["msr", "pharaoh", "naacl", "edinburgh", "multimwa"],
            default="msr",
            help=(
                "edinburgh: one annotator's .sure.json or .sure+poss.json file (its partner is "
                "read too); multimwa: one annotator's TSV file"
            ),
        )
        parser.add_argument(
            "--source",
            type=Path,
            help="pharaoh, naacl: the source sentences, tokenised, one a line",
        )
        parser.add_argument(
            "--target",
            type=Path,
            help="pharaoh, naacl: the target sentences, tokenised, one a line",
        )
        parser.add_argument("--corpus", help="a name keeping this corpus's pair ids apart")
        parser.add_argument("--open-hits", action="store_true", help="offer pairs as HITs")
        parser.add_argument(
            "--trial",
            action="store_true",
            help=(
                "store the pairs as the alignment trial set, the one annotator's links as their "
                "gold alignment (no annotations are stored; no HITs are opened)"
            ),
        )

    def handle(self, *args, files, format, source, target, corpus, open_hits, trial, **options):
        if format == "edinburgh":
            files = edinburgh_files(files)
        names = annotator_names([path.name for path in files])
        corpus = corpus or os.path.commonprefix([path.name for path in files]).strip("_-.")
        by_annotator = defaultdict(list)
        try:
            for name, path in zip(names, files, strict=True):
                pairs = read_annotator_file(path, format, source, target)
                annotators = line_annotators(path, name, len(pairs))
                for annotator, pair in zip(annotators, pairs, strict=True):
                    if annotator:  # a blank name marks a pair this slot has no annotation of
                        by_annotator[annotator].append(pair)
        except (OSError, ValueError) as error:
            raise CommandError(str(error)) from None
        if trial:
            if open_hits or len(by_annotator) != 1:
                raise CommandError(
                    "--trial takes one annotator's file (the gold alignments) and no --open-hits"
                )
            (gold,) = by_annotator.values()
            stored = trial_pairs_import(gold, corpus=corpus or "trial")
            self.stdout.write(f"{stored} trial pairs with gold alignments.")
            return
        report = alignments_import(by_annotator, corpus=corpus or "import", open_hits=open_hits)
        self.stdout.write(
            f"{report.pairs} sentence pairs; alignments: {report.alignments_new} new, "
            f"{report.alignments_present} already present."
        )
        if report.reused_ids:
            self.stdout.write(
                f"{len(report.reused_ids)} pair ids name more than one pair of sentences; each "
                f"pair is kept apart (e.g. {', '.join(report.reused_ids[:5])})."
            )
        if report.not_stored:
            self.stdout.write(self.style.WARNING(f"Not stored: {len(report.not_stored)}"))
            for reason in report.not_stored:
                self.stdout.write(f"  {reason}")
