import sys

from botocore.exceptions import BotoCoreError, ClientError
from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from research.destinations import Destination
from research.exports import FORMATS, ExportOptions, corpus_export, export_size
from research.management.filter_options import (
    add_filter_arguments,
    add_split_arguments,
    filter_from_options,
    split_from_options,
)
from research.selection import FilterError


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
        + "; ".join(f"{name}: {format.description}" for name, format in FORMATS.items())
        + ". Accepted descriptions only unless --status says otherwise."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "output",
            help="a file (msvd-csv, jsonl, pairs) or a folder (split, parquet, pharaoh, naacl); "
            "a local path or s3://bucket/key; a name ending .gz is compressed",
        )
        parser.add_argument("--format", dest="export_format", required=True, choices=FORMATS)
        add_filter_arguments(parser)
        parser.add_argument(
            "--pairs-per-sentence",
            type=pairs_per_sentence,
            default=None,
            metavar="N|all",
            help="pairs and split: other descriptions each sentence is paired with "
            "(the study used 1, 5, 10 and all; default all)",
        )
        add_split_arguments(parser)
        parser.add_argument("--no-progress", action="store_true", help="no progress bar")

    def handle(self, *args, output, export_format, **options):
        try:
            export = ExportOptions(
                format=export_format,
                filter=filter_from_options(options),
                pairs_per_sentence=options["pairs_per_sentence"],
                **vars(split_from_options(options)),
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
            self.stdout.write(self.style.WARNING(line) if line.startswith("Left out") else line)
