"""YouTube links as workers paste them: which video, and where the link starts playing.

Accepted: ``youtube.com/watch?v=ID`` (also ``m.``, ``music.`` and ``youtube-nocookie.com``),
``youtu.be/ID``, ``youtube.com/embed/ID``, ``/shorts/ID``, ``/live/ID`` and ``/v/ID``, with or
without the scheme, and with a start time as ``t=`` or ``start=`` (``90``, ``90s``, ``1m30s``,
``1h2m3s``) in the query or after ``#``. A bare 11-character video id is accepted too.
"""

import re
from dataclasses import dataclass
from decimal import Decimal
from urllib.parse import parse_qs, urlsplit

from django.core.exceptions import ValidationError

VIDEO_ID = re.compile(r"^[A-Za-z0-9_-]{11}$")
HOSTS = {
    "youtube.com",
    "www.youtube.com",
    "m.youtube.com",
    "music.youtube.com",
    "youtube-nocookie.com",
    "www.youtube-nocookie.com",
}
SHORT_HOSTS = {"youtu.be", "www.youtu.be"}
# The first path segment of a youtube.com link whose second segment is the video id.
ID_IN_PATH = {"embed", "shorts", "live", "v", "e"}
START = re.compile(r"^(?:(\d+)h)?(?:(\d+)m)?(?:(\d+(?:\.\d+)?)s?)?$")


@dataclass(frozen=True)
class YouTubeLink:
    video_id: str
    start: Decimal | None = None

    @property
    def url(self) -> str:
        return f"https://www.youtube.com/watch?v={self.video_id}"


def parse_youtube_link(text: str) -> YouTubeLink:
    """The video id and start time of a pasted link; ValidationError with a message for the
    worker when it is not a link to one YouTube video."""
    text = (text or "").strip()
    if not text:
        raise ValidationError("Paste the address of a YouTube video.", code="required")
    if VIDEO_ID.match(text):
        return YouTubeLink(text)
    if "://" not in text:
        text = "https://" + text
    not_youtube = ValidationError(
        "This is not a YouTube link. Paste the address of a video on youtube.com or youtu.be.",
        code="not_youtube",
    )
    try:
        parts = urlsplit(text)
        host = (parts.hostname or "").lower()
    except ValueError:  # e.g. a malformed port or IPv6 address
        raise not_youtube from None
    if parts.scheme.lower() not in ("http", "https") or host not in HOSTS | SHORT_HOSTS:
        raise not_youtube
    query = parse_qs(parts.query)
    path = [segment for segment in parts.path.split("/") if segment]
    if host in SHORT_HOSTS:
        candidate = path[0] if path else None
    elif path == ["watch"]:
        candidate = query.get("v", [None])[0]
    elif len(path) >= 2 and path[0] in ID_IN_PATH:
        candidate = path[1]
    else:
        candidate = None
    if not candidate:
        raise ValidationError(
            "This YouTube link does not point at one video. Open the video and copy the address "
            "from the address bar or from Share.",
            code="no_video",
        )
    if not VIDEO_ID.match(candidate):
        raise ValidationError(
            f"“{candidate[:40]}” is not a YouTube video id: an id is 11 letters, digits, - or _. "
            "Copy the whole address again.",
            code="bad_id",
        )
    fragment = parse_qs(parts.fragment)
    offsets = [
        source[key][0] for source in (query, fragment) for key in ("t", "start") if key in source
    ]
    return YouTubeLink(candidate, _start(offsets[0] if offsets else None))


def _start(offset: str | None) -> Decimal | None:
    """``90``, ``90s``, ``1m30s`` or ``1h2m3s`` as seconds; None when absent or unreadable (a
    bad start time is no reason to refuse a good link)."""
    match = START.match(offset or "")
    if not offset or not match:
        return None
    hours, minutes, seconds = match.groups()
    return int(hours or 0) * 3600 + int(minutes or 0) * 60 + Decimal(seconds or 0)
