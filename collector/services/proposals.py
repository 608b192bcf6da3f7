"""Segment proposals (video-collection HITs): storing them once, and the staff's decision."""

from datetime import timedelta
from decimal import Decimal

from django.db import transaction

from crowd import services as crowd
from crowd.models import HitType, Worker
from crowd.services import WorkRefused

from ..models import Segment, SegmentProposal
from ..youtube import VIDEO_ID as YOUTUBE_ID
from .segments import segment_create, span_conflict, span_length_check, video_lock

EVENT_MAX_LENGTH = SegmentProposal._meta.get_field("event").max_length


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
    span_length_check(start, end)
    event = event.strip()
    if not event or len(event) > EVENT_MAX_LENGTH:
        raise WorkRefused(
            f"Say in a few words (at most {EVENT_MAX_LENGTH} characters) what happens."
        )

    def record(assignment, hit, now):
        video_lock(f"youtube:{youtube_id}")
        conflict = span_conflict(
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

    return crowd.assignment_submit(
        assignment_id=assignment_id, worker=worker, record=record, submission="proposal"
    )


def proposal_approve(*, proposal_id: int, reviewer, note: str = "") -> SegmentProposal:
    """Accept a pending proposal through the one review (``crowd.services.work_accept``): its
    segment is created and offered for description in both tiers with the description HIT
    type's targets, and the video-collection pay for the proposer's tier is recorded on the
    proposal and paid through the ledger, once. Accepting twice changes nothing; a rejected
    proposal stays rejected here (overturning it is ``proposal_overturn``). A proposal a
    crowd platform has not confirmed is refused."""
    with transaction.atomic():
        proposal = _pending_proposal(proposal_id, SegmentProposal.Status.ACCEPTED)
        if proposal.status == SegmentProposal.Status.ACCEPTED:
            return proposal
        if proposal.assignment.verified_at is None:
            raise WorkRefused("The crowd platform has not confirmed this work yet.")
        changes = _segment_for(proposal)
        crowd.work_accept(items=[proposal], reviewer=reviewer, reason=note, changes=changes)
        proposal.refresh_from_db()
        return proposal


def proposal_reject(
    *, proposal_id: int, reviewer, reasons: list[str], note: str = ""
) -> SegmentProposal:
    """Reject a pending proposal with at least one reason (a listed one or a note) through the
    one review (``crowd.services.work_reject``): it stays recorded, earns nothing, its HIT's
    slot reopens and its exact span cannot be proposed again. The worker is shown the note,
    or else the ticked reasons. Rejecting twice changes nothing; an accepted proposal stays
    accepted."""
    unknown = set(reasons) - set(SegmentProposal.Reason.values)
    if unknown:
        raise WorkRefused(f"Unknown reason: {', '.join(sorted(unknown))}.")
    if not reasons and not note.strip():
        raise WorkRefused("Tick at least one reason or write one.")
    reasons = sorted(set(reasons))
    reason = note.strip() or SegmentProposal(reasons=reasons).reasons_text
    with transaction.atomic():
        proposal = _pending_proposal(proposal_id, SegmentProposal.Status.REJECTED)
        if proposal.status == SegmentProposal.Status.REJECTED:
            return proposal
        crowd.work_reject(
            items=[proposal],
            reviewer=reviewer,
            reason=reason,
            changes={"reasons": reasons, "pay_cents": 0},
        )
        proposal.refresh_from_db()
        return proposal


def proposal_overturn(*, proposal_id: int, reviewer, reason: str) -> SegmentProposal:
    """Overturn the rejection of a proposal (``crowd.services.work_overturn``, which needs a
    reason): it is accepted, its segment created and offered, and it is paid."""
    with transaction.atomic():
        proposal = SegmentProposal.objects.select_for_update().get(pk=proposal_id)
        if proposal.status != SegmentProposal.Status.REJECTED:
            raise WorkRefused("Only a rejected proposal can be overturned.")
        if not reason.strip():
            raise WorkRefused("Give a reason for overturning the rejection; the worker sees it.")
        changes = {**_segment_for(proposal), "reasons": []}
        crowd.work_overturn(items=[proposal], reviewer=reviewer, reason=reason, changes=changes)
        proposal.refresh_from_db()
        return proposal


def _segment_for(proposal: SegmentProposal) -> dict:
    """The segment an accepted proposal becomes, and its pay: the fields its acceptance
    writes. Refused when the corpus gained an overlapping segment meanwhile."""
    video_lock(f"youtube:{proposal.youtube_id}")
    conflict = span_conflict(
        proposal.start,
        proposal.end,
        segments=Segment.objects.filter(
            source=Segment.Source.YOUTUBE, youtube_id=proposal.youtube_id
        ),
        proposals=SegmentProposal.objects.none(),
    )
    if conflict:
        raise WorkRefused(f"{conflict} Reject this proposal instead.")
    segment = segment_create(
        source=Segment.Source.YOUTUBE,
        youtube_id=proposal.youtube_id,
        start=proposal.start,
        end=proposal.end,
        title=proposal.event,
    )
    pay_cents = HitType.objects.for_kind(HitType.Kind.VIDEO_COLLECTION).pay_cents(proposal.tier)
    return {"segment": segment, "pay_cents": pay_cents}


def _pending_proposal(proposal_id: int, decision: str) -> SegmentProposal:
    """The proposal, locked; WorkRefused when it already got the other decision."""
    proposal = (
        SegmentProposal.objects.select_for_update(of=("self",))
        .select_related("assignment")
        .get(pk=proposal_id)
    )
    if proposal.status not in (SegmentProposal.Status.PENDING, decision):
        who = proposal.reviewed_by.get_username() if proposal.reviewed_by else "someone"
        raise WorkRefused(
            f"This proposal was already {proposal.get_status_display().lower()} by {who}."
        )
    return proposal
