"""Work sessions: how the open crowds pay.

Prolific, CloudResearch Connect, SONA and the rest send a participant to one link, once per
study, and pay for the visit as a whole. So one arrival opens a ``WorkSession`` of up to
``task_limit`` tasks of one kind and tier, handed out one at a time (an abandoned session
holds nothing it has not started), and the participant goes back with the completion code
at the end. The platform knows the session, never the tasks: its id (Prolific's SESSION_ID,
a study link's session parameter) is what is verified, approved, rejected and bonused there.
"""

from django.db import models
from django.db.models import F, Q
from django.utils import timezone

from .work import HitType, Tier, Worker


class WorkSessionQuerySet(models.QuerySet):
    def open(self):
        return self.filter(state=WorkSession.State.OPEN)


class WorkSession(models.Model):
    class State(models.TextChoices):
        OPEN = "open", "Working"
        FINISHED = "finished", "Finished"
        # Returned or timed out on the platform: what was not submitted went back at once.
        ABANDONED = "abandoned", "Abandoned"

    worker = models.ForeignKey(Worker, on_delete=models.PROTECT, related_name="work_sessions")
    campaign = models.ForeignKey(
        "crowd.Campaign",
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="work_sessions",
    )
    platform = models.CharField(max_length=10, choices=Worker.Platform.choices)
    # The platform's id of this visit, and of what it was a visit to (the study).
    external_id = models.CharField(max_length=64)
    listing_id = models.CharField(max_length=64, blank=True)
    kind = models.CharField(max_length=20, choices=HitType.Kind.choices)
    tier = models.PositiveSmallIntegerField(choices=Tier.choices)
    task_limit = models.PositiveIntegerField()
    task_minimum = models.PositiveIntegerField()
    state = models.CharField(max_length=10, choices=State.choices, default=State.OPEN)
    started_at = models.DateTimeField(default=timezone.now)
    ended_at = models.DateTimeField(null=True, blank=True)
    # When the platform confirmed, before any task was handed out, that this visit is the
    # participant's own (Prolific's submission looked up); null where it cannot be asked.
    arrival_checked_at = models.DateTimeField(null=True, blank=True)
    # What the platform last said of the session (its own status word), and when.
    platform_status = models.CharField(max_length=30, blank=True)
    # When the participant agreed to the campaign's consent and instructions page (null: not
    # asked yet, or the campaign has none).
    consented_at = models.DateTimeField(null=True, blank=True)
    # Ended because the quality rules stopped the participant: sent back with the campaign's
    # failed-check code instead of its completion code.
    failed_check = models.BooleanField(default=False)

    objects = WorkSessionQuerySet.as_manager()

    class Meta:
        constraints = [
            # One platform visit is one session, so a reload resumes it instead of opening another.
            models.UniqueConstraint(
                fields=["platform", "external_id"], name="work_session_one_per_visit"
            ),
            models.CheckConstraint(
                condition=Q(task_minimum__gte=1) & Q(task_minimum__lte=F("task_limit")),
                name="work_session_minimum_within_limit",
            ),
        ]
        indexes = [models.Index(fields=["campaign", "state"])]

    def __str__(self):
        return f"{self.get_platform_display()} session {self.external_id}"
