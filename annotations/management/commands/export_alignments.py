from pathlib import Path

from django.core.management.base import BaseCommand

from annotations.alignment_files import alignments_export, folder_files


class Command(BaseCommand):
    help = "Export annotated sentence pairs and their alignments to a folder."

    def add_arguments(self, parser):
        parser.add_argument("folder", type=Path, help="the folder to write into")
        parser.add_argument(
            "--format",
            choices=["pharaoh", "naacl", "edinburgh", "multimwa"],
            default="pharaoh",
            help=(
                "pharaoh: Pharaoh/Moses links with token files; naacl: NAACL/WPT; edinburgh: "
                "Edinburgh++ .sure.json and .sure+poss.json; multimwa: MultiMWA TSV "
                "(default %(default)s)"
            ),
        )

    def handle(self, *args, folder, format, **options):
        written = alignments_export(folder_files(folder), format=format)
        self.stdout.write(f"{written} sentence pairs written to {folder}.")
