"""Scoring work for the Celery workers. Every task is idempotent (the task base acknowledges
late and retries on database trouble)."""

from celery import shared_task

from . import paraphrases, services

SWEEP_CHUNK = 50


@shared_task
def score_segments(segment_ids: list[int]) -> int:
    """Rescore the clusters of these segments (after a description arrives, or a sweep)."""
    return services.segments_score(segment_ids=segment_ids)


@shared_task
def sweep_unscored(limit: int = 5000) -> int:
    """Periodic: queue scoring for descriptions left unscored (say, while Redis was down), for
    clusters whose scores are older than a review that changed them, and for direct
    paraphrases with no PINC yet. Returns how many segments and paraphrases it queued."""
    segment_ids = sorted(
        set(services.segments_unscored(limit=limit)) | set(services.segments_stale(limit=limit))
    )
    for start in range(0, len(segment_ids), SWEEP_CHUNK):
        score_segments.delay(segment_ids[start : start + SWEEP_CHUNK])
    paraphrase_ids = paraphrases.paraphrases_unscored(limit=limit)
    for start in range(0, len(paraphrase_ids), SWEEP_CHUNK):
        score_paraphrases.delay(paraphrase_ids[start : start + SWEEP_CHUNK])
    return len(segment_ids) + len(paraphrase_ids)


@shared_task
def score_paraphrases(paraphrase_ids: list[int]) -> int:
    """Store the PINC of direct paraphrases against their sentences (after one is submitted,
    or a sweep)."""
    return paraphrases.paraphrases_score(paraphrase_ids=paraphrase_ids)


@shared_task
def compute_paraphrase_comparison(report_id: int) -> bool:
    """Compute the comparison of direct paraphrases with descriptions that staff asked for."""
    return paraphrases.paraphrase_comparison_compute(report_id=report_id)


@shared_task
def compute_reference_curve(report_id: int) -> bool:
    """Compute one reference-curve report that staff asked for on the corpus page."""
    return services.reference_curve_compute(report_id=report_id)
