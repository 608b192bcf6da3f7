"""One way of showing a task's deadline on every page: "12 min left (due 14:56 UTC)".

The page renders it once; static/js/deadline.js keeps every ``.deadline`` counting down with
the same words."""

from datetime import UTC

from django import template
from django.utils import timezone

register = template.Library()


@register.inclusion_tag("crowd/deadline.html")
def deadline(expires_at, late=""):
    """The deadline ``expires_at`` as time left and due time (UTC); ``late`` says what the
    worker may still do once it has passed."""
    return {"expires_at": expires_at, "late": late, "text": deadline_text(expires_at, late)}


def deadline_text(expires_at, late="", *, now=None) -> str:
    due = expires_at.astimezone(UTC).strftime("%H:%M")
    seconds = int((expires_at - (now or timezone.now())).total_seconds())
    if seconds <= 0:
        return f"time is up (was due {due} UTC)" + (f": {late}" if late else "")
    left = "under a minute" if seconds < 60 else f"{seconds // 60} min"
    return f"{left} left (due {due} UTC)"
