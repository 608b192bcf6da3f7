"""What workers earn and what the platforms charge: one ledger entry per task, session reward,
bonus or fee, and the payouts that settle them."""

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone

from .work import Assignment, Tier, Worker


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


class LedgerEntryQuerySet(models.QuerySet):
    def earnings(self):
        """What workers earned: every entry but the platforms' fees."""
        return self.exclude(kind=LedgerEntry.Kind.FEE)


class LedgerEntry(models.Model):
    """Money: what a worker has earned, and what a crowd platform charges for it.

    A worker earns one credit per accepted task done alone (any kind of HIT), one session
    ``REWARD`` per session a platform approves (whatever number of its tasks was accepted:
    the platform pays the whole reward), and one ``BONUS`` per bonus line (a session's task
    past its minimum, or a bonus given by hand). A task covered by its session's reward keeps
    a ``TASK`` entry of 0 that records it as accepted. The platform's ``FEE`` on each payment
    it makes is an entry of its own, belonging to no worker, so a worker's entries add up to
    what they earned and never include fees.

    Amounts are integer minor units. ``source`` names what the entry is for ("assignment:12",
    "session:4", "bonus:…", "fee:<the source of the entry it is on>") and is unique, so
    booking the same thing twice stores one entry.
    """

    class Kind(models.TextChoices):
        TASK = "task", "Accepted task"
        BONUS = "bonus", "Bonus"
        REWARD = "reward", "Session reward"
        FEE = "fee", "Platform fee"

    # Empty only for a platform's fee, which is nobody's earnings.
    worker = models.ForeignKey(
        Worker, null=True, blank=True, on_delete=models.PROTECT, related_name="ledger_entries"
    )
    # The campaign whose platform pays (or charges) this entry; empty for local work.
    campaign = models.ForeignKey(
        "crowd.Campaign",
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="ledger_entries",
    )
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

    objects = LedgerEntryQuerySet.as_manager()

    class Meta:
        constraints = [
            # Only a task its session's reward covers is booked at 0.
            models.CheckConstraint(
                condition=Q(amount_cents__gt=0) | Q(kind="task", assignment__isnull=False),
                name="ledger_entry_positive",
            ),
            models.CheckConstraint(condition=~Q(source=""), name="ledger_entry_has_a_source"),
            models.CheckConstraint(
                condition=Q(worker__isnull=True, kind="fee")
                | Q(worker__isnull=False) & ~Q(kind="fee"),
                name="ledger_entry_fee_is_nobodys",
            ),
        ]
        indexes = [
            models.Index(fields=["worker", "created_at"]),
            models.Index(fields=["created_at"]),
            models.Index(fields=["campaign", "kind"]),
        ]
        verbose_name_plural = "ledger entries"

    def __str__(self):
        return f"{self.worker}: {self.amount_cents}¢ for {self.source}"
