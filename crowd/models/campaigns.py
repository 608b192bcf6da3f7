"""Work published on a crowd platform, and what ParaCrowd has to tell the platform.

A *campaign* publishes a batch of HITs of one HIT type and tier on one platform. On Mechanical
Turk each local HIT becomes one platform HIT (``CampaignHit.external_hit_id``) wanting as many
assignments as the local HIT still needs; a video-collection campaign is one platform HIT whose
assignments each open a HIT of their own. On Prolific the campaign is one study
(``Campaign.external_id``) whose places are spread over the campaign's HITs.

Every decision that must reach a platform (approve, reject, a bonus, a qualification) is a
``PlatformAction`` written in the same transaction as the decision and sent after commit, retried
until the platform has it; its unique ``token`` is also the platform's idempotency token, so a
retry never pays twice.
"""

import functools
import operator
import secrets

from django.conf import settings
from django.db import models
from django.db.models import F, Q
from django.utils import timezone

from paracrowd.wording import shortened

from .. import platforms
from .ledger import LedgerEntry
from .work import Assignment, Hit, HitType, Tier, Worker


def new_code() -> str:
    """A fresh completion code: eight hexadecimal capitals."""
    return secrets.token_hex(4).upper()


def _one_campaign_per_listing() -> Q:
    """Campaigns on a platform whose listing (a study) is one campaign's alone."""
    names = platforms.origins_where("one_campaign_per_listing")
    return functools.reduce(operator.or_, (Q(platform=name) for name in names))


class Campaign(models.Model):
    class Platform(models.TextChoices):
        MTURK = Worker.Platform.MTURK.value, Worker.Platform.MTURK.label
        PROLIFIC = Worker.Platform.PROLIFIC.value, Worker.Platform.PROLIFIC.label
        STUDY_LINK = Worker.Platform.STUDY_LINK.value, Worker.Platform.STUDY_LINK.label

    class State(models.TextChoices):
        DRAFT = "draft", "Not published"
        PUBLISHING = "publishing", "Publishing"
        PUBLISHED = "published", "Published"
        EXPIRED = "expired", "Expired"

    name = models.CharField(max_length=200)
    platform = models.CharField(max_length=10, choices=Platform.choices)
    # Mechanical Turk's sandbox or production; the ids of one mean nothing on the other.
    sandbox = models.BooleanField(default=True)
    hit_type = models.ForeignKey(HitType, on_delete=models.PROTECT, related_name="campaigns")
    tier = models.PositiveSmallIntegerField(choices=Tier.choices)
    state = models.CharField(max_length=10, choices=State.choices, default=State.DRAFT)
    # Fixed when the campaign is created: what each place pays the worker (on Mechanical Turk
    # one assignment; elsewhere a session's base, covering its first ``tasks_minimum`` tasks),
    # and the platform's fee on it.
    reward_cents = models.PositiveIntegerField()
    fee_cents = models.PositiveIntegerField()
    # A place is a work session of up to ``tasks_per_session`` tasks, which the worker may end
    # after ``tasks_minimum``; every task done beyond that minimum earns ``task_cents`` as a
    # bonus. Mechanical Turk campaigns (one task a place) keep 1, 1 and 0.
    tasks_per_session = models.PositiveIntegerField(default=1)
    tasks_minimum = models.PositiveIntegerField(default=1)
    task_cents = models.PositiveIntegerField(default=0)
    # The platform's fee on one place's largest bonus (fixed with the pay, for the cost).
    bonus_fee_cents = models.PositiveIntegerField(default=0)
    # The minutes one task takes, as estimated when the pay was checked, and the hourly
    # minimum it was checked against (in the platform's currency's minor units).
    seconds_per_task = models.PositiveIntegerField(default=0)
    minimum_hourly_cents = models.PositiveIntegerField(default=0)
    # Languages (ISO 639-1 codes) the campaign asks for: its study only reaches participants
    # fluent in one of them, and the task asks for them. Empty: any language.
    languages = models.JSONField(default=list, blank=True)
    lifetime = models.DurationField()
    # The platform's id of the whole campaign: the HIT type on Mechanical Turk (shared by
    # campaigns whose HITs have the same properties), the study on Prolific (its own).
    external_id = models.CharField(max_length=64, blank=True)
    # Prolific sends workers back with this code, which tells it the work was done.
    completion_code = models.CharField(max_length=32, blank=True)
    # A study link: the platform it is pasted into (a key of the study-link PRESETS), whose
    # own parameter names its participants arrive with.
    study_link_preset = models.CharField(max_length=20, default="generic")
    # Work the platform has not confirmed this many hours after its session started gives its
    # places back (a study link's platform confirms only through the researcher's upload).
    confirm_hours = models.PositiveIntegerField(default=48)
    # The code a participant stopped by the quality rules is sent back with (Prolific's
    # FAILED_ATTENTION_CHECK type, for manual review). Empty on campaigns published before
    # the study knew it: they are sent back with the completion code.
    failed_check_code = models.CharField(max_length=32, blank=True, default=new_code)
    # The consent and instructions page shown once before a session's first task, set by
    # staff (plain text; paragraphs by blank lines). Empty: straight to the tasks.
    consent_text = models.TextField(
        blank=True,
        help_text="Shown once before the first task of each session, with a button to agree "
        "and start. Empty: participants go straight to the tasks.",
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    created_at = models.DateTimeField(default=timezone.now)
    published_at = models.DateTimeField(null=True, blank=True)
    expires_at = models.DateTimeField(null=True, blank=True)
    # What the platform last reported: HITs available, in progress and submitted, and when.
    platform_counts = models.JSONField(default=dict, blank=True)
    synced_at = models.DateTimeField(null=True, blank=True)
    # The last reconciliation with the platform (``campaign_reconcile``'s result), and when.
    reconciliation = models.JSONField(default=dict, blank=True)
    reconciled_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["external_id"],
                condition=_one_campaign_per_listing() & ~Q(external_id=""),
                name="campaign_one_per_study",
            ),
            models.CheckConstraint(
                condition=Q(tasks_minimum__gte=1) & Q(tasks_minimum__lte=F("tasks_per_session")),
                name="campaign_session_minimum_within_length",
            ),
            models.CheckConstraint(
                condition=Q(confirm_hours__gte=1) & Q(confirm_hours__lte=24 * 90),
                name="campaign_confirm_hours_in_range",
            ),
        ]

    def __str__(self):
        return self.name

    @property
    def tasks_wanted(self) -> int:
        return sum(posting.max_assignments for posting in self.postings.all())

    @property
    def places(self) -> int:
        """Places to offer: one per session of ``tasks_per_session`` tasks wanted."""
        return -(-self.tasks_wanted // self.tasks_per_session)

    @property
    def bonus_cents_per_place(self) -> int:
        """The most one place can earn in bonuses: every task beyond the minimum done."""
        return (self.tasks_per_session - self.tasks_minimum) * self.task_cents

    @property
    def cost_cents(self) -> int:
        """What the whole campaign may cost at most: every place paid and every place's
        bonuses, each with the platform's fee."""
        return self.places * (
            self.reward_cents + self.fee_cents + self.bonus_cents_per_place + self.bonus_fee_cents
        )

    @property
    def hourly_cents(self) -> int:
        """What an hour pays at the time per task the pay was checked at: the lower of one
        task's rate and a place's (its reward over the whole minutes the platform is told)."""
        if not self.seconds_per_task:
            return 0
        pay = self.task_cents or self.reward_cents
        minutes = max(1, -(-self.seconds_per_task * self.tasks_minimum // 60))
        return min(pay * 3600 // self.seconds_per_task, self.reward_cents * 60 // minutes)


class CampaignHit(models.Model):
    """One local HIT in a campaign (``hit``), and on Mechanical Turk the platform HIT that
    offers it (``external_hit_id``, empty until created). A video-collection campaign has one
    row without a local HIT: each of its assignments opens a HIT of its own."""

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="postings")
    hit = models.ForeignKey(
        Hit, null=True, blank=True, on_delete=models.PROTECT, related_name="postings"
    )
    max_assignments = models.PositiveIntegerField()
    external_hit_id = models.CharField(max_length=64, blank=True)
    created_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["campaign", "hit"], name="campaign_hit_once"),
            models.UniqueConstraint(
                fields=["external_hit_id"],
                condition=~Q(external_hit_id=""),
                name="campaign_hit_unique_external_id",
            ),
            models.CheckConstraint(
                condition=Q(max_assignments__gt=0), name="campaign_hit_wants_work"
            ),
        ]

    def __str__(self):
        return self.external_hit_id or f"{self.campaign} / {self.hit_id}"


class CampaignEvent(models.Model):
    """What happened to a campaign on the platform, errors included, as it happened."""

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="events")
    at = models.DateTimeField(default=timezone.now)
    is_error = models.BooleanField(default=False)
    message = models.TextField()

    class Meta:
        indexes = [models.Index(fields=["campaign", "at"])]

    def __str__(self):
        return f"{self.at:%Y-%m-%d %H:%M} {shortened(self.message, 60)}"


class PlatformQualification(models.Model):
    """The platform's id of ParaCrowd's own qualification for a tier, created once per
    platform account (the sandbox's and production's are different)."""

    platform = models.CharField(max_length=10, choices=Campaign.Platform.choices)
    sandbox = models.BooleanField()
    tier = models.PositiveSmallIntegerField(choices=Tier.choices)
    external_id = models.CharField(max_length=64)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["platform", "sandbox", "tier"], name="platform_qualification_once"
            )
        ]

    def __str__(self):
        return f"{self.get_platform_display()} tier {self.tier}: {self.external_id}"


class PlatformAction(models.Model):
    """One decision to send to a crowd platform, sent after the transaction that made it
    commits and retried until the platform has it (the outbox)."""

    class Kind(models.TextChoices):
        APPROVE = "approve", "Approve"
        REJECT = "reject", "Reject"
        BONUS = "bonus", "Bonus"
        GRANT = "grant", "Grant qualification"
        REVOKE = "revoke", "Revoke qualification"

    class State(models.TextChoices):
        PENDING = "pending", "Waiting to be sent"
        DONE = "done", "Done on the platform"
        FAILED = "failed", "Refused by the platform"

    kind = models.CharField(max_length=10, choices=Kind.choices)
    platform = models.CharField(max_length=10, choices=Campaign.Platform.choices)
    sandbox = models.BooleanField(default=True)
    # Names the decision ("approve:assignment:12", "bonus:ledger:40"): one action per decision,
    # and the idempotency token the platform sees.
    token = models.CharField(max_length=64, unique=True)
    worker = models.ForeignKey(Worker, on_delete=models.PROTECT, related_name="platform_actions")
    assignment = models.ForeignKey(
        Assignment, null=True, blank=True, on_delete=models.PROTECT, related_name="platform_actions"
    )
    campaign = models.ForeignKey(
        Campaign, null=True, blank=True, on_delete=models.PROTECT, related_name="platform_actions"
    )
    # For work done in a platform session: the session, which is what the platform knows.
    session = models.ForeignKey(
        "crowd.WorkSession",
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="platform_actions",
    )
    # The ledger entry this action pays (an approval pays the task's entry, a bonus its own).
    ledger_entry = models.OneToOneField(
        LedgerEntry,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="platform_payment",
    )
    # What the platform needs besides the ids: feedback, amount, reason.
    details = models.JSONField(default=dict, blank=True)
    state = models.CharField(max_length=10, choices=State.choices, default=State.PENDING)
    attempts = models.PositiveIntegerField(default=0)
    last_error = models.TextField(blank=True)
    created_at = models.DateTimeField(default=timezone.now)
    # When the platform did it (for an approval the platform made itself: its approval time).
    done_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        indexes = [models.Index(fields=["state", "created_at"])]

    def __str__(self):
        return f"{self.get_kind_display()} {self.token} ({self.state})"
