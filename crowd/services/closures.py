"""Crowd platforms that have closed to new work.

Mechanical Turk closed on 30 September 2026. Its campaigns stay readable (read back, history
pages, the outbox's record), but nothing new may be published or extended there: every service
that would post work calls ``platform_open_check`` first, before it stores or sends anything.
"""

from datetime import date

from .. import platforms
from ..platforms import PlatformError
from .errors import WorkRefused


def platform_open_check(*, platform: str, today: date | None = None) -> None:
    """Refuse (``WorkRefused`` carrying the platform's closure message) new work on a platform
    that has closed. Any caller may use it; it reads nothing and stores nothing."""
    try:
        platforms.get(platform).open_check(today=today)
    except PlatformError as closed:
        raise WorkRefused(str(closed)) from closed
