"""Evaluate the pre-aligner on gold alignments: the site's own model, or one trained on
``--train`` gold. See docs/researchers/alignment-agreement.md#evaluating-the-pre-aligner."""

import json
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from annotations.alignment_files import read_annotator_file
from annotations.prealigner import (
    aligner_usable,
    prealigner,
    sentences_learnt_from,
    site_lexicon,
)
from paracrowd_metrics.alignment import read_edinburgh, train_aligner
from paracrowd_metrics.alignment.evaluation import evaluate_prealigner, report_lines
from paracrowd_metrics.alignment.supervised import train_supervised_aligner

FORMATS = ["edinburgh", "multimwa", "rte", "pharaoh", "naacl"]
# import_alignments calls the RTE files "msr".
READER_FORMAT = {"rte": "msr"}


def read_gold(path: Path, format: str, partner: Path | None = None, source=None, target=None):
    """One gold file's pairs; pharaoh and naacl take their tokens from ``source``/``target``,
    by default the export's ``source.txt`` and ``target.txt`` beside the file."""
    if format == "edinburgh" and partner is not None:
        return read_edinburgh(path, partner)
    if partner is not None:
        raise ValueError("GOLD2 is only for --format edinburgh (the sure+possible file)")
    if format in ("pharaoh", "naacl"):
        source = source or path.with_name("source.txt")
        target = target or path.with_name("target.txt")
    return read_annotator_file(path, READER_FORMAT.get(format, format), source, target)


class Command(BaseCommand):
    help = (
        "Pre-align the sentence pairs of gold alignments and print micro precision, recall, F1 "
        "and AER over all links and over links between non-identical words, beside linking "
        "identical words one to one. Every proposed link counts, sure or possible. With --train "
        "the supervised aligner is trained on that gold (its unsupervised features on the text "
        "of the --train and GOLD pairs, never GOLD's links); else the site's current aligner."
    )

    def add_arguments(self, parser):
        parser.add_argument("gold", type=Path, metavar="GOLD", help="the gold alignments")
        parser.add_argument(
            "gold2",
            type=Path,
            nargs="?",
            metavar="GOLD2",
            help="edinburgh: the sure+possible file (GOLD is then the sure file)",
        )
        parser.add_argument("--format", choices=FORMATS, required=True)
        parser.add_argument(
            "--train", type=Path, nargs="+", metavar="FILE", help="gold to train the aligner on"
        )
        parser.add_argument(
            "--train-format", choices=FORMATS, help="the --train files' format (default --format)"
        )
        parser.add_argument(
            "--source", type=Path, help="pharaoh, naacl: GOLD's source sentences, one a line"
        )
        parser.add_argument(
            "--target", type=Path, help="pharaoh, naacl: GOLD's target sentences, one a line"
        )
        parser.add_argument(
            "--json", action="store_true", help="end with one line of JSON (fractions 0–1)"
        )
        parser.add_argument(
            "--save",
            type=Path,
            metavar="FILE",
            help="with --train: write the trained aligner to FILE as JSON (its supervised "
            "parameters and the unsupervised model behind its features)",
        )

    def handle(
        self, *args, gold, gold2, format, train, train_format, source, target, save, **options
    ):
        if save and not train:
            raise CommandError("--save writes the aligner --train trains; give --train gold.")
        try:
            pairs = read_gold(gold, format, gold2, source, target)
            training = [
                pair for path in train or [] for pair in read_gold(path, train_format or format)
            ]
        except (OSError, ValueError) as error:
            raise CommandError(str(error)) from None
        if not pairs:
            raise CommandError(f"{gold}: no sentence pairs")
        if training:
            aligner, description = self._trained(training, pairs)
            if save:
                self._save(aligner, save, training)
        else:
            model = aligner_usable()
            if model is None:
                raise CommandError(
                    "No aligner on this site is good enough to pre-align yet (see "
                    "ALIGNER_MIN_TRAINING_PAIRS and ALIGNER_MIN_GOLD_ALIGNMENTS); give --train "
                    "gold to train one."
                )
            aligner, description = prealigner(model), f"the site's {model}"
            self._warn_seen(sentences_learnt_from(model), pairs, "the site's model learnt from")
        report = evaluate_prealigner(aligner.prealign, pairs)
        self.stdout.write(f"{report['pairs']} gold pairs; pre-aligner: {description}")
        for line in report_lines("pre-aligner", report):
            self.stdout.write(line)
        for line in report_lines("identical words one to one", report["baseline"]):
            self.stdout.write(line)
        if options["json"]:
            self.stdout.write(json.dumps(report))

    def _save(self, aligner, path: Path, training) -> None:
        record = {
            "kind": "supervised",
            "training_pairs": len(training),
            "parameters": aligner.to_dict(),
            "base": aligner.base.to_dict() if aligner.base is not None else None,
        }
        try:
            path.write_text(json.dumps(record), encoding="utf-8")
        except OSError as error:
            raise CommandError(f"Cannot write {path}: {error}") from None
        self.stdout.write(f"Aligner saved to {path}.")

    def _warn_seen(self, seen, pairs, where: str) -> None:
        shared = sum((pair.source, pair.target) in seen for pair in pairs)
        if shared:
            self.stderr.write(f"warning: {shared} GOLD pairs are also in the gold {where}")

    def _trained(self, training, pairs):
        self._warn_seen({(p.source, p.target) for p in training}, pairs, "of --train")
        texts = {(pair.source, pair.target) for pair in [*training, *pairs]}
        base = train_aligner(sorted(texts))
        aligner = train_supervised_aligner(training, base=base, lexicon=site_lexicon())
        return aligner, f"supervised, trained on {len(training)} --train alignments"
