"""Segments: creating them (from a proposal, an uploaded file or an import), offering them for
description, and the length and overlap rules for spans of one video."""

from decimal import Decimal

from django.core.exceptions import ValidationError
from django.db import connection, transaction
from django.db.models import Q

from crowd import services as crowd
from crowd.models import HitType
from crowd.services import WorkRefused

from ..models import Segment, SegmentProposal, VideoFile
from ..spans import LengthRule, format_time, overlap, overlaps_too_much, seconds_text


def segments_offer(*, segments) -> int:
    """Offer these segments (a queryset) for description in both tiers with the description HIT
    type's targets. Re-running adds nothing; returns how many HITs were opened."""
    return crowd.hits_open(rows=segments, kind=HitType.Kind.DESCRIPTION)


def segment_create(*, open_hits: bool = True, **fields) -> Segment:
    """A new segment, offered for description in both tiers unless ``open_hits`` is False."""
    with transaction.atomic():
        segment = Segment(**fields)
        segment.full_clean()
        segment.save()
        if open_hits:
            segments_offer(segments=Segment.objects.filter(pk=segment.pk))
            segment.refresh_from_db(fields=["item"])
    return segment


def video_upload(*, file, title: str, uploaded_by) -> VideoFile:
    """Keep an uploaded video in the default storage (local media, or S3 when configured)."""
    return VideoFile.objects.create(file=file, title=title, uploaded_by=uploaded_by)


def segment_cut(*, video: VideoFile, start: Decimal, end: Decimal, title: str = "") -> Segment:
    """A segment of an uploaded video, offered for description in both tiers. The length rule
    and the overlap rule are those of proposed segments, among the segments of that file."""
    span_length_check(start, end)
    with transaction.atomic():
        video_lock(f"file:{video.file.name}")
        conflict = span_conflict(
            start, end, segments=video.segments, proposals=SegmentProposal.objects.none()
        )
        if conflict:
            raise WorkRefused(conflict)
        return segment_create(
            source=Segment.Source.FILE,
            video_file=video.file.name,
            start=start,
            end=end,
            title=title or video.title,
        )


def span_length_check(start: Decimal, end: Decimal) -> None:
    try:
        LengthRule.from_settings().check(start, end)
    except ValidationError as error:
        raise WorkRefused(error.messages[0]) from None


def video_lock(key: str) -> None:
    """Serialise, until the transaction ends, everyone adding spans of one video."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_advisory_xact_lock(hashtextextended(%s, 0))", [key])


def span_conflict(start, end, *, segments, proposals) -> str | None:
    """Why the span (start, end) may not be added beside these segments and proposals of the
    same video, or None when it may."""
    near = Q(start__lt=end, end__gt=start)
    span = (start, end)
    for other_start, other_end in segments.filter(near).values_list("start", "end"):
        if (other_start, other_end) == span:
            return (
                f"This segment ({format_time(start)}–{format_time(end)}) is already in the corpus."
            )
        if overlaps_too_much(span, (other_start, other_end)):
            return _overlap_message(span, (other_start, other_end), "in the corpus")
    for other_start, other_end, status in proposals.filter(near).values_list(
        "start", "end", "status"
    ):
        if (other_start, other_end) == span:
            return f"This segment ({format_time(start)}–{format_time(end)}) was already proposed."
        if status != SegmentProposal.Status.REJECTED and overlaps_too_much(
            span, (other_start, other_end)
        ):
            return _overlap_message(span, (other_start, other_end), "already proposed")
    return None


def _overlap_message(span, other, where: str) -> str:
    return (
        f"This overlaps {format_time(other[0])}–{format_time(other[1])} of the same video, "
        f"{where}, by {seconds_text(overlap(span, other))}: more than half of the "
        "shorter segment. Choose a different moment of the video."
    )
