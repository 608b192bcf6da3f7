"""Scoring work for the Celery workers. Every task is idempotent (the task base acknowledges
late and retries on database trouble)."""

from celery import shared_task

from . import services

SWEEP_CHUNK = 50


@shared_task
def score_segments(segment_ids: list[int]) -> int:
    """Rescore the clusters of these segments (after a description arrives, or a sweep)."""
    return services.segments_score(segment_ids=segment_ids)


@shared_task
def sweep_unscored(limit: int = 5000) -> int:
    """Periodic: queue scoring for descriptions left unscored (say, while Redis was down), and
    for clusters whose scores are older than a review that changed them."""
    segment_ids = sorted(
        set(services.segments_unscored(limit=limit)) | set(services.segments_stale(limit=limit))
    )
    for start in range(0, len(segment_ids), SWEEP_CHUNK):
        score_segments.delay(segment_ids[start : start + SWEEP_CHUNK])
    return len(segment_ids)


@shared_task
def compute_reference_curve(report_id: int) -> bool:
    """Compute one reference-curve report that staff asked for on the corpus page."""
    return services.reference_curve_compute(report_id=report_id)
