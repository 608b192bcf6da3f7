import time

from celery import shared_task
from django.db import transaction
from django.db.models import Max
from django.utils import timezone

from paracrowd.celery import enqueue_on_commit

from .agreement import corpus_agreement
from .models import AgreementReport, Alignment


@shared_task(acks_late=True)
def refresh_agreement() -> bool:
    """Recompute the corpus agreement table; idempotent, one refresh at a time.

    A refresh already running holds the report's row; this one then leaves, and the running
    one goes round again if alignments arrived meanwhile, so the table always catches up.
    """
    AgreementReport.objects.get_or_create(pk=1)
    while True:
        with transaction.atomic():
            report = AgreementReport.objects.select_for_update(skip_locked=True).filter(pk=1)
            report = report.first()
            if report is None:
                return False  # another worker is refreshing
            newest = Alignment.objects.aggregate(newest=Max("pk"))["newest"] or 0
            if newest == report.through_alignment and report.table is not None:
                return True
            started = time.monotonic()
            report.table = corpus_agreement()
            report.through_alignment = newest
            report.computed_at = timezone.now()
            report.seconds = time.monotonic() - started
            report.save()


def queue_agreement_refresh() -> None:
    enqueue_on_commit(refresh_agreement)
