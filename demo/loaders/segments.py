"""The demo's segments: one hosted clip that plays offline (``demo/clip.webm``) and four
YouTube segments.

The clip is made first and no demo writer describes it, so it is what a demo worker is handed
first: the claim offers the HIT with the fewest submissions, then the oldest
(``crowd_assignment_claim``), and the YouTube segments each have the writers' descriptions.
Offline, YouTube's player shows nothing; the clip always plays."""

from dataclasses import dataclass
from pathlib import Path

from django.core.files import File

from collector import services as collector
from collector.models import Segment

CLIP = Path(__file__).resolve().parents[1] / "clip.webm"
CLIP_TITLE = "Demo clip (plays offline)"
YOUTUBE_SEGMENTS = [
    ("-4wsuPCjDBc", 5, 15, "A squirrel eating"),
    ("-7KMZQEsJW4", 205, 208, "Someone cooking"),
    ("-8y1Q0rA3n8", 108, 115, "An animal at play"),
    # The one video the default split (seed 0, a tenth for test) draws into test, so that a
    # system can be compared on the demo: research.splits.
    ("-rkErLY0rRc", 26, 35, "Someone in a garden"),
]


@dataclass(frozen=True)
class Segments:
    clip: Segment
    youtube: dict[str, Segment]  # by YouTube id


def segments_load() -> Segments:
    clip = Segment.objects.filter(title=CLIP_TITLE).first()
    if clip is None:
        with CLIP.open("rb") as video:
            clip = collector.segment_create(
                source=Segment.Source.FILE,
                video_file=File(video, name="demo-clip.webm"),
                start=2,
                end=8,
                title=CLIP_TITLE,
            )
    youtube = {}
    for youtube_id, start, end, title in YOUTUBE_SEGMENTS:
        segment = Segment.objects.filter(youtube_id=youtube_id, start=start, end=end).first()
        youtube[youtube_id] = segment or collector.segment_create(
            source=Segment.Source.YOUTUBE,
            youtube_id=youtube_id,
            start=start,
            end=end,
            title=title,
        )
    return Segments(clip=clip, youtube=youtube)
