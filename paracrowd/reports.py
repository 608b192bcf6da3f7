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

from django.db import DatabaseError, InterfaceError, OperationalError, models
from django.db.models import Q
from django.utils import timezone

from .celery import enqueue
from .claims import held_while_alive

logger = logging.getLogger(__name__)


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
    # When the running computation claimed the row (its worker holds the row's claim lock,
    # paracrowd.claims, for as long as it lives).
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


def pending() -> Q:
    """Rows a computation may have to claim: queued ones, and running ones (whose worker may
    have died; ``report_compute`` finds out from the claim lock, at no cost)."""
    return Q(state__in=[Report.State.QUEUED, Report.State.RUNNING])


def report_request(model: type[Report], *, task: str, **parameters) -> Report:
    """The report of ``model`` for these parameters, created or queued again, with ``task``
    queued (on commit) to compute it. A report already being computed is left to finish."""
    report, _ = model.objects.get_or_create(**parameters)
    now = timezone.now()
    model.objects.filter(pk=report.pk, state__in=[Report.State.DONE, Report.State.FAILED]).update(
        state=Report.State.QUEUED, requested_at=now, started_at=None, error=""
    )
    report.refresh_from_db()
    # Sent again for a report already queued or running: its first message may have been
    # lost (a broker that was down), or its worker died; a duplicate finds nothing to claim.
    enqueue(task, report.pk)
    return report


def report_compute(
    model: type[Report], *, report_id: int, compute: Callable[[Report], object]
) -> bool:
    """Claim the report and store ``compute(report)`` (JSON) with its time. Returns False when
    there is nothing to do: the report is done, failed, or a live worker holds it. Safe to
    call twice or concurrently: only the holder of the claim lock computes, and a report left
    running by a worker that died (its lock went with its connection) is taken over at once,
    as the broker hands the dead worker's task to another. No transaction stays open while it
    computes."""
    with held_while_alive(model, report_id) as held:
        if not held:
            return False  # a live worker is computing it
        return _compute_claimed(model, report_id, compute)


def _compute_claimed(model: type[Report], report_id: int, compute) -> bool:
    reports = model.objects.filter(pk=report_id)
    claimed_at = timezone.now()
    # Running with nobody holding the lock: its worker died, so the claim is free to take.
    if not reports.filter(pending()).update(state=Report.State.RUNNING, started_at=claimed_at):
        return False  # done already
    # Writes only while the claim is still ours (a lost connection may have let it be retaken).
    mine = reports.filter(state=Report.State.RUNNING, started_at=claimed_at)
    started = time.monotonic()
    try:
        result = compute(reports.get())
    except (OperationalError, InterfaceError):
        # Back in the queue for the task base's retry; with the database gone the update may
        # fail too, and then the lost connection has freed the claim.
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
