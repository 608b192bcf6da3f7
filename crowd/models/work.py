"""Who works on what: workers and their tiers, HIT types, HITs, assignments and the audit log
(what they earn is ``ledger``).

Vocabulary follows the crowd platforms: a *HIT type* is a kind of task with its pay; a *HIT* is one
item offered in one tier, wanting ``max_assignments`` submissions; an *assignment* binds one
worker to one HIT. The database enforces the two promises the allocator makes: a worker holds at
most one assignment per HIT, and a HIT never records more submissions than its target.

What is offered (a segment to describe, a sentence pair to align, …) belongs to the app that
collects it. Each such row points at an ``Item`` of this app, and HITs point at the item, so
this app never refers to the apps built on it.
"""

from datetime import timedelta

from django.conf import settings
from django.db import models
from django.db.models import Case, CharField, Exists, F, OuterRef, Q, Value, When
from django.db.models.functions import Cast, Concat
from django.utils import timezone

from .. import platforms


class Tier(models.IntegerChoices):
    ONE = 1, "Tier 1"
    TWO = 2, "Tier 2"


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
        PROLIFIC = "prolific", "Prolific"
        # Any platform reached by a study link (CloudResearch Connect, SONA, Microworkers, …).
        STUDY_LINK = "studylink", "Study link"
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
    def label(self) -> str:
        """The worker as research tables and exports name them (``worker_label_sql`` in SQL):
        an imported corpus's own worker id, so that it round-trips; otherwise
        ``<platform>-<our id>``, never a username or a crowd platform's worker id, so a judge
        or an annotator reads the same in every table and in the files a researcher downloads."""
        if platforms.origin(self.platform).keeps_own_worker_ids:
            return self.external_id
        return f"{self.platform}-{self.pk}"

    @property
    def current_tier(self) -> int:
        held = Qualification.objects.active().filter(worker=self, tier=Tier.TWO).exists()
        return Tier.TWO if held else Tier.ONE


def worker_label_sql(worker: str = "worker") -> Case:
    """``Worker.label`` in SQL, of the worker reached by the lookup path ``worker`` (a foreign
    key); empty when there is none."""
    return Case(
        When(**{f"{worker}__isnull": True}, then=Value("")),
        When(
            **{f"{worker}__platform__in": platforms.origins_where("keeps_own_worker_ids")},
            then=F(f"{worker}__external_id"),
        ),
        default=Concat(F(f"{worker}__platform"), Value("-"), Cast(f"{worker}__id", CharField())),
        output_field=CharField(),
    )


class QualificationQuerySet(models.QuerySet):
    def active(self):
        return self.filter(revoked_at__isnull=True)


class Qualification(models.Model):
    """A grant to a worker, of a tier or of access to one kind of task: who granted it, when
    and why (no granter: an automatic rule). Revoked, never deleted.

    A tier grant (``kind`` TIER) names its tier; a task grant (``kind`` ALIGNMENT, earned on the
    alignment trial set or given by staff) opens HITs of a type with ``qualification_required``
    and has no tier: it holds in both tiers.
    """

    class Kind(models.TextChoices):
        TIER = "tier", "Tier"
        ALIGNMENT = "alignment", "Word alignment"

    worker = models.ForeignKey(Worker, on_delete=models.CASCADE, related_name="qualifications")
    kind = models.CharField(max_length=10, choices=Kind.choices, default=Kind.TIER)
    tier = models.PositiveSmallIntegerField(choices=Tier.choices, null=True, blank=True)
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
            ),
            models.UniqueConstraint(
                fields=["worker", "kind"],
                condition=Q(revoked_at__isnull=True, tier__isnull=True),
                name="qualification_one_active_per_kind",
            ),
            models.CheckConstraint(
                condition=Q(kind="tier", tier__isnull=False)
                | (~Q(kind="tier") & Q(tier__isnull=True)),
                name="qualification_tier_iff_tier_kind",
            ),
        ]

    def __str__(self):
        if self.tier is None:
            return f"{self.worker} → {self.get_kind_display().lower()}"
        return f"{self.worker} → tier {self.tier}"

    @property
    def label(self) -> str:
        return f"Tier {self.tier}" if self.tier is not None else self.get_kind_display()


class HitTypeQuerySet(models.QuerySet):
    def for_kind(self, kind: str) -> "HitType":
        """The HIT type of ``kind``. The rows are seeded by a migration; one that was deleted
        (or flushed, as tests do) is seeded again with the study's defaults."""
        try:
            return self.get(kind=kind)
        except HitType.DoesNotExist:
            self.seed()
            return self.get(kind=kind)

    def by_kind(self) -> dict[str, "HitType"]:
        """Every HIT type, keyed by kind, in one query."""
        types = self.in_bulk(field_name="kind")
        if len(types) < len(HitType.Kind.values):
            self.seed()
            types = self.in_bulk(field_name="kind")
        return types

    def seed(self) -> None:
        """Create the HIT types that are missing, with the study's defaults; never changes one
        an admin has edited."""
        self.bulk_create(
            [HitType.with_defaults(kind) for kind in HitType.Kind.values], ignore_conflicts=True
        )


class HitType(models.Model):
    """A kind of task with its pay per tier and how long an assignment may be held.

    One row per kind, seeded with the study's defaults; admins edit them after.
    """

    class Kind(models.TextChoices):
        DESCRIPTION = "description", "Video description"
        VIDEO_COLLECTION = "video_collection", "Video collection"
        ALIGNMENT = "alignment", "Word alignment"
        RATING = "rating", "Paraphrase rating"
        PARAPHRASE = "paraphrase", "Direct paraphrasing"

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
    # Only holders of an active qualification of this kind may claim these HITs. The alignment
    # trial set turns it on for alignment while it has pairs (see annotations.trial).
    qualification_required = models.BooleanField(default=False)
    # How long one task takes, for the hourly rate of a campaign until the site has measured
    # enough submissions of its own (see crowd.services.pay).
    estimated_seconds = models.PositiveIntegerField(default=60)
    # Off: the task page blocks pasting into the text box and says so, and a submission whose
    # page reports a paste is refused (only the tasks where workers type a sentence read it).
    paste_allowed = models.BooleanField(
        default=True,
        help_text="Untick to forbid pasting into the description or paraphrase box.",
    )
    # The share of a worker's tasks of this kind that are gold items (crowd.models.GoldItem),
    # in percent; 0 hands out none.
    gold_percent = models.PositiveSmallIntegerField(default=0)

    objects = HitTypeQuerySet.as_manager()

    class Meta:
        constraints = [
            models.CheckConstraint(
                condition=Q(gold_percent__lte=100), name="hit_type_gold_percent_at_most_100"
            )
        ]

    # The study's pay: $0.01 a description in Tier 1, five times that in Tier 2.
    DEFAULTS = {
        Kind.DESCRIPTION: ("Describe a short video segment in one sentence", 1, 5, 20, 20, 15),
        Kind.VIDEO_COLLECTION: ("Find a short segment showing one clear action", 5, 25, 1, 1, 30),
        Kind.ALIGNMENT: ("Align the words of two sentences", 5, 25, 2, 2, 30),
        # Two judges per paraphrase, and two direct paraphrases per sentence, as in §5.
        Kind.RATING: ("Rate how well one sentence paraphrases another", 2, 5, 2, 2, 15),
        Kind.PARAPHRASE: ("Write a sentence again in your own words", 1, 5, 2, 2, 15),
    }

    # Seconds a task takes, until the site has measured its own: a sentence after watching a
    # few seconds of video; a segment searched for; a grid of links; a judgement; a rewording.
    ESTIMATED_SECONDS = {
        Kind.DESCRIPTION: 40,
        Kind.VIDEO_COLLECTION: 240,
        Kind.ALIGNMENT: 90,
        Kind.RATING: 20,
        Kind.PARAPHRASE: 45,
    }

    def __str__(self):
        return self.title

    @classmethod
    def with_defaults(cls, kind: str) -> "HitType":
        title, pay1, pay2, target1, target2, minutes = cls.DEFAULTS[kind]
        return cls(
            kind=kind,
            title=title,
            estimated_seconds=cls.ESTIMATED_SECONDS[kind],
            pay_tier1_cents=pay1,
            pay_tier2_cents=pay2,
            target_tier1=target1,
            target_tier2=target2,
            assignment_duration=timedelta(minutes=minutes),
        )

    def pay_cents(self, tier: int) -> int:
        return self.pay_tier2_cents if tier == Tier.TWO else self.pay_tier1_cents

    def target(self, tier: int) -> int:
        return self.target_tier2 if tier == Tier.TWO else self.target_tier1


class Item(models.Model):
    """Something a HIT offers: a segment to describe, a sentence pair to align. The row that
    holds it (``collector.Segment``, ``annotations.SentencePair``) points here one to one, so
    HITs keep a real foreign key without this app knowing the apps above it."""

    kind = models.CharField(max_length=20, choices=HitType.Kind.choices)

    def __str__(self):
        return f"{self.kind} item {self.pk}"


class Offered(models.Model):
    """What a collecting app offers through HITs (a segment, a sentence pair) inherits this:
    its ``item`` is set when it is first offered, and its ``hits`` are the HITs offering it."""

    item = models.OneToOneField(
        Item, null=True, blank=True, on_delete=models.PROTECT, related_name="%(class)s"
    )

    class Meta:
        abstract = True

    @property
    def hits(self):
        return Hit.objects.filter(item_id=self.item_id) if self.item_id else Hit.objects.none()


class HitQuerySet(models.QuerySet):
    def open_to(self, worker):
        """HITs under target that ``worker`` has not had (or had and let expire: see
        ``Assignment.reopenable``) and that have room for a new holder. The claim
        (crowd_assignment_claim, crowd/migrations/0008) applies the same rule."""
        now = timezone.now()
        # An item is worked on once per worker, whatever the tier (crowd/migrations/0016).
        had = Q(hit=OuterRef("pk")) | Q(
            hit__item_id=OuterRef("item_id"), hit__hit_type_id=OuterRef("hit_type_id")
        )
        held = Assignment.objects.filter(had, worker=worker).exclude(
            Q(hit=OuterRef("pk")) & Assignment.reopenable(now)
        )
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
    """One item offered in one tier, wanting ``max_assignments`` submissions.

    A video-collection HIT has no item to share: the worker brings the video. Each one is opened
    for one worker (``opened_for``) when they ask for the task, and takes one submission.
    """

    hit_type = models.ForeignKey(HitType, on_delete=models.PROTECT, related_name="hits")
    tier = models.PositiveSmallIntegerField(choices=Tier.choices)
    item = models.ForeignKey(
        Item, null=True, blank=True, on_delete=models.CASCADE, related_name="hits"
    )
    opened_for = models.ForeignKey(
        Worker, null=True, blank=True, on_delete=models.PROTECT, related_name="own_hits"
    )
    max_assignments = models.PositiveIntegerField()
    submitted_count = models.PositiveIntegerField(default=0)
    created_at = models.DateTimeField(default=timezone.now)

    objects = HitQuerySet.as_manager()

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["hit_type", "tier", "item"], name="hit_one_per_item_tier"
            ),
            models.CheckConstraint(
                condition=Q(item__isnull=False, opened_for__isnull=True)
                | Q(item__isnull=True, opened_for__isnull=False),
                name="hit_has_one_item",
            ),
            models.CheckConstraint(
                condition=Q(opened_for__isnull=True) | Q(max_assignments=1),
                name="hit_opened_for_one_takes_one",
            ),
            models.CheckConstraint(
                condition=Q(submitted_count__lte=F("max_assignments")),
                name="hit_never_over_target",
            ),
        ]
        indexes = [models.Index(fields=["hit_type", "tier", "submitted_count", "id"])]

    def __str__(self):
        return f"{self.hit_type.kind} tier {self.tier}: {self.item or self.opened_for}"

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
        # Submitted here, but the platform never showed the assignment submitted: the work is
        # kept, never paid or accepted, and the HIT's slot reopens (as for rejected work).
        UNVERIFIED = "unverified", "Not confirmed by the platform"

    hit = models.ForeignKey(Hit, on_delete=models.PROTECT, related_name="assignments")
    worker = models.ForeignKey(Worker, on_delete=models.PROTECT, related_name="assignments")
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.ASSIGNED)
    accepted_at = models.DateTimeField(default=timezone.now)
    expires_at = models.DateTimeField()
    submitted_at = models.DateTimeField(null=True, blank=True)
    # The crowd platform's own ids, when the worker came from one, and the campaign that
    # published the HIT (or study) they came through.
    external_assignment_id = models.CharField(max_length=64, blank=True)
    external_hit_id = models.CharField(max_length=64, blank=True)
    campaign = models.ForeignKey(
        "crowd.Campaign",
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="assignments",
    )
    # When the work was known to be this worker's: at submission for a signed-in worker; for a
    # platform worker, when the platform's own records showed the assignment submitted by them
    # (the ids in a task's address prove nothing). Unverified work is never paid or accepted.
    verified_at = models.DateTimeField(null=True, blank=True)
    # The platform session this task was done in (Prolific, a study link): the platform knows
    # the session, not the task, so the session's ids stand for it there.
    session = models.ForeignKey(
        "crowd.WorkSession",
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="assignments",
    )

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["worker", "hit"], name="assignment_one_per_worker_hit"),
            # One platform assignment is one local assignment, so a reload never doubles work.
            # The platforms' assignment ids are unique across their whole site, so the id alone
            # is the key; a platform column would only repeat the worker's.
            models.UniqueConstraint(
                fields=["external_assignment_id"],
                condition=~Q(external_assignment_id=""),
                name="assignment_one_per_platform_assignment",
            ),
        ]
        indexes = [
            models.Index(fields=["hit", "status", "expires_at"]),
            models.Index(fields=["worker", "status"]),
        ]

    def __str__(self):
        return f"{self.worker} on {self.hit} ({self.status})"

    @staticmethod
    def reopenable(now) -> Q:
        """Assignments the claim may hand back to their worker with a new deadline: expired
        unsubmitted, and tied to no platform assignment or session (the SQL function
        crowd_assignment_reopenable, crowd/migrations/0008, says the same)."""
        expired = Q(status=Assignment.Status.EXPIRED) | Q(
            status=Assignment.Status.ASSIGNED, expires_at__lte=now
        )
        return expired & Q(external_assignment_id="", session__isnull=True)

    @property
    def is_expired(self) -> bool:
        return self.status == self.Status.EXPIRED or (
            self.status == self.Status.ASSIGNED and self.expires_at <= timezone.now()
        )


class ArrivalWindow(models.Model):
    """How many new platform workers arrived from one network address in one clock hour.

    Every unseen platform worker id creates an account, so new arrivals are counted per address
    (PLATFORM_ARRIVALS_PER_HOUR). Rows of past hours mean nothing and are swept away.
    """

    address = models.GenericIPAddressField()
    hour = models.DateTimeField()
    count = models.PositiveIntegerField(default=0)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["address", "hour"], name="arrival_window_one_per_hour")
        ]
        indexes = [models.Index(fields=["hour"])]

    def __str__(self):
        return f"{self.count} new workers from {self.address} at {self.hour:%Y-%m-%d %H:00}"


class AuditEntry(models.Model):
    """One admin action, or one action of an automatic rule (``actor`` null): who, when, what,
    why. Written by the service that makes the change, in the same transaction. Never edited."""

    class Action(models.TextChoices):
        PROMOTE = "promote", "Promoted"
        DEMOTE = "demote", "Demoted"
        BLOCK = "block", "Blocked"
        UNBLOCK = "unblock", "Unblocked"
        WARN = "warn", "Warned"
        ACCEPT = "accept", "Accepted work"
        REJECT = "reject", "Rejected work"
        BONUS = "bonus", "Paid a bonus"
        PAYOUT = "payout", "Recorded a payout"
        CAMPAIGN = "campaign", "Changed a campaign"
        PLATFORM = "platform", "Told the crowd platform"
        # A quality rule or a HIT type created, changed or deleted in the admin.
        SETTINGS = "settings", "Changed work settings"

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
