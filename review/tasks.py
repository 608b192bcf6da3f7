"""Background work for the review pages: per-worker signals, automatic acceptance.

The services are imported inside each task: they use collector.services, which queues these
tasks, so importing them here would make the two modules import each other.
"""

from celery import shared_task
from django.db import InterfaceError, OperationalError

from paracrowd.celery import enqueue_on_commit

RETRYING = {
    "acks_late": True,
    "autoretry_for": (OperationalError, InterfaceError),
    "retry_backoff": True,
    "max_retries": 8,
}
SWEEP_LIMIT = 500


@shared_task(**RETRYING)
def refresh_worker_signals(worker_id: int) -> bool:
    """Recompute one worker's signals (after a submission or a review); idempotent."""
    from . import services

    return services.worker_signals_refresh(worker_id=worker_id) is not None


@shared_task
def sweep_stale_signals(limit: int = SWEEP_LIMIT) -> int:
    """Periodic: refresh the signals of workers with work newer than their signals (say,
    submitted while Redis was down)."""
    from . import services

    worker_ids = services.workers_with_stale_signals(limit=limit)
    for worker_id in worker_ids:
        refresh_worker_signals.delay(worker_id)
    return len(worker_ids)


@shared_task(acks_late=True)
def auto_accept() -> int:
    """Periodic: accept, and pay, work left unreviewed past its HIT type's delay (descriptions,
    and alignments, which have no review). Idempotent: nothing is accepted or paid twice."""
    from collector.models import HitType
    from collector.services import assignments_auto_pay, descriptions_auto_accept

    return descriptions_auto_accept() + assignments_auto_pay(kind=HitType.Kind.ALIGNMENT)


def queue_signals_refresh(worker_id: int) -> None:
    """Refresh a worker's signals once the current transaction commits."""
    enqueue_on_commit(refresh_worker_signals, worker_id)
