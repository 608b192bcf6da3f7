"""Report rows: a heavy read computed by a Celery worker and kept, so that a page shows the
last result with the time it took instead of computing it on every request.

An app's report model inherits ``Report`` and adds its parameters (unique together); its
service asks for one with ``report_request`` and its task computes it with ``report_compute``.
The row carries the state (queued → running → done or failed); the previous result stays on
the row while it is computed again, so a page always has something to show.
"""

import logging
import time
from collections.abc import Callable
from datetime import timedelta

from django.db import DatabaseError, InterfaceError, OperationalError, models
from django.db.models import Q
from django.utils import timezone

from .celery import enqueue

logger = logging.getLogger(__name__)

# A claim held this long is taken to belong to a worker that died mid-computation.
CLAIM_EXPIRES = timedelta(minutes=30)


class Report(models.Model):
    class State(models.TextChoices):
        QUEUED = "queued", "Queued"
        RUNNING = "running", "Running"
        DONE = "done", "Done"
        FAILED = "failed", "Failed"

    state = models.CharField(max_length=10, choices=State.choices, default=State.QUEUED)
    # What the last computation found (JSON the app's page knows how to draw); null until then.
    result = models.JSONField(null=True, blank=True)
    error = models.TextField(blank=True)
    requested_at = models.DateTimeField(default=timezone.now)
    # When the running computation claimed the row.
    started_at = models.DateTimeField(null=True, blank=True)
    computed_at = models.DateTimeField(null=True, blank=True)
    seconds = models.FloatField(null=True, blank=True)

    class Meta:
        abstract = True
        constraints = [
            models.CheckConstraint(
                condition=Q(state__in=["queued", "running", "done", "failed"]),
                name="%(app_label)s_%(class)s_known_state",
            ),
        ]

    @property
    def is_pending(self) -> bool:
        return self.state in (self.State.QUEUED, self.State.RUNNING)


def claimable(now) -> Q:
    """Rows a computation may claim: queued ones, and running ones whose claim expired."""
    return Q(state=Report.State.QUEUED) | Q(
        state=Report.State.RUNNING, started_at__lt=now - CLAIM_EXPIRES
    )


def report_request(model: type[Report], *, task: str, **parameters) -> Report:
    """The report of ``model`` for these parameters, created or queued again, with ``task``
    queued (on commit) to compute it. A report already being computed is left to finish."""
    report, _ = model.objects.get_or_create(**parameters)
    now = timezone.now()
    model.objects.filter(pk=report.pk).filter(
        Q(state__in=[Report.State.DONE, Report.State.FAILED]) | claimable(now)
    ).update(state=Report.State.QUEUED, requested_at=now, started_at=None, error="")
    report.refresh_from_db()
    # Sent again for a report that was already queued: its first message may have been lost
    # (a broker that was down); a duplicate finds nothing to claim.
    if report.state == Report.State.QUEUED:
        enqueue(task, report.pk)
    return report


def report_compute(
    model: type[Report], *, report_id: int, compute: Callable[[Report], object]
) -> bool:
    """Claim the report and store ``compute(report)`` (JSON) with its time. Returns False when
    there is nothing to do: the report is done, failed, or another worker holds it. Safe to
    call twice or concurrently: the claim is one conditional UPDATE, so only one caller
    computes. No transaction stays open while it computes."""
    reports = model.objects.filter(pk=report_id)
    claimed_at = timezone.now()
    if not reports.filter(claimable(claimed_at)).update(
        state=Report.State.RUNNING, started_at=claimed_at
    ):
        return False  # done already, or another worker got there first
    # Writes only while the claim is still ours (an expired claim may have been retaken).
    mine = reports.filter(state=Report.State.RUNNING, started_at=claimed_at)
    started = time.monotonic()
    try:
        result = compute(reports.get())
    except (OperationalError, InterfaceError):
        # Back in the queue for the task base's retry; with the database gone the update may
        # fail too, and then the claim expires.
        try:
            mine.update(state=Report.State.QUEUED, started_at=None)
        except DatabaseError:
            logger.warning("Could not release report %s", report_id, exc_info=True)
        raise
    except Exception as error:
        logger.exception("Report %s of %s failed", report_id, model.__name__)
        mine.update(state=Report.State.FAILED, error=f"{type(error).__name__}: {error}"[:2000])
        return False
    mine.update(
        state=Report.State.DONE,
        result=result,
        error="",
        computed_at=timezone.now(),
        seconds=time.monotonic() - started,
    )
    return True
