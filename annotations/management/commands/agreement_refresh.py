"""Bring the stored agreement table up to date, or recompute it from scratch.

    manage.py agreement_refresh            # catch up with pairs whose alignments changed
    manage.py agreement_refresh --full     # refit the edit models, recompute every pair
    manage.py agreement_refresh --check    # compare the stored table with a recomputation

``--check`` recomputes the table over every stored pair with the stored edit models (the
ones the incremental updates use) and says whether it equals the stored table exactly.
"""

from django.core.management.base import BaseCommand, CommandError

from annotations.agreement import corpus_agreement
from annotations.agreement_store import (
    SAMPLES,
    SEED,
    agreement_recompute,
    agreement_refresh,
    stored_models,
)
from annotations.models import AgreementReport


class Command(BaseCommand):
    help = "Bring the stored alignment agreement table up to date, or recompute it."

    def add_arguments(self, parser):
        group = parser.add_mutually_exclusive_group()
        group.add_argument("--full", action="store_true", help="refit and recompute everything")
        group.add_argument(
            "--check", action="store_true", help="compare the stored table with a recomputation"
        )

    def handle(self, *args, full, check, **options):
        if check:
            report = AgreementReport.objects.filter(pk=1).first()
            if report is None or report.totals is None:
                raise CommandError("No agreement table is stored yet.")
            expected = corpus_agreement(samples=SAMPLES, seed=SEED, models=stored_models(report))
            if expected != report.table:
                raise CommandError("The stored table differs from a full recomputation.")
            self.stdout.write("The stored table equals a full recomputation.")
            return
        done = agreement_recompute() if full else agreement_refresh()
        if not done:
            raise CommandError("A full recomputation is running; try again when it is done.")
        self.stdout.write("The agreement table is up to date.")
