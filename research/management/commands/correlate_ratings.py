"""Correlate human ratings of paraphrases with the metrics: Chen & Dolan's (2011) Table 4
and Figure 4. See scoring.ratings_file for the CSV's columns and research.correlation for
what is computed."""

import json
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

import paracrowd_metrics as metrics
from paracrowd_metrics.correlation import DEFAULT_RESAMPLES
from paracrowd_metrics.rating_consensus import METHODS
from paracrowd_metrics.ratings import DIMENSIONS, SINGLE, SITE_SCALE, RatingError, parse_scale
from paracrowd_metrics.ratings_analysis import AnalysisOptions, reference_counts
from research.correlation import (
    combined_fit,
    consensus_lines,
    correlation_lines,
    ratings_correlate,
)
from research.learning import EVERY_SPLIT, ratings_on_splits
from research.management.filter_options import add_split_arguments, learning_from_options
from research.models import RatingBatch
from research.ratings.selectors import ratings_from_db
from scoring.ratings_file import read_ratings
from scoring.services import combined_setting_store


class Command(BaseCommand):
    help = (
        "Correlate human ratings (RATINGS.csv: source, candidate, rating or semantic, "
        "dissimilarity and overall, references joined with ' ||| ' or a stored cluster, "
        "optionally judge and language) with BLEU, PINC, their means, PINC × sigmoid(BLEU) "
        "and the METEOR-style score, and BLEU's correlation as references grow."
    )

    def add_arguments(self, parser):
        parser.add_argument("ratings", type=Path, nargs="?", help="a ratings CSV")
        parser.add_argument(
            "--from-db", action="store_true", help="the ratings collected in the app instead"
        )
        parser.add_argument("--batch", type=int, help="--from-db: this rating batch only")
        parser.add_argument(
            "--references",
            default="1,2,4,8,16,all",
            help="reference counts of the curve (default 1,2,4,8,16,all)",
        )
        parser.add_argument(
            "--with-source",
            action="store_true",
            help="also draw the curve with the source as one reference more",
        )
        parser.add_argument(
            "--folds",
            type=int,
            default=5,
            help="folds fitting the combined score out of fold (default %(default)s)",
        )
        parser.add_argument(
            "--seed",
            type=int,
            default=1,
            help="seed of the folds, draws and resamples (default %(default)s)",
        )
        parser.add_argument(
            "--draws",
            type=int,
            default=10,
            help="random draws of references per count, averaged (default %(default)s)",
        )
        parser.add_argument(
            "--bootstrap",
            type=int,
            default=DEFAULT_RESAMPLES,
            help="bootstrap resamples for the 95%% intervals (0: none; default %(default)s)",
        )
        parser.add_argument(
            "--tokenize",
            choices=sorted(metrics.TOKENIZERS),
            help="default: by the ratings' language (13a; char for languages without spaces)",
        )
        parser.add_argument(
            "--dimension",
            choices=[*DIMENSIONS, SINGLE],
            help="analyse this rating dimension only (and draw its curve)",
        )
        parser.add_argument(
            "--consensus",
            choices=METHODS,
            default="mean",
            help="how one pair's judges are combined: their mean, or dawid-skene, weighting "
            "each judge by their estimated reliability (needs the judge column; default "
            "%(default)s)",
        )
        parser.add_argument(
            "--scale",
            help="the ratings' scale as LOWEST-HIGHEST, e.g. 0-5 for STS-B, checked on every "
            "rating (default: the site's 1-4 with --from-db, else read from the data, which "
            "the output says)",
        )
        parser.add_argument("--no-meteor", action="store_true", help="leave out METEOR-style")
        parser.add_argument("--json", action="store_true", help="print one JSON object")
        parser.add_argument(
            "--store-combined",
            action="store_true",
            help="make the combined score's centre and slope, fitted on all ratings of "
            "--dimension (default overall, or rating), the site's",
        )
        add_split_arguments(
            parser, learning=True, seed_option="--split-seed", only_when_storing=True
        )

    def handle(self, *args, **options):
        asked = options["splits"] is not None
        try:
            scale = parse_scale(options["scale"]) if options["scale"] else None
            if scale is None and options["from_db"]:
                scale = SITE_SCALE
            records, dimensions = self._records(options)
            on_splits = self._on_splits(records, options)
            records = on_splits.kept
            analysis = AnalysisOptions(
                reference_counts=reference_counts(options["references"]),
                with_source=options["with_source"],
                folds=options["folds"],
                seed=options["seed"],
                draws=options["draws"],
                resamples=options["bootstrap"],
                tokenize=options["tokenize"] or "",
            )
            result = ratings_correlate(
                records,
                dimensions,
                options=analysis,
                dimension=options["dimension"],
                meteor=not options["no_meteor"],
                consensus=options["consensus"],
                scale=scale,
            )
        except RatingError as error:
            raise CommandError(str(error)) from None
        if options["store_combined"]:
            stored = self._store(result, on_splits.learned_from)
            if not options["json"]:
                self.stdout.write(stored)
        if options["json"]:
            self.stdout.write(json.dumps(result, ensure_ascii=False))
        else:
            split_lines = on_splits.lines() if options["store_combined"] or asked else []
            for line in [*split_lines, *correlation_lines(result), *consensus_lines(result)]:
                self.stdout.write(line)

    def _records(self, options):
        if bool(options["ratings"]) == options["from_db"]:
            raise CommandError("Give either a ratings CSV or --from-db.")
        if options["batch"] is not None and not options["from_db"]:
            raise CommandError("--batch goes with --from-db.")
        if not options["from_db"]:
            return read_ratings(options["ratings"])
        batch = None
        if options["batch"] is not None:
            batch = RatingBatch.objects.filter(pk=options["batch"]).first()
            if batch is None:
                raise CommandError(f"No rating batch {options['batch']}.")
        return ratings_from_db(batch)

    def _on_splits(self, records, options):
        """The ratings of the sides asked for: train by default when the fit is stored (the
        fit learns from them), every rating otherwise."""
        if options["splits"] is None:
            options["splits"] = "train" if options["store_combined"] else EVERY_SPLIT
        try:
            learning = learning_from_options(options)
        except ValueError as error:
            raise CommandError(str(error)) from None
        on_splits = ratings_on_splits(records, learning, "combined score's ratings")
        if not on_splits.kept:
            raise RatingError(f"No ratings on {', '.join(learning.splits)}.")
        return on_splits

    def _store(self, result: dict, learned_from) -> str:
        dimension, fit = combined_fit(result)
        if fit["centre"] is None:
            raise CommandError(f"The combined score could not be fitted to {dimension}.")
        setting = combined_setting_store(
            centre=fit["centre"],
            slope=fit["slope"],
            dimension=dimension,
            pairs=result["pairs"],
            held_out_correlation=fit["out_of_fold"],
            learned_from=[learned_from.as_dict()],
        )
        result["stored_combined"] = {"centre": setting.centre, "slope": setting.slope}
        return (
            f"Stored as the site's combined score: centre {setting.centre:.2f}, "
            f"slope {setting.slope:.4f} (fitted to {dimension})"
        )
