"""Export jobs: a researcher's export, run in the background, with its files kept in storage."""

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone

from paracrowd.reports import Report

from .exports import FORMATS
from .system_comparison import comparison_table


class ExportJob(models.Model):
    """One export asked for through the API or the researcher page. The row carries the
    state (queued → running → done or failed); the files live under ``folder`` in the
    default storage and are handed out only to whoever asked, and to staff."""

    class State(models.TextChoices):
        QUEUED = "queued", "Queued"
        RUNNING = "running", "Running"
        DONE = "done", "Done"
        FAILED = "failed", "Failed"

    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="export_jobs"
    )
    format = models.CharField(max_length=20, choices=[(name, name) for name in FORMATS])
    # ExportOptions.as_dict(): the filter, pairs per sentence, seed and test fraction.
    parameters = models.JSONField()
    state = models.CharField(max_length=10, choices=State.choices, default=State.QUEUED)
    # Storage folder of the files: random, so a name never says whose export it is.
    folder = models.CharField(max_length=100, unique=True)
    # Names of the files written, relative to ``folder``.
    files = models.JSONField(default=list, blank=True)
    report = models.JSONField(null=True, blank=True)
    error = models.TextField(blank=True)
    created_at = models.DateTimeField(default=timezone.now)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.CheckConstraint(
                condition=Q(state__in=["queued", "running", "done", "failed"]),
                name="export_job_known_state",
            ),
            models.CheckConstraint(
                condition=Q(state__in=["done", "failed"], finished_at__isnull=False)
                | Q(~Q(state__in=["done", "failed"]), finished_at__isnull=True),
                name="export_job_finished_when_done_or_failed",
            ),
        ]
        indexes = [models.Index(fields=["requested_by", "-created_at"])]

    def __str__(self):
        return f"{self.format} export {self.pk} ({self.state})"

    @property
    def is_finished(self) -> bool:
        return self.state in (self.State.DONE, self.State.FAILED)


class SystemScoreJob(Report):
    """One request to score paraphrase systems (one, or several side by side), computed by a
    Celery worker on the report-row pattern (paracrowd.reports): the row carries the state,
    the worker claims it by a conditional update, and a claim whose worker died is retaken.
    Shown only to whoever asked, and to staff."""

    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="system_score_jobs"
    )
    # The filter, split options, combined-score centre and slope, baseline, bootstrap samples
    # and seed, and whether per-pair scores are kept.
    parameters = models.JSONField()
    # [{"name": …, "pairs": [[source, output, segment_id or null], …]}, …]
    systems = models.JSONField()

    class Meta(Report.Meta):
        indexes = [models.Index(fields=["requested_by", "-requested_at"])]

    def __str__(self):
        return f"system scores {self.pk} ({self.state})"

    @property
    def system_names(self) -> list[str]:
        return [system["name"] for system in self.systems]

    @property
    def table(self) -> list[dict]:
        """The result as the research page's rows (empty until done)."""
        return comparison_table(self.result) if self.result else []


class CorrelationReport(Report):
    """One ratings file analysed against the metrics (research.correlation), computed by a
    Celery worker on the report-row pattern. The file's text is kept as uploaded (it was
    checked line by line when it came); shown only to whoever asked, and to staff."""

    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="correlation_reports"
    )
    name = models.CharField(max_length=200)
    ratings_csv = models.TextField()
    # The analysis options (AnalysisOptions' fields), the dimension kept (or null) and
    # whether the METEOR-style row is computed.
    parameters = models.JSONField()

    class Meta(Report.Meta):
        indexes = [models.Index(fields=["requested_by", "-requested_at"])]

    def __str__(self):
        return f"correlation of {self.name} ({self.state})"
