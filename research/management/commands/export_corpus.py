import sys

from botocore.exceptions import BotoCoreError, ClientError
from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from research.destinations import Destination
from research.exports import FORMATS, ExportOptions, corpus_export, export_size
from research.selection import STATUS_CHOICES, TIER_CHOICES, CorpusFilter, FilterError
from research.splits import DEFAULT_SEED, DEFAULT_TEST_FRACTION


def pairs_per_sentence(value: str) -> int | None:
    if value == "all":
        return None
    number = int(value)
    if number < 1:
        raise ValueError(value)
    return number


class Command(BaseCommand):
    help = (
        "Export the corpus for researchers, streaming, to a local path or an s3:// URL. "
        "Formats: "
        + "; ".join(f"{name}: {what}" for name, (_, _, what) in FORMATS.items())
        + ". Accepted descriptions only unless --status says otherwise."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "output",
            help="a file (msvd-csv, jsonl, pairs) or a folder (split, parquet, pharaoh, naacl); "
            "a local path or s3://bucket/key; a name ending .gz is compressed",
        )
        parser.add_argument("--format", dest="export_format", required=True, choices=FORMATS)
        parser.add_argument("--language", action="append", default=[], help="repeatable")
        parser.add_argument("--tier", action="append", default=[], choices=TIER_CHOICES)
        parser.add_argument(
            "--status",
            action="append",
            default=[],
            choices=STATUS_CHOICES,
            help="repeatable; default accepted",
        )
        parser.add_argument("--since", help="created on or after this date (YYYY-MM-DD, UTC)")
        parser.add_argument("--until", help="created on or before this date (YYYY-MM-DD, UTC)")
        parser.add_argument("--min-cluster-size", default="1", help="descriptions per cluster")
        parser.add_argument(
            "--pairs-per-sentence",
            type=pairs_per_sentence,
            default=None,
            metavar="N|all",
            help="pairs and split: other descriptions each sentence is paired with "
            "(the study used 1, 5, 10 and all; default all)",
        )
        parser.add_argument("--seed", type=int, default=DEFAULT_SEED)
        parser.add_argument(
            "--test-fraction",
            type=float,
            default=DEFAULT_TEST_FRACTION,
            help="split and parquet: share of clusters drawn into the test split (default 0.1)",
        )
        parser.add_argument("--no-progress", action="store_true", help="no progress bar")

    def handle(self, *args, output, export_format, **options):
        params = {
            "language": options["language"],
            "tier": options["tier"],
            "status": options["status"],
            "since": [options["since"]] if options["since"] else [],
            "until": [options["until"]] if options["until"] else [],
            "min_cluster_size": [options["min_cluster_size"]],
        }
        try:
            export = ExportOptions(
                format=export_format,
                filter=CorpusFilter.from_params(params.__getitem__),
                pairs_per_sentence=options["pairs_per_sentence"],
                seed=options["seed"],
                test_fraction=options["test_fraction"],
            )
            destination = Destination.for_url(output)
        except (FilterError, ValueError) as error:
            raise CommandError(str(error)) from None
        quiet = options["no_progress"] or not sys.stderr.isatty()
        total = None if quiet else export_size(export)
        bar = tqdm(
            total=total,
            unit=" pairs" if export_format in ("pharaoh", "naacl") else " descriptions",
            file=sys.stderr,
            disable=quiet,
        )
        try:
            report = corpus_export(destination=destination, options=export, progress=bar.update)
        except (OSError, ValueError, BotoCoreError, ClientError) as error:
            # smart_open reports a missing or forbidden bucket as a ValueError.
            raise CommandError(f"Could not write {output}: {error}") from None
        finally:
            bar.close()
        for line in report.lines():
            self.stdout.write(line)
