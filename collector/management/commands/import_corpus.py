import sys
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from collector.corpus_formats import FORMATS, CorpusFormatError, read_corpus
from collector.corpus_import import BATCH_SIZE, CorpusImportRefused, corpus_import
from collector.models import Description

# Beyond this many, refused rows are counted but listed only at --verbosity 2.
REFUSED_LISTED = 50


class Command(BaseCommand):
    help = (
        "Load an existing corpus of segments and their descriptions. A description already "
        "stored for the same segment with the same text (and the same worker, where the file "
        "names one) is already present; running it again, or on an export, adds nothing."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "path",
            type=Path,
            help=(
                "msvd-s2vt: the folder, or one sents_*.txt file; msvd-csv: the CSV file; "
                "msvd-json: the JSON file"
            ),
        )
        parser.add_argument("--format", dest="corpus_format", required=True, choices=FORMATS)
        parser.add_argument(
            "--mapping",
            type=Path,
            help="msvd-s2vt: the youtube_video_to_id_mapping.txt (default: beside the sentences)",
        )
        parser.add_argument(
            "--status",
            choices=Description.Status.values,
            default=Description.Status.ACCEPTED,
            help="status of the imported descriptions (default: accepted, the corpus is curated)",
        )
        parser.add_argument(
            "--strict",
            action="store_true",
            help="stop at the first refused row and import nothing",
        )
        parser.add_argument(
            "--open-hits",
            action="store_true",
            help="also offer every imported segment for new descriptions in both tiers",
        )
        parser.add_argument(
            "--batch-size",
            type=int,
            default=BATCH_SIZE,
            help="rows written per database batch (default %(default)s)",
        )
        parser.add_argument("--no-progress", action="store_true", help="no progress bar")

    def handle(self, *args, path, corpus_format, mapping, status, strict, open_hits, **options):
        if options["batch_size"] < 1:
            raise CommandError("--batch-size must be at least 1.")
        try:
            records = read_corpus(path, corpus_format, mapping=mapping)
        except (CorpusFormatError, OSError) as error:
            raise CommandError(str(error)) from None
        bar = tqdm(
            unit=" rows",
            file=sys.stderr,
            disable=options["no_progress"] or not sys.stderr.isatty(),
        )
        try:
            report = corpus_import(
                records=records,
                status=status,
                batch_size=options["batch_size"],
                strict=strict,
                open_hits=open_hits,
                progress=bar.update,
            )
        except (CorpusImportRefused, CorpusFormatError, OSError) as error:
            raise CommandError(str(error)) from None
        finally:
            bar.close()

        write = self.stdout.write
        write(f"Rows read: {report.rows}")
        write(f"Segments: {report.segments_new} new, {report.segments_existing} existing")
        if report.workers_new:
            write(f"Workers: {report.workers_new} new")
        write(
            f"Descriptions: {report.descriptions_added} added, "
            f"{report.descriptions_present} already present"
        )
        if open_hits:
            write(f"HITs opened: {report.hits_opened}")
        refused = report.refused
        if refused:
            self.stdout.write(self.style.WARNING(f"Rows refused: {len(refused)}"))
            listed = refused if options["verbosity"] > 1 else refused[:REFUSED_LISTED]
            for row in listed:
                write(f"  {row}")
            if len(listed) < len(refused):
                write(f"  … and {len(refused) - len(listed)} more (--verbosity 2 lists all)")
        else:
            write("Rows refused: 0")
