"""What the qualification queue shows about each worker, computed in the background.

One row per worker who has written anything, refreshed by a Celery task after each of their
submissions and after each review of their work. The figures are kept as columns so that the
queue can sort and filter on them; ``details`` holds, per signal, its plain-language
explanation and a few example descriptions.
"""

from django.contrib.postgres.fields import ArrayField
from django.contrib.postgres.indexes import GinIndex
from django.db import models
from django.utils import timezone

from paracrowd.reports import Report


class WorkerSignals(models.Model):
    worker = models.OneToOneField(
        "crowd.Worker", on_delete=models.CASCADE, primary_key=True, related_name="signals"
    )
    descriptions = models.PositiveIntegerField()
    # Declared languages, the most used first.
    languages = ArrayField(models.CharField(max_length=40), default=list)
    # Each rate is a fraction (0–1) of what could be checked; null when nothing could be.
    spelling_error_rate = models.FloatField(null=True)
    shape_problem_rate = models.FloatField(null=True)
    language_mismatch_rate = models.FloatField(null=True)
    duplicate_rate = models.FloatField(null=True)
    mean_bleu = models.FloatField(null=True)
    cluster_mean_bleu = models.FloatField(null=True)
    mean_pinc = models.FloatField(null=True)
    cluster_mean_pinc = models.FloatField(null=True)
    # Median of time spent ÷ segment length: below 1, the segment cannot have been watched.
    median_time_ratio = models.FloatField(null=True)
    # Of their descriptions with a typing record, the share flagged (collector.provenance).
    typing_flag_rate = models.FloatField(null=True)
    rejection_rate = models.FloatField(null=True)
    # Keys of the signals that look wrong (see review.worker_signals.SIGNALS).
    flags = ArrayField(models.CharField(max_length=20), default=list)
    details = models.JSONField(default=dict)
    # The newest description taken into account.
    through_description = models.BigIntegerField(default=0)
    computed_at = models.DateTimeField(default=timezone.now)

    # Signal key (review.worker_signals.SIGNALS) → the column holding its figure.
    COLUMNS = {
        "spelling": "spelling_error_rate",
        "shape": "shape_problem_rate",
        "language": "language_mismatch_rate",
        "duplicates": "duplicate_rate",
        "bleu": "mean_bleu",
        "pinc": "mean_pinc",
        "speed": "median_time_ratio",
        "typing": "typing_flag_rate",
        "rejections": "rejection_rate",
    }

    class Meta:
        verbose_name_plural = "worker signals"
        indexes = [
            GinIndex(fields=["flags"], name="worker_signals_flags"),
            GinIndex(fields=["languages"], name="worker_signals_languages"),
        ]

    def __str__(self):
        return f"signals of worker {self.worker_id}"


class DescriptionCheck(models.Model):
    """What the text checks found in one description (review.text_checks.TextChecks),
    kept so that a worker's signals are not recomputed from every sentence again: a text and
    its declared language never change. Rows of an older ``version`` are computed again."""

    description = models.OneToOneField(
        "collector.Description",
        on_delete=models.CASCADE,
        primary_key=True,
        related_name="text_checks",
    )
    words = models.PositiveSmallIntegerField()
    # Null when there is no dictionary for the declared language.
    misspelt = ArrayField(models.CharField(max_length=200), null=True)
    # [kind, note] of each problem with the sentence's shape.
    shape = models.JSONField(default=list)
    language_checked = models.BooleanField()
    reads_as = models.CharField(max_length=10, blank=True)
    version = models.PositiveSmallIntegerField()

    def __str__(self):
        return f"checks of description {self.description_id}"


class OverviewReport(Report):
    """The collection overview (review.reports.collection_overview) for one period of whole
    days, either end open; ``result`` holds its figures. Computed by a Celery worker: the
    all-time overview every few minutes by beat, any period when staff ask for it."""

    since = models.DateField(null=True, blank=True)
    until = models.DateField(null=True, blank=True)

    class Meta(Report.Meta):
        constraints = [
            *Report.Meta.constraints,
            # One report per period, the open ends included (NULL equals NULL here).
            models.UniqueConstraint(
                fields=["since", "until"], nulls_distinct=False, name="overview_report_once"
            ),
        ]

    def __str__(self):
        return f"overview {self.since or '…'} to {self.until or '…'} ({self.state})"


class FailedTask(models.Model):
    """A background task that failed for good: its retries ran out, or its error is not one
    worth retrying. One row per task and arguments, counting how often it failed; a later
    successful run of the same task removes it. Staff see these in the admin (the dead
    letters) and may run them again."""

    task = models.CharField(max_length=200)
    arguments = models.JSONField(default=list)
    # The task and its arguments, hashed: the same work failing again updates its row.
    key = models.CharField(max_length=64, unique=True)
    failures = models.PositiveIntegerField(default=1)
    error = models.TextField()
    first_failed_at = models.DateTimeField(default=timezone.now)
    last_failed_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["-last_failed_at"]

    def __str__(self):
        return f"{self.task}{tuple(self.arguments)!r} failed {self.failures}×"
