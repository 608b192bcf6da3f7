"""Writes that span models: opening HITs, handing out work, taking it back in.

Every function here is safe under concurrency. The database enforces the invariants (one
assignment per worker per HIT, never more submissions than a HIT's target); the code checks them
too so that a lost race ends in a clear ``WorkRefused``, not in bad data.
"""

import logging
from datetime import timedelta
from decimal import Decimal

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.db import IntegrityError, connection, transaction
from django.db.models import F, Q
from django.utils import timezone

from scoring.tasks import queue_scoring

from .models import (
    Assignment,
    Description,
    Hit,
    HitType,
    Qualification,
    Segment,
    SegmentProposal,
    Tier,
    VideoFile,
    Worker,
)
from .spans import LengthRule, format_time, overlap, overlaps_too_much, seconds_text
from .youtube import VIDEO_ID as YOUTUBE_ID

logger = logging.getLogger(__name__)

# How many locked-then-full candidates the allocator steps past before giving up.
CLAIM_ATTEMPTS = 5
EVENT_MAX_LENGTH = SegmentProposal._meta.get_field("event").max_length


class WorkRefused(Exception):
    """The request cannot be honoured; the message is written for the worker."""


def worker_create(*, username: str, password: str, email: str = "") -> Worker:
    """A local worker with a Django account. Tier 1 until someone qualifies them."""
    with transaction.atomic():
        user = get_user_model().objects.create_user(
            username=username, password=password, email=email
        )
        return Worker.objects.create(user=user, platform=Worker.Platform.LOCAL)


def worker_from_platform(*, platform: str, external_id: str) -> Worker:
    """The worker a crowd platform calls ``external_id``, created on first sight."""
    worker = Worker.objects.filter(platform=platform, external_id=external_id).first()
    if worker:
        return worker
    try:
        with transaction.atomic():
            user = get_user_model().objects.create_user(username=f"{platform}:{external_id}")
            return Worker.objects.create(user=user, platform=platform, external_id=external_id)
    except IntegrityError:  # a concurrent first request created them
        return Worker.objects.get(platform=platform, external_id=external_id)


def qualification_grant(*, worker: Worker, tier: int, granted_by, reason: str) -> Qualification:
    """Grant ``tier`` to ``worker``; granting a tier already held returns the existing grant."""
    if not reason.strip():
        raise WorkRefused("A qualification needs a reason.")
    try:
        with transaction.atomic():
            return Qualification.objects.create(
                worker=worker, tier=tier, granted_by=granted_by, reason=reason
            )
    except IntegrityError:
        return Qualification.objects.active().get(worker=worker, tier=tier)


def hits_open(*, items, kind: str = HitType.Kind.DESCRIPTION) -> int:
    """Offer each item (segments, or sentence pairs for alignment) in both tiers with the HIT
    type's targets. Re-running adds nothing."""
    hit_type = HitType.for_kind(kind)
    field = HitType.ITEM_FIELDS[kind]
    hits = [
        Hit(hit_type=hit_type, tier=tier, max_assignments=hit_type.target(tier), **{field: item})
        for item in items
        for tier in Tier.values
    ]
    created = Hit.objects.bulk_create(hits, ignore_conflicts=True, batch_size=2000)
    return len(created)


def segment_create(*, open_hits: bool = True, **fields) -> Segment:
    """A new segment, offered for description in both tiers unless ``open_hits`` is False."""
    with transaction.atomic():
        segment = Segment(**fields)
        segment.full_clean()
        segment.save()
        if open_hits:
            hits_open(items=[segment])
    return segment


def assignment_claim(
    *,
    worker: Worker,
    tier: int,
    kind: str = HitType.Kind.DESCRIPTION,
    external_assignment_id: str = "",
    external_hit_id: str = "",
) -> Assignment | None:
    """Hand ``worker`` a HIT of ``kind`` in ``tier``, or None when nothing is left for them.

    A worker who still holds a live assignment of that kind and tier gets it back, so reloading
    or double-clicking never hoards work. Otherwise the HIT with the fewest submissions that the
    worker has not had and that has room is locked with SKIP LOCKED, so concurrent claims spread
    over different HITs instead of queueing on one.
    """
    if tier > worker.current_tier:
        raise WorkRefused(f"You do not hold the Tier-{tier} qualification.")
    hit_type = HitType.for_kind(kind)
    with transaction.atomic():
        # Serialise one worker's own claims; different workers never wait on each other here.
        Worker.objects.select_for_update(no_key=True).filter(pk=worker.pk).exists()
        held = Assignment.objects.filter(
            worker=worker,
            hit__hit_type=hit_type,
            hit__tier=tier,
            status=Assignment.Status.ASSIGNED,
            expires_at__gt=timezone.now(),
        ).first()
        if held:
            return held
        if hit_type.kind == HitType.Kind.VIDEO_COLLECTION:
            return _proposal_hit_open(
                worker=worker,
                hit_type=hit_type,
                tier=tier,
                external_assignment_id=external_assignment_id,
                external_hit_id=external_hit_id,
            )
        passed_over = []
        for _ in range(CLAIM_ATTEMPTS):
            hit = (
                Hit.objects.filter(hit_type=hit_type, tier=tier)
                .exclude(pk__in=passed_over)
                .open_to(worker)
                .order_by("submitted_count", "id")
                .select_for_update(skip_locked=True, of=("self",))
                .first()
            )
            if hit is None:
                return None
            # The candidate query's snapshot predates the lock; count again now that we hold it.
            if Hit.objects.filter(pk=hit.pk).open_to(worker).exists():
                return Assignment.objects.create(
                    hit=hit,
                    worker=worker,
                    expires_at=timezone.now() + hit_type.assignment_duration,
                    external_assignment_id=external_assignment_id,
                    external_hit_id=external_hit_id,
                )
            passed_over.append(hit.pk)
    return None


def _proposal_hit_open(*, worker, hit_type, tier, **external_ids) -> Assignment:
    """A video-collection HIT opened for ``worker`` alone, with their assignment to it.

    There is no shared item to hand out: the worker brings the video. So each claim opens a
    one-submission HIT of their own (``hit_proposal_takes_one``), and the usual machinery then
    records the time spent, the deadline and the status, and stores the proposal once. The caller
    holds the worker's row lock, so the daily allowance is counted without a race.
    """
    now = timezone.now()
    taken = Assignment.objects.filter(
        worker=worker,
        hit__hit_type=hit_type,
        accepted_at__gt=now - timedelta(hours=24),
    ).count()
    if taken >= settings.PROPOSALS_PER_DAY:
        raise WorkRefused(
            f"You have taken the {settings.PROPOSALS_PER_DAY} video-collection tasks allowed in "
            "24 hours. Thank you! Please come back later."
        )
    hit = Hit.objects.create(hit_type=hit_type, tier=tier, proposer=worker, max_assignments=1)
    return Assignment.objects.create(
        hit=hit,
        worker=worker,
        accepted_at=now,
        expires_at=now + hit_type.assignment_duration,
        **external_ids,
    )


def assignment_return(*, assignment_id: int, worker: Worker) -> Assignment:
    """The worker gives the HIT back (Skip). Its slot frees at once; they will not see it again."""
    with transaction.atomic():
        assignment = _locked_assignment(assignment_id, worker)
        if assignment.status == Assignment.Status.SUBMITTED:
            raise WorkRefused("You already submitted this task.")
        assignment.status = Assignment.Status.RETURNED
        assignment.save(update_fields=["status"])
    return assignment


def assignments_expire(*, now=None) -> int:
    """Mark assignments past their deadline expired. They stay, and may still be submitted."""
    return Assignment.objects.filter(
        status=Assignment.Status.ASSIGNED, expires_at__lte=now or timezone.now()
    ).update(status=Assignment.Status.EXPIRED)


def assignment_submit(*, assignment_id: int, worker: Worker, record, submission: str):
    """The shared end of every HIT: store what the worker did for their assignment, once.

    ``record(assignment, hit, now)`` creates the submission row inside the transaction;
    ``submission`` names the assignment's reverse relation to it ("description", "alignment").
    Returns ``(row, created)``; a repeated submission returns the stored row, unchanged. A late
    submission on an expired assignment is accepted while the HIT is under target.
    """
    now = timezone.now()
    with transaction.atomic():
        assignment = _locked_assignment(assignment_id, worker)
        if assignment.status == Assignment.Status.SUBMITTED:
            return getattr(assignment, submission), False
        if assignment.status in (Assignment.Status.RETURNED, Assignment.Status.REJECTED):
            raise WorkRefused("This task was given back and can no longer be submitted.")
        hit = Hit.objects.select_for_update().get(pk=assignment.hit_id)
        if hit.is_full:
            raise WorkRefused(
                "This task has already received all the submissions it needs, so nothing "
                "was stored. Please take another task."
            )
        row = record(assignment, hit, now)
        Hit.objects.filter(pk=hit.pk).update(submitted_count=F("submitted_count") + 1)
        assignment.status = Assignment.Status.SUBMITTED
        assignment.submitted_at = now
        assignment.save(update_fields=["status", "submitted_at"])
    return row, True


def description_submit(
    *,
    assignment_id: int,
    worker: Worker,
    text: str,
    language: str,
    comment: str = "",
) -> tuple[Description, bool]:
    """Store a worker's description for their assignment, exactly once, and queue its scoring.

    The caller has validated the text (forms.DescriptionForm).
    """

    def record(assignment, hit, now):
        description = Description.objects.create(
            segment_id=hit.segment_id,
            assignment=assignment,
            worker=worker,
            tier=hit.tier,
            text=text,
            language=language,
            comment=comment,
            time_spent=max(now - assignment.accepted_at, timedelta(0)),
            created_at=now,
        )
        queue_scoring(hit.segment_id)
        return description

    return assignment_submit(
        assignment_id=assignment_id, worker=worker, record=record, submission="description"
    )


def proposal_submit(
    *,
    assignment_id: int,
    worker: Worker,
    youtube_id: str,
    start: Decimal,
    end: Decimal,
    event: str,
) -> tuple[SegmentProposal, bool]:
    """Store a worker's proposed YouTube segment for their video-collection assignment, once.

    Refused (WorkRefused) when the span breaks the length rule, repeats a segment already
    proposed or in the corpus, or overlaps one of the same video by more than half of the
    shorter of the two (spans.overlaps_too_much). Rejected proposals still count as proposed for
    the exact span, but do not block overlapping spans: a better-timed segment deserves a review.
    Proposals of one video are checked one at a time (an advisory lock on the video), so two
    workers cannot both slip in overlapping spans.
    """
    if not YOUTUBE_ID.match(youtube_id):
        raise WorkRefused("That is not a YouTube video id.")
    _check_length(start, end)
    event = event.strip()
    if not event or len(event) > EVENT_MAX_LENGTH:
        raise WorkRefused(
            f"Say in a few words (at most {EVENT_MAX_LENGTH} characters) what happens."
        )

    def record(assignment, hit, now):
        _lock_video(f"youtube:{youtube_id}")
        conflict = _span_conflict(
            start,
            end,
            segments=Segment.objects.filter(source=Segment.Source.YOUTUBE, youtube_id=youtube_id),
            proposals=SegmentProposal.objects.filter(youtube_id=youtube_id),
        )
        if conflict:
            raise WorkRefused(conflict)
        return SegmentProposal.objects.create(
            assignment=assignment,
            worker=worker,
            tier=hit.tier,
            youtube_id=youtube_id,
            start=start,
            end=end,
            event=event,
            time_spent=max(now - assignment.accepted_at, timedelta(0)),
            created_at=now,
        )

    return assignment_submit(
        assignment_id=assignment_id, worker=worker, record=record, submission="proposal"
    )


def proposal_approve(*, proposal_id: int, reviewer, note: str = "") -> SegmentProposal:
    """Approve a pending proposal: its segment is created and offered for description in both
    tiers with the description HIT type's targets, and the video-collection pay for the
    proposer's tier is recorded on the proposal. Approving twice changes nothing; a rejected
    proposal stays rejected."""
    with transaction.atomic():
        proposal = _pending_proposal(proposal_id, SegmentProposal.Status.APPROVED)
        if proposal.status == SegmentProposal.Status.APPROVED:
            return proposal
        _lock_video(f"youtube:{proposal.youtube_id}")
        conflict = _span_conflict(
            proposal.start,
            proposal.end,
            segments=Segment.objects.filter(
                source=Segment.Source.YOUTUBE, youtube_id=proposal.youtube_id
            ),
            proposals=SegmentProposal.objects.none(),
        )
        if conflict:
            raise WorkRefused(f"{conflict} Reject this proposal instead.")
        proposal.segment = segment_create(
            source=Segment.Source.YOUTUBE,
            youtube_id=proposal.youtube_id,
            start=proposal.start,
            end=proposal.end,
            title=proposal.event,
        )
        proposal.pay_cents = HitType.for_kind(HitType.Kind.VIDEO_COLLECTION).pay_cents(
            proposal.tier
        )
        return _record_review(proposal, SegmentProposal.Status.APPROVED, reviewer, [], note)


def proposal_reject(
    *, proposal_id: int, reviewer, reasons: list[str], note: str = ""
) -> SegmentProposal:
    """Reject a pending proposal with at least one reason (a listed one or a note). It stays
    recorded, earns nothing, and its exact span cannot be proposed again. Rejecting twice
    changes nothing; an approved proposal stays approved."""
    unknown = set(reasons) - set(SegmentProposal.Reason.values)
    if unknown:
        raise WorkRefused(f"Unknown reason: {', '.join(sorted(unknown))}.")
    if not reasons and not note.strip():
        raise WorkRefused("Tick at least one reason or write one.")
    with transaction.atomic():
        proposal = _pending_proposal(proposal_id, SegmentProposal.Status.REJECTED)
        if proposal.status == SegmentProposal.Status.REJECTED:
            return proposal
        proposal.pay_cents = 0
        return _record_review(
            proposal, SegmentProposal.Status.REJECTED, reviewer, sorted(set(reasons)), note
        )


def video_upload(*, file, title: str, uploaded_by) -> VideoFile:
    """Keep an uploaded video in the default storage (local media, or S3 when configured)."""
    return VideoFile.objects.create(file=file, title=title, uploaded_by=uploaded_by)


def segment_cut(*, video: VideoFile, start: Decimal, end: Decimal, title: str = "") -> Segment:
    """A segment of an uploaded video, offered for description in both tiers. The length rule
    and the overlap rule are those of proposed segments, among the segments of that file."""
    _check_length(start, end)
    with transaction.atomic():
        _lock_video(f"file:{video.file.name}")
        conflict = _span_conflict(
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


def _check_length(start: Decimal, end: Decimal) -> None:
    try:
        LengthRule.from_settings().check(start, end)
    except ValidationError as error:
        raise WorkRefused(error.messages[0]) from None


def _lock_video(key: str) -> None:
    """Serialise, until the transaction ends, everyone adding spans of one video."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_advisory_xact_lock(hashtextextended(%s, 0))", [key])


def _span_conflict(start, end, *, segments, proposals) -> str | None:
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


def _pending_proposal(proposal_id: int, decision: str) -> SegmentProposal:
    """The proposal, locked; WorkRefused when it already got the other decision."""
    proposal = SegmentProposal.objects.select_for_update().get(pk=proposal_id)
    if proposal.status not in (SegmentProposal.Status.PENDING, decision):
        who = proposal.reviewed_by.get_username() if proposal.reviewed_by else "someone"
        raise WorkRefused(
            f"This proposal was already {proposal.get_status_display().lower()} by {who}."
        )
    return proposal


def _record_review(proposal, status, reviewer, reasons, note) -> SegmentProposal:
    proposal.status = status
    proposal.reviewed_by = reviewer
    proposal.reviewed_at = timezone.now()
    proposal.reasons = reasons
    proposal.review_note = note.strip()
    proposal.save()
    return proposal


def _locked_assignment(assignment_id: int, worker: Worker) -> Assignment:
    try:
        return (
            Assignment.objects.select_for_update(of=("self",))
            .select_related("hit")
            .get(pk=assignment_id, worker=worker)
        )
    except Assignment.DoesNotExist:
        raise WorkRefused("There is no such task for you.") from None
