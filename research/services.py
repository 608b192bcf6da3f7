"""Writes for researchers: export jobs, system-scoring jobs and API tokens."""

import logging
import uuid
from pathlib import PurePosixPath

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.db import transaction
from django.utils import timezone
from rest_framework.authtoken.models import Token

from crowd.access import RESEARCHERS_GROUP
from paracrowd.celery import enqueue
from paracrowd.reports import pending, report_compute
from scoring.ratings_file import ratings_from_text
from scoring.services import combined_setting_store

from .correlation import combined_fit, correlation_from_parameters
from .destinations import Destination
from .exports import FORMATS, ExportOptions, corpus_export, snapshot
from .learning import LearnedFrom, LearningSplits, ratings_on_splits
from .models import CorrelationReport, ExportJob, SystemScoreJob
from .selection import CorpusFilter
from .splits import SPLITS, SplitOptions
from .system_comparison import SystemOutputs, systems_compare
from .system_scoring import SystemPair

logger = logging.getLogger(__name__)

EXPORTS_FOLDER = "exports"


def export_job_create(*, user, options: ExportOptions) -> ExportJob:
    """Record an export for ``user`` and queue it once the record is committed. If the broker
    is down the job stays queued, and the periodic sweep queues it later."""
    with transaction.atomic():
        job = ExportJob.objects.create(
            requested_by=user,
            format=options.format,
            parameters=options.as_dict(),
            folder=f"{EXPORTS_FOLDER}/{uuid.uuid4().hex}",
        )
        enqueue("research.tasks.run_export_job", job.pk)
    return job


def export_job_run(*, job_id: int) -> ExportJob | None:
    """Run export job ``job_id``; safe to call twice or at the same time.

    The job is marked running where everyone can see it, then its row is locked for the whole
    export: a second caller finds it locked and returns at once, and a finished job is left
    alone. If a worker dies mid-export its lock goes with its connection, so the job (still
    running, no longer locked) is run again from the start and its files overwritten. Returns
    the job when this call finished it, else None.
    """
    ExportJob.objects.filter(pk=job_id, state=ExportJob.State.QUEUED).update(
        state=ExportJob.State.RUNNING, started_at=timezone.now()
    )
    try:
        with snapshot():
            job = (
                ExportJob.objects.select_for_update(skip_locked=True)
                .filter(pk=job_id, state=ExportJob.State.RUNNING)
                .first()
            )
            if job is None:
                return None  # another worker holds it, or it is finished
            options = ExportOptions.from_dict(job.parameters)
            folder = Destination.in_storage(job.folder)
            file_name = FORMATS[options.format].file_name
            destination = folder.inside(file_name) if file_name else folder
            report = corpus_export(destination=destination, options=options)
            # Files by their names in the job's folder: where storage keeps them stays private.
            base = folder.path().rstrip("/") + "/"
            report.files = {where.removeprefix(base): rows for where, rows in report.files.items()}
            job.files = list(report.files)
            job.report = report.as_dict() | {"lines": report.lines()}
            job.state = ExportJob.State.DONE
            job.finished_at = timezone.now()
            job.save(update_fields=["files", "report", "state", "finished_at"])
            return job
    except Exception as error:
        logger.exception("Export job %s failed", job_id)
        ExportJob.objects.filter(pk=job_id, state=ExportJob.State.RUNNING).update(
            state=ExportJob.State.FAILED,
            error=f"{type(error).__name__}: {error}"[:2000],
            finished_at=timezone.now(),
        )
        return None


def export_jobs_stalled(*, older_than) -> list[int]:
    """Jobs still queued after ``older_than`` (their message was lost, say Redis was down)."""
    return list(
        ExportJob.objects.filter(
            state=ExportJob.State.QUEUED, created_at__lt=timezone.now() - older_than
        ).values_list("pk", flat=True)
    )


def export_file_name(job: ExportJob, name: str) -> str | None:
    """The storage name of one of the job's files, or None when the job has no such file."""
    if job.state != ExportJob.State.DONE or name not in job.files:
        return None
    return str(PurePosixPath(job.folder) / name)


def researcher_create(*, username: str, password: str, email: str = ""):
    """An account in the researchers group: it may use the researcher page and the API."""
    with transaction.atomic():
        user = get_user_model().objects.create_user(
            username=username, password=password, email=email
        )
        user.groups.add(Group.objects.get_or_create(name=RESEARCHERS_GROUP)[0])
    return user


def researcher_token_reset(*, user) -> Token:
    """A new API token for ``user``; the old one, if any, stops working at once. The token's
    ``replaced`` says whether there was an old one, so the page tells a first token apart."""
    with transaction.atomic():
        replaced, _ = Token.objects.filter(user=user).delete()
        token = Token.objects.create(user=user)
    token.replaced = bool(replaced)
    return token


def system_score_job_create(*, user, systems: list[dict], parameters: dict) -> SystemScoreJob:
    """Record a scoring job for ``user`` and queue it once the record is committed. Nothing is
    scored here: a Celery worker does it (``system_score_job_run``). If the broker is down the
    job stays queued and the periodic sweep queues it later."""
    with transaction.atomic():
        job = SystemScoreJob.objects.create(
            requested_by=user, systems=systems, parameters=parameters
        )
        enqueue("research.tasks.run_system_score_job", job.pk)
    return job


def system_score_job_run(*, job_id: int) -> bool:
    """Score job ``job_id``; safe to call twice or at the same time (one caller claims it).
    Returns False when there was nothing to do. A job over the work limit, or whose baseline
    scored nothing, ends failed with the reason."""
    return report_compute(SystemScoreJob, report_id=job_id, compute=_system_scores)


def system_score_jobs_stalled(*, older_than) -> list[int]:
    """Jobs queued longer than ``older_than`` (their message was lost), and jobs whose worker
    died holding them."""
    now = timezone.now()
    return list(
        SystemScoreJob.objects.filter(pending())
        .filter(requested_at__lt=now - older_than)
        .values_list("pk", flat=True)
    )


def correlation_report_create(
    *, user, name: str, ratings_csv: str, parameters: dict
) -> CorrelationReport:
    """Record a ratings analysis for ``user`` (the file and parameters already checked by
    ``research.correlation.correlation_parameters``) and queue it once committed. Nothing is
    computed here; if the broker is down the periodic sweep queues it later."""
    with transaction.atomic():
        report = CorrelationReport.objects.create(
            requested_by=user, name=name, ratings_csv=ratings_csv, parameters=parameters
        )
        enqueue("research.tasks.run_correlation_report", report.pk)
    return report


def correlation_report_run(*, report_id: int) -> bool:
    """Analyse report ``report_id``; safe to call twice or at the same time (one caller
    claims it). Returns False when there was nothing to do."""
    return report_compute(
        CorrelationReport,
        report_id=report_id,
        compute=lambda report: correlation_from_parameters(
            text=report.ratings_csv, name=report.name, parameters=report.parameters
        ),
    )


def correlation_reports_stalled(*, older_than) -> list[int]:
    """Reports queued longer than ``older_than`` (their message was lost), and reports whose
    worker died holding them."""
    now = timezone.now()
    return list(
        CorrelationReport.objects.filter(pending())
        .filter(requested_at__lt=now - older_than)
        .values_list("pk", flat=True)
    )


def correlation_combined_store(*, report: CorrelationReport):
    """Make the centre and slope a finished report fitted (to overall ratings, or its only
    dimension) the site's combined-score parameters. ValueError when it has none. A report
    analyses every rating of its file, so the setting records that it learned from every side
    of the split (``correlate_ratings --store-combined`` fits on train clusters only)."""
    if report.state != CorrelationReport.State.DONE or not report.result:
        raise ValueError("the analysis is not finished")
    dimension, fit = combined_fit(report.result)
    if fit["centre"] is None:
        raise ValueError(f"the combined score could not be fitted to {dimension}")
    return combined_setting_store(
        centre=fit["centre"],
        slope=fit["slope"],
        dimension=dimension,
        pairs=report.result["pairs"],
        held_out_correlation=fit["out_of_fold"],
        learned_from=[_every_side(report).as_dict()],
    )


def _every_side(report: CorrelationReport) -> LearnedFrom:
    records, _ = ratings_from_text(report.ratings_csv, name=report.name)
    every_side = LearningSplits(splits=SPLITS)
    return ratings_on_splits(records, every_side, "combined score's ratings").learned_from


def _system_scores(job: SystemScoreJob) -> dict:
    parameters = job.parameters
    return systems_compare(
        systems=[
            SystemOutputs(
                name=system["name"],
                pairs=[
                    SystemPair(source=source, output=output, segment_id=segment_id)
                    for source, output, segment_id in system["pairs"]
                ],
                learned_from=[
                    LearnedFrom.from_dict(record) for record in system.get("learned_from", [])
                ],
            )
            for system in job.systems
        ],
        baseline=parameters["baseline"],
        corpus_filter=CorpusFilter.from_dict(parameters["filter"]),
        split=SplitOptions(**parameters["split"]),
        centre=parameters["centre"],
        slope=parameters["slope"],
        samples=parameters["samples"],
        seed=parameters["bootstrap_seed"],
        per_pair=parameters["per_pair"],
        work_limit=settings.SYSTEM_SCORE_WORK_LIMIT,
    )
