"""Export jobs (a researcher's export, run in the background, with its files kept in storage),
system-scoring jobs, and human ratings of paraphrases."""

from django.conf import settings
from django.db import models
from django.db.models import F, Q
from django.utils import timezone

from crowd.models import Offered, Reviewed, ReviewedQuerySet
from paracrowd.reports import Report
from paracrowd.wording import shortened

from .exports import FORMATS
from .system_comparison import comparison_forest, comparison_table, comparison_warning


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

    @property
    def forest(self) -> list:
        """The result's differences from the baseline as forest plots (empty until done)."""
        return comparison_forest(self.result) if self.result else []

    @property
    def warning(self) -> str | None:
        """The small-sample warning its statistics must be shown with, if any."""
        return comparison_warning(self.result) if self.result else None


class RatingBatch(models.Model):
    """Paraphrases to be rated by human judges, as Chen & Dolan (2011, §5) rated their
    systems' outputs: each item is a source sentence and a candidate paraphrase of it, and each
    judge rates semantic equivalence, dissimilarity and overall quality from 1 to 4.

    Every item is offered in Tier 1 only, as one HIT wanting ``judges`` ratings: Tier 1 is
    open to every worker (Tier-2 workers too), so an item gets exactly ``judges`` judges,
    never twice as many as two tiers would give it."""

    class Origin(models.TextChoices):
        SYSTEM = "system", "A system's outputs"
        CORPUS = "corpus", "Pairs of descriptions from the corpus"
        UPLOAD = "upload", "An uploaded file"

    name = models.CharField(max_length=200)
    origin = models.CharField(max_length=10, choices=Origin.choices)
    # The paraphrase system whose outputs are rated ("human" for corpus pairs).
    system = models.CharField(max_length=100, blank=True)
    judges = models.PositiveSmallIntegerField(default=2)
    language = models.CharField(max_length=16)
    # Show judges the video of the item's cluster beside the sentences.
    show_video = models.BooleanField(default=False)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="rating_batches"
    )
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [
            models.CheckConstraint(
                condition=Q(judges__gte=1, judges__lte=10), name="rating_batch_judges_1_to_10"
            ),
            models.CheckConstraint(condition=~Q(name=""), name="rating_batch_has_a_name"),
        ]

    def __str__(self):
        return self.name


class RatingItem(Offered):
    """One candidate paraphrase of one source sentence, offered to judges through a HIT. The
    segment, when known, is the cluster the source belongs to: its descriptions are the
    references, and its video may be shown to the judge."""

    batch = models.ForeignKey(RatingBatch, on_delete=models.CASCADE, related_name="items")
    source = models.TextField()
    candidate = models.TextField()
    segment = models.ForeignKey(
        "collector.Segment", null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )

    class Meta:
        constraints = [
            models.CheckConstraint(
                condition=~Q(source="") & ~Q(candidate=""), name="rating_item_has_text"
            )
        ]

    def __str__(self):
        return f"{shortened(self.source, 40)} → {shortened(self.candidate, 40)}"


RATING_RANGE = (
    Q(semantic__gte=1, semantic__lte=4)
    & Q(dissimilarity__gte=1, dissimilarity__lte=4)
    & Q(overall__gte=1, overall__lte=4)
)


class RatingQuerySet(ReviewedQuerySet):
    def counted(self):
        """Ratings that count in the figures: accepted and those waiting for review."""
        return self.exclude(status=Rating.Status.REJECTED)

    def misrating_copies(self):
        """Ratings of a candidate that is its source word for word other than as a copy is
        rated (see ``Rating.COPY``): the judge most likely did not read the sentences."""
        return self.filter(item__candidate=F("item__source")).exclude(**Rating.COPY)


class Rating(Reviewed):
    """One judge's three ratings (1–4, 4 best) of one item, submitted through an assignment."""

    review_noun = "ratings"

    DIMENSIONS = ("semantic", "dissimilarity", "overall")
    # A candidate identical to its source keeps the meaning, changes nothing and is no
    # paraphrase at all (Chen & Dolan 2011, §5): the one right answer to a copy.
    COPY = {"semantic": 4, "dissimilarity": 1, "overall": 1}

    item = models.ForeignKey(RatingItem, on_delete=models.CASCADE, related_name="ratings")
    assignment = models.OneToOneField(
        "crowd.Assignment", on_delete=models.PROTECT, related_name="rating"
    )
    worker = models.ForeignKey("crowd.Worker", on_delete=models.PROTECT, related_name="ratings")
    semantic = models.PositiveSmallIntegerField()
    dissimilarity = models.PositiveSmallIntegerField()
    overall = models.PositiveSmallIntegerField()
    created_at = models.DateTimeField(default=timezone.now)

    objects = RatingQuerySet.as_manager()

    class Meta:
        constraints = [
            models.CheckConstraint(condition=RATING_RANGE, name="rating_values_1_to_4"),
            models.UniqueConstraint(fields=["item", "worker"], name="rating_once_per_worker"),
            models.CheckConstraint(
                condition=~Q(status="pending") | Q(reviewed_at__isnull=True),
                name="rating_pending_is_unreviewed",
            ),
        ]
        indexes = [models.Index(fields=["status", "created_at"])]

    def __str__(self):
        values = f"{self.semantic}/{self.dissimilarity}/{self.overall}"
        return f"{self.worker} on item {self.item_id}: {values}"

    @property
    def misrates_a_copy(self) -> bool:
        """Whether this rates a candidate identical to its source other than as ``COPY``."""
        given = {dimension: getattr(self, dimension) for dimension in self.DIMENSIONS}
        return self.item.candidate == self.item.source and given != self.COPY


class CorrelationReport(Report):
    """One ratings file analysed against the metrics (research.correlation), computed by a
    Celery worker on the report-row pattern. The file's text is kept as uploaded (it was
    checked line by line when it came); shown only to whoever asked, and to staff."""

    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="correlation_reports"
    )
    name = models.CharField(max_length=200)
    ratings_csv = models.TextField()
    # The analysis options (AnalysisOptions' fields), the dimension kept (or null), whether
    # the METEOR-style row is computed and how one pair's judges are combined.
    parameters = models.JSONField()

    class Meta(Report.Meta):
        indexes = [models.Index(fields=["requested_by", "-requested_at"])]

    def __str__(self):
        return f"correlation of {self.name} ({self.state})"

    @property
    def consensus(self) -> str:
        """How one pair's judges are combined: "mean" or "dawid-skene" (reports asked for
        before the choice existed averaged them)."""
        return self.parameters.get("consensus", "mean")


class Release(models.Model):
    """A numbered, immutable release of the corpus (research.releases): its files, written once
    to ``location`` by a Celery worker (or by ``manage.py release``), and its manifest. Numbers
    are handed out one at a time and never reused; a release that failed keeps its number and
    is never offered for download. Every researcher sees every release; a public one's files
    anyone may download."""

    class State(models.TextChoices):
        QUEUED = "queued", "Queued"
        RUNNING = "running", "Running"
        DONE = "done", "Done"
        FAILED = "failed", "Failed"

    number = models.PositiveIntegerField(unique=True)
    state = models.CharField(max_length=10, choices=State.choices, default=State.QUEUED)
    # Null when made from the command line without --by.
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="releases",
    )
    created_at = models.DateTimeField(default=timezone.now)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    # ReleaseOptions.as_dict(): the formats, the filter and the split.
    parameters = models.JSONField()
    # The default storage's folder of the files (downloads go through the site), or empty when
    # the files went to a path or URL given to the command: ``releases/<number>-<random>``,
    # unguessable (releases made before that keep ``releases/<number>``).
    folder = models.CharField(max_length=200, blank=True)
    # Where the files are: the storage folder's path or URL, or the command's --output.
    location = models.CharField(max_length=1000, unique=True)
    manifest = models.JSONField(null=True, blank=True)
    error = models.TextField(blank=True)
    # The one thing that may change once a release is made (the database lets nothing else).
    public = models.BooleanField(
        default=False,
        help_text="Anyone, logged in or not, may download the release's files. Otherwise "
        "researchers and staff only.",
    )

    class Meta:
        constraints = [
            models.CheckConstraint(condition=Q(number__gte=1), name="release_number_from_1"),
            models.CheckConstraint(
                condition=Q(state__in=["queued", "running", "done", "failed"]),
                name="release_known_state",
            ),
            models.CheckConstraint(
                condition=~Q(state="done") | Q(manifest__isnull=False, finished_at__isnull=False),
                name="release_done_has_manifest",
            ),
        ]

    def __str__(self):
        return f"release {self.number} ({self.state})"

    @property
    def is_finished(self) -> bool:
        return self.state in (self.State.DONE, self.State.FAILED)

    @property
    def file_names(self) -> list[str]:
        """The release's files, relative to its folder: the manifest's, then the manifest."""
        if self.state != self.State.DONE:
            return []
        return [file["path"] for file in self.manifest["files"]] + ["manifest.json"]


class ReleaseDescription(models.Model):
    """Which descriptions a release holds, and in which split: what the next release's changes
    are counted against. Written with the release, never changed."""

    pk = models.CompositePrimaryKey("release_id", "description_id")
    release = models.ForeignKey(Release, on_delete=models.CASCADE, related_name="+")
    # Not a foreign key: what a release held is kept when a description is deleted later.
    description_id = models.BigIntegerField()
    split = models.CharField(max_length=5)

    def __str__(self):
        return f"description {self.description_id} in {self.split} of release {self.release_id}"
