"""Segments, workers, tiers, HITs, assignments and descriptions.

Vocabulary follows the crowd platforms: a *HIT type* is a kind of task with its pay; a *HIT* is one
item (a segment) offered in one tier, wanting ``max_assignments`` submissions; an *assignment*
binds one worker to one HIT. The database enforces the two promises the allocator makes: a worker
holds at most one assignment per HIT, and a HIT never records more submissions than its target.
"""

from datetime import timedelta

from django.conf import settings
from django.contrib.postgres.fields import ArrayField
from django.db import models
from django.db.models import Exists, F, OuterRef, Q
from django.utils import timezone


class Tier(models.IntegerChoices):
    ONE = 1, "Tier 1"
    TWO = 2, "Tier 2"


class Segment(models.Model):
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


class WorkerQuerySet(models.QuerySet):
    def with_tier(self):
        """Annotate ``tier``: 2 for holders of an active Tier-2 qualification, else 1."""
        tier2 = Qualification.objects.active().filter(worker=OuterRef("pk"), tier=Tier.TWO)
        return self.annotate(
            tier=models.Case(
                models.When(Exists(tier2), then=models.Value(Tier.TWO)),
                default=models.Value(Tier.ONE),
            )
        )


class Worker(models.Model):
    """Someone who does HITs. Local workers sign up here; platform workers arrive with an id."""

    class Platform(models.TextChoices):
        LOCAL = "local", "Local sign-up"
        MTURK = "mturk", "Mechanical Turk"
        IMPORT = "import", "Imported corpus"

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="worker"
    )
    platform = models.CharField(max_length=10, choices=Platform.choices, default=Platform.LOCAL)
    external_id = models.CharField(max_length=64, blank=True)
    created_at = models.DateTimeField(default=timezone.now)
    # A blocked worker takes no new tasks; who blocked them and why is in the audit log.
    blocked_at = models.DateTimeField(null=True, blank=True)

    objects = WorkerQuerySet.as_manager()

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["platform", "external_id"],
                condition=~Q(external_id=""),
                name="worker_unique_external_id",
            )
        ]

    def __str__(self):
        return self.external_id or self.user.get_username()

    @property
    def current_tier(self) -> int:
        held = Qualification.objects.active().filter(worker=self, tier=Tier.TWO).exists()
        return Tier.TWO if held else Tier.ONE


class QualificationQuerySet(models.QuerySet):
    def active(self):
        return self.filter(revoked_at__isnull=True)


class Qualification(models.Model):
    """A grant of a tier to a worker: who granted it, when and why. Revoked, never deleted."""

    worker = models.ForeignKey(Worker, on_delete=models.CASCADE, related_name="qualifications")
    tier = models.PositiveSmallIntegerField(choices=Tier.choices)
    granted_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    granted_at = models.DateTimeField(default=timezone.now)
    reason = models.TextField()
    revoked_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    revoked_at = models.DateTimeField(null=True, blank=True)
    revoke_reason = models.TextField(blank=True)

    objects = QualificationQuerySet.as_manager()

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["worker", "tier"],
                condition=Q(revoked_at__isnull=True),
                name="qualification_one_active_per_tier",
            )
        ]

    def __str__(self):
        return f"{self.worker} → tier {self.tier}"


class HitType(models.Model):
    """A kind of task with its pay per tier and how long an assignment may be held.

    Each kind's row is created with the study's defaults on first use; admins edit it after.
    """

    class Kind(models.TextChoices):
        DESCRIPTION = "description", "Video description"
        VIDEO_COLLECTION = "video_collection", "Video collection"
        ALIGNMENT = "alignment", "Word alignment"

    kind = models.CharField(max_length=20, choices=Kind.choices, unique=True)
    title = models.CharField(max_length=200)
    pay_tier1_cents = models.PositiveIntegerField()
    pay_tier2_cents = models.PositiveIntegerField()
    # Submissions wanted per item in each tier; copied onto each HIT when it is created.
    target_tier1 = models.PositiveIntegerField()
    target_tier2 = models.PositiveIntegerField()
    assignment_duration = models.DurationField()
    # Work nobody has reviewed after this long is accepted (and paid), as crowd platforms do.
    auto_accept_after = models.DurationField(default=timedelta(days=3))

    # Which field of a HIT holds the item this kind of task is about.
    ITEM_FIELDS = {Kind.DESCRIPTION: "segment", Kind.ALIGNMENT: "sentence_pair"}
    # The study's pay: $0.01 a description in Tier 1, five times that in Tier 2.
    DEFAULTS = {
        Kind.DESCRIPTION: ("Describe a short video segment in one sentence", 1, 5, 20, 20, 15),
        Kind.VIDEO_COLLECTION: ("Find a short segment showing one clear action", 5, 25, 1, 1, 30),
        Kind.ALIGNMENT: ("Align the words of two sentences", 5, 25, 2, 2, 30),
    }

    def __str__(self):
        return self.title

    @classmethod
    def for_kind(cls, kind: str) -> "HitType":
        title, pay1, pay2, target1, target2, minutes = cls.DEFAULTS[kind]
        hit_type, _ = cls.objects.get_or_create(
            kind=kind,
            defaults={
                "title": title,
                "pay_tier1_cents": pay1,
                "pay_tier2_cents": pay2,
                "target_tier1": target1,
                "target_tier2": target2,
                "assignment_duration": timedelta(minutes=minutes),
            },
        )
        return hit_type

    def pay_cents(self, tier: int) -> int:
        return self.pay_tier2_cents if tier == Tier.TWO else self.pay_tier1_cents

    def target(self, tier: int) -> int:
        return self.target_tier2 if tier == Tier.TWO else self.target_tier1


class HitQuerySet(models.QuerySet):
    def open_to(self, worker):
        """HITs under target that ``worker`` has not had and that have room for a new holder."""
        now = timezone.now()
        held = Assignment.objects.filter(hit=OuterRef("pk"), worker=worker)
        in_progress = (
            Assignment.objects.filter(
                hit=OuterRef("pk"), status=Assignment.Status.ASSIGNED, expires_at__gt=now
            )
            .order_by()
            .values("hit")
            .annotate(n=models.Count("pk"))
            .values("n")
        )
        return (
            self.annotate(in_progress=models.functions.Coalesce(models.Subquery(in_progress), 0))
            .filter(submitted_count__lt=F("max_assignments") - F("in_progress"))
            .exclude(Exists(held))
        )


class Hit(models.Model):
    """One item offered in one tier, wanting ``max_assignments`` submissions. The item is a
    segment (description HITs) or a sentence pair (alignment HITs).

    A video-collection HIT has no item to share: the worker brings the video. Each one is opened
    for one worker (``proposer``) when they ask for the task, and takes one proposal.
    """

    hit_type = models.ForeignKey(HitType, on_delete=models.PROTECT, related_name="hits")
    tier = models.PositiveSmallIntegerField(choices=Tier.choices)
    segment = models.ForeignKey(
        Segment, null=True, blank=True, on_delete=models.CASCADE, related_name="hits"
    )
    sentence_pair = models.ForeignKey(
        "annotations.SentencePair",
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="hits",
    )
    proposer = models.ForeignKey(
        "Worker", null=True, blank=True, on_delete=models.PROTECT, related_name="proposal_hits"
    )
    max_assignments = models.PositiveIntegerField()
    submitted_count = models.PositiveIntegerField(default=0)
    created_at = models.DateTimeField(default=timezone.now)

    objects = HitQuerySet.as_manager()

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["hit_type", "tier", "segment"], name="hit_one_per_segment_tier"
            ),
            models.UniqueConstraint(
                fields=["hit_type", "tier", "sentence_pair"], name="hit_one_per_pair_tier"
            ),
            models.CheckConstraint(
                condition=(
                    Q(segment__isnull=False, sentence_pair__isnull=True, proposer__isnull=True)
                    | Q(segment__isnull=True, sentence_pair__isnull=False, proposer__isnull=True)
                    | Q(segment__isnull=True, sentence_pair__isnull=True, proposer__isnull=False)
                ),
                name="hit_has_one_item",
            ),
            models.CheckConstraint(
                condition=Q(proposer__isnull=True) | Q(max_assignments=1),
                name="hit_proposal_takes_one",
            ),
            models.CheckConstraint(
                condition=Q(submitted_count__lte=F("max_assignments")),
                name="hit_never_over_target",
            ),
        ]
        indexes = [models.Index(fields=["hit_type", "tier", "submitted_count", "id"])]

    def __str__(self):
        return f"{self.hit_type.kind} tier {self.tier}: {self.item}"

    @property
    def item(self):
        if self.segment_id:
            return self.segment
        return self.sentence_pair if self.sentence_pair_id else self.proposer

    @property
    def is_full(self) -> bool:
        return self.submitted_count >= self.max_assignments


class Assignment(models.Model):
    """One worker holding one HIT. Never deleted: an expired assignment may still be submitted."""

    class Status(models.TextChoices):
        ASSIGNED = "assigned", "Assigned"
        SUBMITTED = "submitted", "Submitted"
        RETURNED = "returned", "Returned"
        EXPIRED = "expired", "Expired"
        REJECTED = "rejected", "Rejected"

    hit = models.ForeignKey(Hit, on_delete=models.PROTECT, related_name="assignments")
    worker = models.ForeignKey(Worker, on_delete=models.PROTECT, related_name="assignments")
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.ASSIGNED)
    accepted_at = models.DateTimeField(default=timezone.now)
    expires_at = models.DateTimeField()
    submitted_at = models.DateTimeField(null=True, blank=True)
    # The crowd platform's own ids, when the worker came from one.
    external_assignment_id = models.CharField(max_length=64, blank=True)
    external_hit_id = models.CharField(max_length=64, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["worker", "hit"], name="assignment_one_per_worker_hit")
        ]
        indexes = [
            models.Index(fields=["hit", "status", "expires_at"]),
            models.Index(fields=["worker", "status"]),
        ]

    def __str__(self):
        return f"{self.worker} on {self.hit} ({self.status})"

    @property
    def is_expired(self) -> bool:
        return self.status == self.Status.EXPIRED or (
            self.status == self.Status.ASSIGNED and self.expires_at <= timezone.now()
        )


class Description(models.Model):
    """One worker's one-sentence description of a segment; a member of the segment's cluster."""

    class Status(models.TextChoices):
        PENDING = "pending", "Pending review"
        ACCEPTED = "accepted", "Accepted"
        REJECTED = "rejected", "Rejected"

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
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING)
    created_at = models.DateTimeField(default=timezone.now)
    # Position within an imported corpus, so that re-running an import changes nothing.
    import_key = models.CharField(max_length=100, blank=True)
    # The last review: by whom (nobody when accepted automatically), when, and the reason the
    # worker is shown.
    reviewed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    reviewed_at = models.DateTimeField(null=True, blank=True)
    review_reason = models.TextField(blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["import_key"], condition=~Q(import_key=""), name="description_import_once"
            ),
            models.CheckConstraint(
                condition=~Q(status="pending") | Q(reviewed_at__isnull=True),
                name="description_pending_is_unreviewed",
            ),
        ]
        indexes = [
            models.Index(fields=["segment", "status"]),
            models.Index(fields=["worker", "status"]),
            models.Index(fields=["status", "created_at"]),
            models.Index(fields=["created_at"]),
        ]

    def __str__(self):
        return self.text[:60]


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


class SegmentProposalQuerySet(models.QuerySet):
    def pending(self):
        return self.filter(status=SegmentProposal.Status.PENDING)


class SegmentProposal(models.Model):
    """A worker's proposed segment of a YouTube video, and the review it got.

    Approval creates the Segment (offered for description) and records the pay for the
    proposer's tier; rejection records the reasons. Never deleted: rejected proposals stay.
    """

    class Status(models.TextChoices):
        PENDING = "pending", "Pending review"
        APPROVED = "approved", "Approved"
        REJECTED = "rejected", "Rejected"

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

    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING)
    reviewed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    reviewed_at = models.DateTimeField(null=True, blank=True)
    reasons = ArrayField(
        models.CharField(max_length=20, choices=Reason.choices), default=list, blank=True
    )
    review_note = models.TextField(blank=True)
    # What the proposer earns, in cents at their tier's rate when it was approved; 0 if rejected.
    pay_cents = models.PositiveIntegerField(null=True, blank=True)
    segment = models.OneToOneField(
        Segment, null=True, blank=True, on_delete=models.PROTECT, related_name="proposal"
    )

    objects = SegmentProposalQuerySet.as_manager()

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
                        status="approved",
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
                        & (~Q(reasons=[]) | ~Q(review_note=""))
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


class AuditEntry(models.Model):
    """One admin action, or one action of an automatic rule (``actor`` null): who, when, what,
    why. Written by the service that makes the change, in the same transaction. Never edited."""

    class Action(models.TextChoices):
        PROMOTE = "promote", "Promoted"
        DEMOTE = "demote", "Demoted"
        BLOCK = "block", "Blocked"
        UNBLOCK = "unblock", "Unblocked"
        ACCEPT = "accept", "Accepted work"
        REJECT = "reject", "Rejected work"
        BONUS = "bonus", "Paid a bonus"
        PAYOUT = "payout", "Recorded a payout"

    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    at = models.DateTimeField(default=timezone.now)
    action = models.CharField(max_length=10, choices=Action.choices)
    worker = models.ForeignKey(
        Worker, null=True, blank=True, on_delete=models.PROTECT, related_name="audit_entries"
    )
    reason = models.TextField()
    # What exactly changed: the tier, the descriptions reviewed, the amount paid, …
    details = models.JSONField(default=dict, blank=True)

    class Meta:
        constraints = [
            models.CheckConstraint(condition=~Q(reason=""), name="audit_entry_has_a_reason")
        ]
        indexes = [models.Index(fields=["worker", "at"]), models.Index(fields=["at"])]
        verbose_name_plural = "audit entries"

    def __str__(self):
        return f"{self.get_action_display()} {self.worker or ''} ({self.at:%Y-%m-%d %H:%M})"


class Payout(models.Model):
    """A payment run: the unpaid ledger entries up to ``through`` were paid out together."""

    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+"
    )
    created_at = models.DateTimeField(default=timezone.now)
    through = models.DateTimeField()
    reason = models.TextField()
    total_cents = models.PositiveBigIntegerField()

    def __str__(self):
        return f"payout of {self.created_at:%Y-%m-%d} through {self.through:%Y-%m-%d}"


class LedgerEntry(models.Model):
    """Money a worker has earned: one credit per accepted task (any kind of HIT) or bonus.

    Amounts are integer cents. ``source`` names what the credit is for ("assignment:12",
    "bonus:…") and is unique, so crediting the same thing twice stores one entry.
    """

    class Kind(models.TextChoices):
        TASK = "task", "Accepted task"
        BONUS = "bonus", "Bonus"

    worker = models.ForeignKey(Worker, on_delete=models.PROTECT, related_name="ledger_entries")
    kind = models.CharField(max_length=10, choices=Kind.choices)
    amount_cents = models.PositiveIntegerField()
    # The tier of the work paid for (null for bonuses).
    tier = models.PositiveSmallIntegerField(choices=Tier.choices, null=True, blank=True)
    assignment = models.OneToOneField(
        Assignment, null=True, blank=True, on_delete=models.PROTECT, related_name="ledger_entry"
    )
    source = models.CharField(max_length=100, unique=True)
    reason = models.TextField()
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    created_at = models.DateTimeField(default=timezone.now)
    payout = models.ForeignKey(
        Payout, null=True, blank=True, on_delete=models.PROTECT, related_name="entries"
    )

    class Meta:
        constraints = [
            models.CheckConstraint(condition=Q(amount_cents__gt=0), name="ledger_entry_positive"),
            models.CheckConstraint(condition=~Q(source=""), name="ledger_entry_has_a_source"),
        ]
        indexes = [
            models.Index(fields=["worker", "created_at"]),
            models.Index(fields=["created_at"]),
        ]
        verbose_name_plural = "ledger entries"

    def __str__(self):
        return f"{self.worker}: {self.amount_cents}¢ for {self.source}"
