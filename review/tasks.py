"""Background work for the review pages: per-worker signals and the overview report. Every
task is idempotent."""

from celery import shared_task

from . import gold, reports, services

SWEEP_LIMIT = 500


@shared_task
def refresh_worker_signals(worker_id: int) -> bool:
    """Recompute one worker's signals (after a submission or a review)."""
    return services.worker_signals_refresh(worker_id=worker_id) is not None


@shared_task
def sweep_stale_signals(limit: int = SWEEP_LIMIT) -> int:
    """Periodic: refresh the signals of workers with work newer than their signals (say,
    submitted while Redis was down)."""
    worker_ids = services.workers_with_stale_signals(limit=limit)
    for worker_id in worker_ids:
        refresh_worker_signals.delay(worker_id)
    return len(worker_ids)


@shared_task
def compute_overview(report_id: int) -> bool:
    """Compute one overview report (queued by beat or by staff on the overview page)."""
    return services.overview_report_compute(report_id=report_id)


@shared_task
def refresh_overview() -> int:
    """Periodic: queue the all-time overview again, so the page is never more than a few
    minutes old."""
    return services.overview_report_request(period=reports.Period()).pk


@shared_task
def check_gold_answer(assignment_id: int) -> bool:
    """Check one answer to a gold item and apply the warn and stop rule (queued on submit)."""
    return gold.gold_answer_check(assignment_id=assignment_id) is not None


@shared_task
def sweep_unchecked_gold(limit: int = SWEEP_LIMIT) -> int:
    """Periodic: check answers to gold items that were never checked (say, submitted while
    Redis was down)."""
    assignment_ids = gold.gold_answers_unchecked(limit=limit)
    for assignment_id in assignment_ids:
        check_gold_answer.delay(assignment_id)
    return len(assignment_ids)
