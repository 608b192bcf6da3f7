"""Quality control: gold items mixed into work, the checks a worker's work passed or failed,
and the rules that warn a worker and stop handing them work.

A *check* is anything that judges one piece of a worker's work pass or fail: a gold item's
answer compared with its known answer, and any later kind (how a text came into the box, an
attention question). Every check is one ``QualityCheck`` row of its ``kind``; a ``QualityRule``
per kind says after how many failures the worker is warned and stopped.
"""

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models
from django.db.models import F, Q
from django.utils import timezone

from .work import Assignment, HitType, Item, Worker


class GoldItemQuerySet(models.QuerySet):
    def live(self):
        return self.filter(retired_at__isnull=True)


class GoldItem(models.Model):
    """An item (a segment, a sentence pair, a sentence to paraphrase, a pair to rate) whose
    right answer is known. Its HITs are handed out as any other task of its kind, at the HIT
    type's ``gold_percent``, to every worker once; each answer is checked against ``answer``
    (what it holds depends on the kind: see ``review.gold``). Retired, never deleted."""

    item = models.OneToOneField(Item, on_delete=models.PROTECT, related_name="gold")
    kind = models.CharField(max_length=20, choices=HitType.Kind.choices)
    answer = models.JSONField()
    # The work it was made from ("description:12"), shown to staff.
    source = models.CharField(max_length=100)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(default=timezone.now)
    retired_at = models.DateTimeField(null=True, blank=True)

    objects = GoldItemQuerySet.as_manager()

    def __str__(self):
        return f"gold {self.kind} from {self.source_label}"

    @property
    def source_label(self) -> str:
        """The work it was made from in words: "description 12"."""
        return self.source.replace(":", " ", 1)


class QualityCheck(models.Model):
    """One piece of a worker's work judged by one check: passed or failed, with the score it
    was judged on and what a reviewer needs to see why. ``kind`` is open-ended ("gold", and
    any check added later); ``source`` names what was checked, unique per kind, so recording a
    check twice stores it once."""

    worker = models.ForeignKey(Worker, on_delete=models.PROTECT, related_name="quality_checks")
    kind = models.CharField(max_length=30)
    source = models.CharField(max_length=100)
    assignment = models.ForeignKey(
        Assignment, null=True, blank=True, on_delete=models.PROTECT, related_name="quality_checks"
    )
    passed = models.BooleanField()
    score = models.FloatField(null=True, blank=True)
    details = models.JSONField(default=dict, blank=True)
    at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["kind", "source"], name="quality_check_once"),
            models.CheckConstraint(condition=~Q(kind=""), name="quality_check_has_a_kind"),
        ]
        indexes = [models.Index(fields=["worker", "kind", "at"])]

    def __str__(self):
        return f"{self.kind} {'passed' if self.passed else 'failed'}: {self.source}"


class QualityRule(models.Model):
    """What staff decided for one kind of check: among a worker's last ``window`` checks of
    that kind, ``warn_after`` failures warn them and ``stop_after`` failures stop handing them
    work (0 turns either off). Checks made before staff last lifted a stop do not count."""

    check_kind = models.CharField(max_length=30, unique=True)
    warn_after = models.PositiveSmallIntegerField(default=2)
    stop_after = models.PositiveSmallIntegerField(default=5)
    window = models.PositiveSmallIntegerField(default=10)

    class Meta:
        constraints = [
            models.CheckConstraint(condition=Q(window__gte=1), name="quality_rule_has_a_window"),
            models.CheckConstraint(
                condition=Q(stop_after__lte=F("window")), name="quality_rule_stop_within_window"
            ),
            models.CheckConstraint(
                condition=Q(warn_after__lte=F("window")), name="quality_rule_warn_within_window"
            ),
        ]

    def __str__(self):
        return (
            f"{self.check_kind}: warn after {self.warn_after}, stop after {self.stop_after} "
            f"failures in {self.window}"
        )

    def clean(self):
        if self.window < 1:
            raise ValidationError({"window": "Count at least the last check."})
        for field in ("warn_after", "stop_after"):
            if getattr(self, field) > self.window:
                raise ValidationError({field: "At most the window: failures are counted in it."})
