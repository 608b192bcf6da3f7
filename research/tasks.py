"""Background work for researchers. Tasks take ids and are idempotent."""

from datetime import timedelta

from celery import shared_task

from . import services
from .ratings.services import ratings_auto_pay
from .releases import services as releases

# A queued job nobody picked up for this long lost its message: queue it again.
STALLED_AFTER = timedelta(minutes=5)


@shared_task(acks_late=True)
def run_export_job(job_id: int) -> bool:
    """Run one export job (safe twice: a held or finished job is left alone)."""
    return services.export_job_run(job_id=job_id) is not None


@shared_task
def sweep_export_jobs() -> int:
    """Periodic: queue again the export jobs whose message was lost (say, Redis was down)."""
    stalled = services.export_jobs_stalled(older_than=STALLED_AFTER)
    for job_id in stalled:
        run_export_job.delay(job_id)
    return len(stalled)


@shared_task(acks_late=True)
def run_system_score_job(job_id: int) -> bool:
    """Score one system-scoring job (safe twice: a held or finished job is left alone)."""
    return services.system_score_job_run(job_id=job_id)


@shared_task
def sweep_system_score_jobs() -> int:
    """Periodic: queue again the scoring jobs whose message was lost or whose worker died."""
    stalled = services.system_score_jobs_stalled(older_than=STALLED_AFTER)
    for job_id in stalled:
        run_system_score_job.delay(job_id)
    return len(stalled)


@shared_task
def pay_ratings() -> int:
    """Periodic: pay (and accept) the ratings nobody reviewed once their HIT type's delay has
    passed. Nothing is paid twice."""
    return ratings_auto_pay()


@shared_task(acks_late=True)
def run_correlation_report(report_id: int) -> bool:
    """Analyse one ratings file (safe twice: a held or finished report is left alone)."""
    return services.correlation_report_run(report_id=report_id)


@shared_task
def sweep_correlation_reports() -> int:
    """Periodic: queue again the analyses whose message was lost or whose worker died."""
    stalled = services.correlation_reports_stalled(older_than=STALLED_AFTER)
    for report_id in stalled:
        run_correlation_report.delay(report_id)
    return len(stalled)


@shared_task(acks_late=True)
def run_release(release_id: int) -> bool:
    """Write one release (safe twice: a held or finished release is left alone)."""
    return releases.release_run(release_id=release_id) is not None


@shared_task
def sweep_releases() -> int:
    """Periodic: queue again the releases whose message was lost (say, Redis was down)."""
    stalled = releases.releases_stalled(older_than=STALLED_AFTER)
    for release_id in stalled:
        run_release.delay(release_id)
    return len(stalled)
