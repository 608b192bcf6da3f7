"""What crowd platforms tell the site on their own: events sent to its webhook, and the secret
they are signed with.

Each event is stored once, keyed by the platform's event id (a platform delivers at least once
and resends the same id), before anything acts on it; a Celery task then applies it and marks
it processed. The read-back that polls every campaign stays the reconciler: an event lost or
never sent changes only how soon the site learns of it.
"""

from django.db import models
from django.utils import timezone

from .campaigns import Campaign

# The largest event body stored (the view refuses larger requests before reading them).
EVENT_BODY_MAX_BYTES = 64 * 1024


class PlatformEvent(models.Model):
    platform = models.CharField(max_length=10, choices=Campaign.Platform.choices)
    # The platform's id of the event, the same on every delivery of it.
    event_id = models.CharField(max_length=100)
    event_type = models.CharField(max_length=60)
    # What the event is about (a submission's or a study's id on the platform), and its new
    # state in the platform's own word.
    resource_id = models.CharField(max_length=64, blank=True)
    status = models.CharField(max_length=30, blank=True)
    received_at = models.DateTimeField(default=timezone.now)
    processed_at = models.DateTimeField(null=True, blank=True)
    body = models.JSONField()

    class Meta:
        constraints = [
            # A redelivered or replayed event is stored once, whoever receives it.
            models.UniqueConstraint(
                fields=["platform", "event_id"], name="platform_event_once_per_id"
            ),
        ]
        indexes = [models.Index(fields=["platform", "resource_id"])]

    def __str__(self):
        return f"{self.get_platform_display()} {self.event_type} {self.resource_id}"


class PlatformHookSecret(models.Model):
    """The secret a platform signs its webhook requests with, as publishing read it from the
    platform account (an operator's setting, where given, takes precedence)."""

    platform = models.CharField(max_length=10, choices=Campaign.Platform.choices, unique=True)
    value = models.CharField(max_length=200)
    saved_at = models.DateTimeField(default=timezone.now)

    def __str__(self):
        return f"{self.get_platform_display()} webhook secret"
