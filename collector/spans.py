"""Spans of video: times as people type them, allowed lengths, and when two spans overlap too much.

Times are Decimals of seconds with two decimal places, as Segment stores them. The pattern of a
typed time is handed to the browser too (segment-marker.js), so both read times the same way.
"""

import re
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation

from django.conf import settings
from django.core.exceptions import ValidationError

HUNDREDTH = Decimal("0.01")
# Seconds ("75", "75.5"), minutes and seconds ("1:15", "1:15.5"), or hours too ("1:02:03").
# Written so that JavaScript's RegExp reads it the same way.
TIME = re.compile(r"^(?:(?:(\d+):)?(\d+):)?(\d+(?:[.,]\d+)?)$")
# Segment.start and Segment.end hold eight digits, two of them decimals.
LATEST = Decimal("999999.99")


def parse_time(text: str) -> Decimal:
    """A typed time in seconds, rounded to hundredths; ValidationError when it is not one."""
    match = TIME.match((text or "").strip())
    if not match:
        raise ValidationError(
            "Type the time in seconds (75) or in minutes and seconds (1:15).", code="time"
        )
    hours, minutes, seconds = match.groups()
    try:
        seconds = Decimal(seconds.replace(",", "."))
    except InvalidOperation:  # pragma: no cover - the pattern admits only numbers
        raise ValidationError("That is not a time.", code="time") from None
    if (minutes is not None and seconds >= 60) or (hours is not None and int(minutes) >= 60):
        raise ValidationError(
            "After a colon, minutes and seconds go up to 59 (write 1:15, not 0:75).", code="time"
        )
    total = int(hours or 0) * 3600 + int(minutes or 0) * 60 + seconds
    total = total.quantize(HUNDREDTH, rounding=ROUND_HALF_UP)
    if total > LATEST:
        raise ValidationError("That time is past the end of any video.", code="time")
    return total


def format_time(seconds) -> str:
    """Seconds as m:ss (or h:mm:ss), keeping hundredths only when there are any: 75.5 → 1:15.5."""
    seconds = Decimal(seconds).quantize(HUNDREDTH, rounding=ROUND_HALF_UP)
    whole = int(seconds)
    fraction = f"{seconds - whole:.2f}"[1:].rstrip("0").rstrip(".")
    hours, rest = divmod(whole, 3600)
    minutes, secs = divmod(rest, 60)
    clock = f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"
    return clock + fraction


def seconds_text(seconds: Decimal) -> str:
    """A number of seconds in words, without trailing zeros: 6.50 → "6.5 seconds"."""
    number = f"{Decimal(seconds).normalize():f}"
    return f"{number} second" if number == "1" else f"{number} seconds"


@dataclass(frozen=True)
class LengthRule:
    """How long a segment may be (refused outside), and how long it should usually be."""

    minimum: int
    maximum: int
    suggested_minimum: int
    suggested_maximum: int

    @classmethod
    def from_settings(cls) -> "LengthRule":
        return cls(
            settings.SEGMENT_MIN_SECONDS,
            settings.SEGMENT_MAX_SECONDS,
            settings.SEGMENT_SUGGESTED_MIN_SECONDS,
            settings.SEGMENT_SUGGESTED_MAX_SECONDS,
        )

    def check(self, start: Decimal, end: Decimal) -> None:
        """ValidationError, for the end field, when the span is backwards, too short or too long."""
        if end <= start:
            raise ValidationError("The end must come after the start.", code="end_before_start")
        length = end - start
        if length < self.minimum:
            raise ValidationError(
                f"This segment is {seconds_text(length)} long; it must be at least "
                f"{self.minimum} seconds.",
                code="too_short",
            )
        if length > self.maximum:
            raise ValidationError(
                f"This segment is {seconds_text(length)} long; it can be at most "
                f"{self.maximum} seconds. Most good segments are {self.suggested_minimum}–"
                f"{self.suggested_maximum} seconds.",
                code="too_long",
            )

    def as_json(self) -> dict:
        return {
            "minSeconds": self.minimum,
            "maxSeconds": self.maximum,
            "suggestedMinSeconds": self.suggested_minimum,
            "suggestedMaxSeconds": self.suggested_maximum,
            "timePattern": TIME.pattern,
        }


def overlap(a: tuple[Decimal, Decimal], b: tuple[Decimal, Decimal]) -> Decimal:
    """Seconds that spans ``a`` and ``b`` (start, end) share; 0 when they are apart or touch."""
    return max(Decimal(0), min(a[1], b[1]) - max(a[0], b[0]))


def overlaps_too_much(a: tuple[Decimal, Decimal], b: tuple[Decimal, Decimal]) -> bool:
    """True when the spans share more than half of the shorter one. Exactly half is allowed:
    0–10 and 5–15 may both exist, 0–10 and 4.99–14.99 may not."""
    shorter = min(a[1] - a[0], b[1] - b[0])
    return overlap(a, b) * 2 > shorter
