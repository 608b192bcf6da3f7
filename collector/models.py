"""What is collected: segments of video, uploaded video files, segment proposals and
descriptions. Who did the work, in which tier and for how much lives in ``crowd``."""

from django.conf import settings
from django.contrib.postgres.fields import ArrayField
from django.db import models
from django.db.models import F, Q
from django.utils import timezone

from crowd.models import Assignment, Offered, Reviewed, ReviewedQuerySet, Tier, Worker
from paracrowd.wording import shortened

from .provenance import UNKNOWN, TypingRecord, typing_signals


def unknown_typing() -> list[str]:
    return [UNKNOWN]


class TypedText(models.Model):
    """A text a worker typed on a task page, with how it came into the box
    (``collector.provenance``): the page's counts, all null when the page sent none
    (JavaScript off, or imported work), and the signals judged from them when it was stored.
    No key itself is ever recorded."""

    typing_key_presses = models.PositiveIntegerField(null=True, blank=True)
    typing_pastes = models.PositiveIntegerField(null=True, blank=True)
    typing_pasted_characters = models.PositiveIntegerField(null=True, blank=True)
    typing_first_key_ms = models.PositiveIntegerField(null=True, blank=True)
    typing_writing_ms = models.PositiveIntegerField(null=True, blank=True)
    typing_focus_losses = models.PositiveIntegerField(null=True, blank=True)
    typing_background_ms = models.PositiveIntegerField(null=True, blank=True)
    typing_input_method_characters = models.PositiveIntegerField(null=True, blank=True)
    # Counted since: null (unknown) also in a record from a page that did not count them.
    typing_prompt_copies = models.PositiveIntegerField(null=True, blank=True)
    typing_pastes_after_copy = models.PositiveIntegerField(null=True, blank=True)
    typing_inserted_without_keys = models.PositiveIntegerField(null=True, blank=True)
    typing_untrusted_events = models.PositiveIntegerField(null=True, blank=True)
    typing_webdriver = models.PositiveIntegerField(null=True, blank=True)
    typing_left_after_copy = models.PositiveIntegerField(null=True, blank=True)
    typing_key_intervals = models.PositiveIntegerField(null=True, blank=True)
    typing_key_interval_variation = models.PositiveIntegerField(null=True, blank=True)
    # Keys of provenance.SIGNALS; empty: nothing looked wrong; ["unknown"]: no record.
    typing_signals = ArrayField(models.CharField(max_length=20), default=unknown_typing)

    class Meta:
        abstract = True

    @staticmethod
    def typing_values(record: TypingRecord | None, text: str, *, canary: bool = False) -> dict:
        """The fields that store ``record`` of ``text``, with its signals (``canary``: the
        text holds the task's invisible marker, see ``collector.canary``)."""
        names = TypingRecord.field_names()
        values = {
            f"typing_{name}": None if record is None else getattr(record, name) for name in names
        }
        return {**values, "typing_signals": typing_signals(record, text, canary=canary)}

    @property
    def typing_record(self) -> TypingRecord | None:
        return TypingRecord.from_stored(self)

    @property
    def typing_flagged(self) -> bool:
        """Whether any signal other than ``unknown`` was raised."""
        return any(signal != UNKNOWN for signal in self.typing_signals)


def typing_recorded_together(prefix: str) -> models.CheckConstraint:
    """The page's counts are stored all together or not at all (those counted later may be
    unknown in a record)."""
    names = [f"typing_{name}" for name in TypingRecord.always_recorded()]
    return models.CheckConstraint(
        condition=Q(**{f"{name}__isnull": True for name in names})
        | Q(**{f"{name}__isnull": False for name in names}),
        name=f"{prefix}_typing_recorded_together",
    )


class Segment(Offered):
    """A stretch of one video: a YouTube video or a hosted file, from ``start`` to ``end``."""

    class Source(models.TextChoices):
        YOUTUBE = "youtube", "YouTube"
        FILE = "file", "Hosted file"

    source = models.CharField(max_length=10, choices=Source.choices)
    youtube_id = models.CharField(max_length=11, blank=True)
    video_file = models.FileField(upload_to="videos/", blank=True)
    start = models.DecimalField(max_digits=8, decimal_places=2, help_text="seconds")
    end = models.DecimalField(max_digits=8, decimal_places=2, help_text="seconds")
    title = models.CharField(max_length=200, blank=True)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [
            models.CheckConstraint(
                condition=Q(start__gte=0) & Q(end__gt=F("start")), name="segment_end_after_start"
            ),
            models.CheckConstraint(
                condition=(Q(source="youtube") & ~Q(youtube_id=""))
                | (Q(source="file") & ~Q(video_file="")),
                name="segment_has_its_video",
            ),
            models.UniqueConstraint(
                fields=["youtube_id", "start", "end"],
                condition=Q(source="youtube"),
                name="segment_unique_youtube_span",
            ),
        ]
        indexes = [models.Index(fields=["youtube_id"])]

    def __str__(self):
        return f"{self.video_label} {self.start}–{self.end}s"

    @property
    def video_label(self) -> str:
        if self.source == self.Source.YOUTUBE:
            return self.youtube_id
        return self.video_file.name.rsplit("/", 1)[-1]

    @property
    def length(self):
        return self.end - self.start


class VideoFile(models.Model):
    """A video uploaded by an admin, kept in the default storage (local media or S3). Segments
    cut from it point at the same stored file."""

    file = models.FileField(upload_to="videos/")
    title = models.CharField(max_length=200)
    uploaded_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    uploaded_at = models.DateTimeField(default=timezone.now)

    def __str__(self):
        return self.title

    @property
    def segments(self):
        return Segment.objects.filter(source=Segment.Source.FILE, video_file=self.file.name)


class SegmentProposal(Reviewed):
    """A worker's proposed segment of a YouTube video, and the review it got.

    Acceptance creates the Segment (offered for description) and records the pay for the
    proposer's tier; rejection records the reasons. Never deleted: rejected proposals stay.
    """

    review_noun = "proposals"
    # A proposal enters the corpus only once a person has watched it.
    review_auto_accept = False

    class Reason(models.TextChoices):
        # The study's criteria for a usable segment.
        NOT_ONE_EVENT = "not_one_event", "Not a single, clear, unambiguous event"
        TEXT = "text", "Subtitles or other text on screen"
        LANGUAGE_OR_CULTURE = "language", "Needs a particular language or culture to understand"
        INAPPROPRIATE = "inappropriate", "Inappropriate content"
        TIMING = "timing", "Start or end misses the event"
        UNPLAYABLE = "unplayable", "Video unavailable or cannot be embedded"

    assignment = models.OneToOneField(Assignment, on_delete=models.PROTECT, related_name="proposal")
    worker = models.ForeignKey(Worker, on_delete=models.PROTECT, related_name="proposals")
    tier = models.PositiveSmallIntegerField(choices=Tier.choices)
    youtube_id = models.CharField(max_length=11)
    start = models.DecimalField(max_digits=8, decimal_places=2, help_text="seconds")
    end = models.DecimalField(max_digits=8, decimal_places=2, help_text="seconds")
    event = models.CharField(max_length=200, help_text="the event, in the proposer's words")
    time_spent = models.DurationField(null=True, blank=True)
    created_at = models.DateTimeField(default=timezone.now)

    reasons = ArrayField(
        models.CharField(max_length=20, choices=Reason.choices), default=list, blank=True
    )
    # What the proposer earns, in cents at their tier's rate when it was approved; 0 if rejected.
    pay_cents = models.PositiveIntegerField(null=True, blank=True)
    segment = models.OneToOneField(
        Segment, null=True, blank=True, on_delete=models.PROTECT, related_name="proposal"
    )

    class Meta:
        constraints = [
            models.CheckConstraint(
                condition=Q(start__gte=0) & Q(end__gt=F("start")), name="proposal_end_after_start"
            ),
            models.CheckConstraint(
                condition=Q(youtube_id__regex=r"^[A-Za-z0-9_-]{11}$"),
                name="proposal_youtube_id_well_formed",
            ),
            # A span is proposed once, whatever became of it.
            models.UniqueConstraint(
                fields=["youtube_id", "start", "end"], name="proposal_unique_span"
            ),
            models.CheckConstraint(
                condition=(
                    Q(
                        status="pending",
                        reviewed_at__isnull=True,
                        pay_cents__isnull=True,
                        segment__isnull=True,
                    )
                    | Q(
                        status="accepted",
                        reviewed_at__isnull=False,
                        pay_cents__isnull=False,
                        segment__isnull=False,
                    )
                    | (
                        Q(
                            status="rejected",
                            reviewed_at__isnull=False,
                            pay_cents=0,
                            segment__isnull=True,
                        )
                        & (~Q(reasons=[]) | ~Q(review_reason=""))
                    )
                ),
                name="proposal_review_recorded",
            ),
        ]
        # proposal_unique_span's index serves look-ups by video.
        indexes = [
            models.Index(fields=["status", "created_at"]),
            models.Index(fields=["worker", "status"]),
        ]

    def __str__(self):
        return f"{self.youtube_id} {self.start}–{self.end}s ({self.status})"

    @property
    def length(self):
        return self.end - self.start

    def get_reasons_display(self) -> list[str]:
        labels = dict(self.Reason.choices)
        return [labels.get(reason, reason) for reason in self.reasons]

    @property
    def reasons_text(self) -> str:
        """The ticked reasons as the sentence a rejection without a note gives the worker."""
        return "; ".join(self.get_reasons_display()) + "." if self.reasons else ""

    @property
    def review_note(self) -> str:
        """The reviewer's own words, when the reason is not just the ticked reasons."""
        return "" if self.review_reason == self.reasons_text else self.review_reason


class Description(Reviewed, TypedText):
    """One worker's one-sentence description of a segment; a member of the segment's cluster."""

    review_noun = "descriptions"

    segment = models.ForeignKey(Segment, on_delete=models.PROTECT, related_name="descriptions")
    # Imported descriptions have no assignment; collected ones have exactly one.
    assignment = models.OneToOneField(
        Assignment, null=True, blank=True, on_delete=models.PROTECT, related_name="description"
    )
    worker = models.ForeignKey(
        Worker, null=True, blank=True, on_delete=models.PROTECT, related_name="descriptions"
    )
    # Null for imported descriptions whose tier the source does not record.
    tier = models.PositiveSmallIntegerField(choices=Tier.choices, null=True, blank=True)
    text = models.TextField()
    language = models.CharField(max_length=40)
    comment = models.TextField(blank=True)
    time_spent = models.DurationField(null=True, blank=True)
    created_at = models.DateTimeField(default=timezone.now)
    # Where an imported description came from (format, file, line). Imports match descriptions
    # by content (collector.corpus_import), so two files may share a name.
    import_key = models.CharField(max_length=100, blank=True)

    class Meta:
        constraints = [
            models.CheckConstraint(
                condition=~Q(status="pending") | Q(reviewed_at__isnull=True),
                name="description_pending_is_unreviewed",
            ),
            typing_recorded_together("description"),
        ]
        indexes = [
            models.Index(fields=["segment", "status"]),
            models.Index(fields=["worker", "status"]),
            models.Index(fields=["status", "created_at"]),
            models.Index(fields=["created_at"]),
        ]

    def __str__(self):
        return shortened(self.text, 60)


class ParaphraseSource(Offered):
    """A sentence offered for direct paraphrasing (Chen & Dolan 2011, §5.3): workers read it
    and write the same meaning in their own words, without seeing any video.

    A sentence chosen from the corpus keeps the description (and so the segment) it came from,
    which is what lets its paraphrases be compared with the segment's other descriptions; an
    uploaded sentence has neither.
    """

    class Origin(models.TextChoices):
        CORPUS = "corpus", "A description from the corpus"
        UPLOAD = "upload", "Uploaded"

    origin = models.CharField(max_length=10, choices=Origin.choices)
    text = models.TextField()
    language = models.CharField(max_length=40)
    description = models.OneToOneField(
        Description,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="paraphrase_source",
    )
    segment = models.ForeignKey(
        Segment,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="paraphrase_sources",
    )
    chosen_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [
            models.CheckConstraint(
                condition=Q(origin="corpus", description__isnull=False, segment__isnull=False)
                | Q(origin="upload", description__isnull=True, segment__isnull=True),
                name="paraphrase_source_origin_recorded",
            ),
            # Uploading the same file again offers nothing twice.
            models.UniqueConstraint(
                fields=["text", "language"],
                condition=Q(origin="upload"),
                name="paraphrase_source_upload_once",
            ),
            # The comparison with video descriptions takes one sentence per segment.
            models.UniqueConstraint(
                fields=["segment"],
                condition=Q(segment__isnull=False),
                name="paraphrase_source_one_per_segment",
            ),
            models.CheckConstraint(condition=~Q(text=""), name="paraphrase_source_has_text"),
        ]

    def __str__(self):
        return shortened(self.text, 60)


class ParaphraseQuerySet(ReviewedQuerySet):
    def counted(self):
        """Paraphrases that take part in scores and comparisons: all but rejected ones."""
        return self.exclude(status=Paraphrase.Status.REJECTED)


class Paraphrase(Reviewed, TypedText):
    """One worker's paraphrase of a ``ParaphraseSource``, and its PINC against the source once
    a Celery worker has computed it."""

    review_noun = "paraphrases"

    source = models.ForeignKey(
        ParaphraseSource, on_delete=models.PROTECT, related_name="paraphrases"
    )
    assignment = models.OneToOneField(
        Assignment, on_delete=models.PROTECT, related_name="paraphrase"
    )
    worker = models.ForeignKey(Worker, on_delete=models.PROTECT, related_name="paraphrases")
    tier = models.PositiveSmallIntegerField(choices=Tier.choices)
    text = models.TextField()
    language = models.CharField(max_length=40)
    time_spent = models.DurationField(null=True, blank=True)
    created_at = models.DateTimeField(default=timezone.now)
    # PINC (0-100) of the paraphrase against its source; null until scored.
    pinc = models.FloatField(null=True, blank=True)
    pinc_signature = models.CharField(max_length=200, blank=True)
    scored_at = models.DateTimeField(null=True, blank=True)

    objects = ParaphraseQuerySet.as_manager()

    class Meta:
        constraints = [
            # Two versions by one person are not two independent paraphrases.
            models.UniqueConstraint(fields=["source", "worker"], name="paraphrase_once_per_worker"),
            models.CheckConstraint(
                condition=~Q(status="pending") | Q(reviewed_at__isnull=True),
                name="paraphrase_pending_is_unreviewed",
            ),
            models.CheckConstraint(
                condition=Q(pinc__isnull=True) | Q(pinc__gte=0, pinc__lte=100),
                name="paraphrase_pinc_in_range",
            ),
            typing_recorded_together("paraphrase"),
        ]
        indexes = [
            models.Index(fields=["status", "created_at"]),
            models.Index(fields=["worker", "status"]),
            models.Index(fields=["scored_at"]),
        ]

    def __str__(self):
        return shortened(self.text, 60)
