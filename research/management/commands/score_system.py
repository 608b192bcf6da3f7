import csv
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from research.management.filter_options import (
    add_filter_arguments,
    add_split_arguments,
    filter_from_options,
    split_from_options,
)
from research.selection import FilterError
from research.system_scoring import system_score, system_tsv
from scoring.services import combined_parameters


class Command(BaseCommand):
    help = (
        "Score a paraphrase system's outputs for sources from the test split: BLEU against "
        "the source's cluster, PINC against the source, and PINC × sigmoid(BLEU). PAIRS is a "
        "TSV of source, output and optionally segment_id (a header line is allowed, after any "
        "'# learned-from:' lines declaring what the system learned from). Give the split "
        "options and filters the test split was exported with. Warns when the system's table "
        "or model saw the clusters it is scored on."
    )

    def add_arguments(self, parser):
        parser.add_argument("pairs", type=Path, help="a TSV of source, output[, segment_id]")
        add_filter_arguments(parser)
        add_split_arguments(parser)
        # Default: the site's stored fit (correlate_ratings --store-combined), else the settings.
        parser.add_argument(
            "--centre",
            type=float,
            help="centre of PINC × sigmoid(BLEU) (default: the site's stored fit, else "
            "COMBINED_SCORE_CENTRE)",
        )
        parser.add_argument(
            "--slope",
            type=float,
            help="slope of PINC × sigmoid(BLEU) (default: the site's stored fit, else "
            "COMBINED_SCORE_SLOPE)",
        )
        parser.add_argument(
            "--per-pair", type=Path, help="also write each pair's scores to this TSV file"
        )

    def handle(self, *args, pairs, centre, slope, per_pair, **options):
        try:
            corpus_filter = filter_from_options(options)
            split = split_from_options(options)
        except (FilterError, ValueError) as error:
            raise CommandError(str(error)) from None
        if not split.test_fraction:
            raise CommandError("--test-fraction must be above 0 and below 1.")
        site_centre, site_slope = combined_parameters()
        centre = site_centre if centre is None else centre
        slope = site_slope if slope is None else slope
        found, learned_from = read_pairs(pairs)
        result = system_score(
            pairs=found,
            learned_from=learned_from,
            corpus_filter=corpus_filter,
            split=split,
            centre=centre,
            slope=slope,
        )
        for line in result.lines():
            self.stdout.write(line)
        if per_pair:
            with per_pair.open("w", encoding="utf-8", newline="") as file:
                writer = csv.writer(file, delimiter="\t", lineterminator="\n")
                writer.writerow(
                    [
                        "pair",
                        "segment_id",
                        "language",
                        "references",
                        "bleu",
                        "pinc",
                        "combined",
                        "meteor",
                    ]
                )
                for score in result.scores:
                    writer.writerow(
                        [
                            score.index,
                            score.segment_id,
                            score.language,
                            score.references,
                            f"{score.bleu:.4f}",
                            f"{score.pinc:.4f}",
                            f"{score.combined:.4f}",
                            f"{score.meteor:.4f}",
                        ]
                    )


def read_pairs(path: Path):
    """The pairs of a system's TSV file and what it declares it learned from (see
    ``system_tsv``)."""
    try:
        return system_tsv(path.read_text(encoding="utf-8"), str(path))
    except (OSError, UnicodeDecodeError) as error:
        raise CommandError(f"Cannot read {path}: {error}") from None
    except ValueError as error:
        raise CommandError(str(error)) from None
