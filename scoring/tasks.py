"""Scoring work for the Celery workers. Every task is idempotent, so it acknowledges late
(a worker that dies mid-task leaves it to another) and retries on database trouble."""

from celery import shared_task
from django.db import InterfaceError, OperationalError

from paracrowd.celery import enqueue_on_commit

from . import services

RETRYING = {
    "acks_late": True,
    "autoretry_for": (OperationalError, InterfaceError),
    "retry_backoff": True,
    "max_retries": 8,
}
SWEEP_CHUNK = 50


@shared_task(**RETRYING)
def score_segments(segment_ids: list[int]) -> int:
    """Rescore the clusters of these segments (after a description arrives, or a sweep)."""
    return services.segments_score(segment_ids=segment_ids)


@shared_task
def sweep_unscored(limit: int = 5000) -> int:
    """Periodic: queue scoring for descriptions left unscored (say, while Redis was down)."""
    segment_ids = services.segments_unscored(limit=limit)
    for start in range(0, len(segment_ids), SWEEP_CHUNK):
        score_segments.delay(segment_ids[start : start + SWEEP_CHUNK])
    return len(segment_ids)


def queue_scoring(segment_id: int) -> None:
    """Score a segment's clusters once the current transaction commits."""
    enqueue_on_commit(score_segments, [segment_id])
