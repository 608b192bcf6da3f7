"""Computing and storing each worker's signals, and the rule that promotes workers who write
in languages other than English."""

from django.conf import settings
from django.db import transaction
from django.db.models import F, Max, Q
from django.utils import timezone

from collector.models import Description
from crowd import services as crowd
from crowd.models import Qualification, Tier, Worker
from paracrowd.reports import report_compute, report_request
from scoring.models import ClusterScore
from scoring.services import segments_score

from . import reports, text_checks, worker_signals
from .models import DescriptionCheck, OverviewReport, WorkerSignals


def worker_submissions(worker_id: int) -> list[worker_signals.Submission]:
    """Every description of the worker, with its timing, scores, its cluster's means and its
    text checks (computed and stored for descriptions that have none yet)."""
    rows = list(
        Description.objects.filter(worker_id=worker_id)
        .order_by("id")
        .values_list(
            "id",
            "segment_id",
            "text",
            "language",
            "status",
            "time_spent",
            "segment__start",
            "segment__end",
            "score__bleu",
            "score__pinc",
            "text_checks__words",
            "text_checks__misspelt",
            "text_checks__shape",
            "text_checks__language_checked",
            "text_checks__reads_as",
            "text_checks__version",
            "assignment__campaign__languages",
            "typing_signals",
        )
    )
    clusters = {
        (segment_id, language): (bleu, pinc)
        for segment_id, language, bleu, pinc in ClusterScore.objects.filter(
            segment__descriptions__worker_id=worker_id
        )
        .distinct()
        .values_list("segment_id", "language", "mean_bleu", "mean_pinc")
    }
    submissions, unchecked = [], []
    for row in rows:
        pk, segment_id, text, language, status, spent, start, end, bleu, pinc = row[:10]
        words, misspelt, shape, language_checked, reads_as, version, asked, typing = row[10:]
        checks = None
        if version == text_checks.CHECKS_VERSION:
            checks = text_checks.TextChecks(
                words=words,
                misspelt=None if misspelt is None else tuple(misspelt),
                shape=tuple(tuple(problem) for problem in shape),
                language_checked=language_checked,
                reads_as=reads_as,
            )
        else:
            checks = text_checks.text_checks(text, language)
            unchecked.append((pk, checks))
        cluster_bleu, cluster_pinc = clusters.get((segment_id, language), (None, None))
        submissions.append(
            worker_signals.Submission(
                id=pk,
                segment_id=segment_id,
                text=text,
                language=language,
                status=status,
                seconds=spent.total_seconds() if spent is not None else None,
                segment_seconds=float(end - start),
                bleu=bleu,
                pinc=pinc,
                cluster_bleu=cluster_bleu,
                cluster_pinc=cluster_pinc,
                checks=checks,
                asked=tuple(asked or ()),
                typing=tuple(typing),
            )
        )
    _checks_store(unchecked)
    return submissions


def _checks_store(computed) -> None:
    DescriptionCheck.objects.bulk_create(
        [
            DescriptionCheck(
                description_id=pk,
                words=checks.words,
                misspelt=None if checks.misspelt is None else list(checks.misspelt),
                shape=[list(problem) for problem in checks.shape],
                language_checked=checks.language_checked,
                reads_as=checks.reads_as,
                version=text_checks.CHECKS_VERSION,
            )
            for pk, checks in computed
        ],
        update_conflicts=True,
        unique_fields=["description"],
        update_fields=["words", "misspelt", "shape", "language_checked", "reads_as", "version"],
        batch_size=2000,
    )


def worker_signals_refresh(*, worker_id: int) -> WorkerSignals | None:
    """Recompute and store one worker's signals; safe to run twice or concurrently (one
    refresh per worker at a time, the later one waits and stores the newer figures).

    Any of their descriptions not scored yet are scored first, so that BLEU and PINC include
    the latest submission. Then the rule for other languages may promote them. None when the
    worker has written nothing.
    """
    unscored = list(
        Description.objects.filter(worker_id=worker_id, score__isnull=True)
        .exclude(status=Description.Status.REJECTED)
        .values_list("segment_id", flat=True)
        .distinct()
    )
    if unscored:
        segments_score(segment_ids=unscored)
    if not Description.objects.filter(worker_id=worker_id).exists():
        return None
    WorkerSignals.objects.get_or_create(worker_id=worker_id, defaults={"descriptions": 0})
    with transaction.atomic():
        stored = WorkerSignals.objects.select_for_update().get(worker_id=worker_id)
        submissions = worker_submissions(worker_id)
        computed = worker_signals.worker_signals(submissions)
        for signal in computed:
            setattr(stored, WorkerSignals.COLUMNS[signal.key], signal.value)
        by_key = {signal.key: signal for signal in computed}
        stored.cluster_mean_bleu = _mean(s.cluster_bleu for s in submissions)
        stored.cluster_mean_pinc = _mean(s.cluster_pinc for s in submissions)
        stored.descriptions = len(submissions)
        stored.languages = worker_signals.declared_languages(submissions)
        stored.flags = [signal.key for signal in computed if signal.flagged]
        stored.details = {
            signal.key: {"explanation": signal.explanation, "examples": signal.examples}
            for signal in computed
        }
        stored.through_description = max(s.id for s in submissions)
        stored.computed_at = timezone.now()
        stored.save()
        _promote_other_language_writer(worker_id, stored, by_key["language"])
    return stored


def _mean(values):
    values = [v for v in values if v is not None]
    return sum(values) / len(values) if values else None


def _promote_other_language_writer(worker_id: int, stored: WorkerSignals, language_signal):
    """The study promoted everyone who wrote in a language other than English, whose quality
    it could not judge. So do we, unless the setting is off, the worker also writes English,
    language identification doubts their declared language, or an admin has demoted or
    blocked them (a person's judgement wins over the rule)."""
    if not settings.AUTO_PROMOTE_OTHER_LANGUAGES:
        return
    if stored.descriptions < settings.AUTO_PROMOTE_AFTER or language_signal.flagged:
        return
    if any(text_checks.language_code(language) == "en" for language in stored.languages):
        return
    worker = Worker.objects.get(pk=worker_id)
    if worker.blocked_at or worker.current_tier == Tier.TWO:
        return
    if Qualification.objects.filter(worker=worker, tier=Tier.TWO).exists():
        return  # granted before and revoked by an admin
    names = ", ".join(
        text_checks.language_name(text_checks.language_code(language) or language)
        for language in stored.languages
    )
    crowd.qualification_grant(
        worker=worker,
        tier=Tier.TWO,
        granted_by=None,
        reason=f"Writes in {names}, not English: promoted by the rule for other languages, "
        "as in the original study.",
    )


def workers_with_stale_signals(*, limit: int) -> list[int]:
    """Workers with a description newer, reviewed later or scored later than their stored
    signals. Scores arrive after the signals a submission refreshes (scoring runs on its own),
    and every new description of a segment rescores its whole cluster."""
    workers = (
        Worker.objects.annotate(
            newest=Max("descriptions__id"),
            last_review=Max("descriptions__reviewed_at"),
            last_scored=Max("descriptions__score__computed_at"),
        )
        .filter(newest__isnull=False)
        .filter(
            Q(signals__isnull=True)
            | Q(newest__gt=F("signals__through_description"))
            | Q(last_review__gt=F("signals__computed_at"))
            | Q(last_scored__gt=F("signals__computed_at"))
        )
        .order_by("pk")
        .values_list("pk", flat=True)
    )
    return list(workers[:limit])


def overview_report_request(*, period: reports.Period) -> OverviewReport:
    """The overview report of the period, created or queued again, with its computation
    queued for a Celery worker (on commit). A report being computed is left to finish."""
    return report_request(
        OverviewReport,
        task="review.tasks.compute_overview",
        since=period.since,
        until=period.until,
    )


def overview_report_compute(*, report_id: int) -> bool:
    """Compute a queued overview report and store its figures with the time taken. Returns
    False when it is done already or another worker holds it."""

    def figures(report: OverviewReport) -> dict:
        return reports.collection_overview(period=reports.Period(report.since, report.until))

    return report_compute(OverviewReport, report_id=report_id, compute=figures)
