"""Writes that span models: opening HITs, handing out work, taking it back in, qualifying
workers, reviewing and paying their work.

Every function here is safe under concurrency. The database enforces the invariants (one
assignment per worker per HIT, never more submissions than a HIT's target, one payment per
task); the code checks them too so that a lost race ends in a clear ``WorkRefused``, not in bad
data. Every change an admin (or an automatic rule) makes to a worker's standing or work is
written to the audit log in the same transaction.
"""

import logging
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from decimal import Decimal

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.db import IntegrityError, connection, transaction
from django.db.models import F, Q, Sum
from django.utils import timezone

from review.tasks import queue_signals_refresh
from scoring.tasks import queue_scoring

from .models import (
    Assignment,
    AuditEntry,
    Description,
    Hit,
    HitType,
    LedgerEntry,
    Payout,
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


def audit_record(
    *, actor, action: str, reason: str, worker: Worker | None = None, details=None
) -> AuditEntry:
    """One line of the audit log. Call it inside the transaction that makes the change."""
    if not reason.strip():
        raise WorkRefused("Give a reason; it goes into the audit log.")
    return AuditEntry.objects.create(
        actor=actor, action=action, worker=worker, reason=reason.strip(), details=details or {}
    )


def qualification_grant(*, worker: Worker, tier: int, granted_by, reason: str) -> Qualification:
    """Grant ``tier`` to ``worker`` (a promotion), audit-logged; ``granted_by`` None means an
    automatic rule. Granting a tier already held returns the existing grant, unchanged."""
    if not reason.strip():
        raise WorkRefused("A qualification needs a reason.")
    try:
        with transaction.atomic():
            qualification = Qualification.objects.create(
                worker=worker, tier=tier, granted_by=granted_by, reason=reason.strip()
            )
            audit_record(
                actor=granted_by,
                action=AuditEntry.Action.PROMOTE,
                worker=worker,
                reason=reason,
                details={"tier": tier, "qualification": qualification.pk},
            )
            return qualification
    except IntegrityError:
        return Qualification.objects.active().get(worker=worker, tier=tier)


def qualification_revoke(*, worker: Worker, tier: int, revoked_by, reason: str) -> Qualification:
    """Take ``tier`` away from ``worker`` (a demotion), audit-logged. The grant is kept, marked
    revoked. Tasks they already hold in that tier may still be submitted."""
    if not reason.strip():
        raise WorkRefused("A demotion needs a reason.")
    with transaction.atomic():
        qualification = (
            Qualification.objects.active()
            .select_for_update()
            .filter(worker=worker, tier=tier)
            .first()
        )
        if qualification is None:
            raise WorkRefused(f"{worker} does not hold the Tier-{tier} qualification.")
        qualification.revoked_by = revoked_by
        qualification.revoked_at = timezone.now()
        qualification.revoke_reason = reason.strip()
        qualification.save(update_fields=["revoked_by", "revoked_at", "revoke_reason"])
        audit_record(
            actor=revoked_by,
            action=AuditEntry.Action.DEMOTE,
            worker=worker,
            reason=reason,
            details={"tier": tier, "qualification": qualification.pk},
        )
    return qualification


def worker_block(*, worker: Worker, blocked_by, reason: str) -> None:
    """Stop ``worker`` from taking new tasks, audit-logged. Tasks they hold may still be
    submitted (and reviewed) so that no finished work is lost."""
    with transaction.atomic():
        if Worker.objects.filter(pk=worker.pk, blocked_at__isnull=True).update(
            blocked_at=timezone.now()
        ):
            audit_record(
                actor=blocked_by, action=AuditEntry.Action.BLOCK, worker=worker, reason=reason
            )
        else:
            raise WorkRefused(f"{worker} is already blocked.")
    worker.refresh_from_db(fields=["blocked_at"])


def worker_unblock(*, worker: Worker, unblocked_by, reason: str) -> None:
    """Let a blocked worker take tasks again, audit-logged."""
    with transaction.atomic():
        if Worker.objects.filter(pk=worker.pk, blocked_at__isnull=False).update(blocked_at=None):
            audit_record(
                actor=unblocked_by, action=AuditEntry.Action.UNBLOCK, worker=worker, reason=reason
            )
        else:
            raise WorkRefused(f"{worker} is not blocked.")
    worker.refresh_from_db(fields=["blocked_at"])


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
        blocked = (
            Worker.objects.select_for_update(no_key=True)
            .filter(pk=worker.pk)
            .values_list("blocked_at", flat=True)
            .get()
        )
        if blocked:
            raise WorkRefused("Your account can no longer take new tasks.")
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
        queue_signals_refresh(worker.pk)
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
    proposer's tier is recorded on the proposal and credited in the ledger. Approving twice
    changes nothing; a rejected proposal stays rejected."""
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
        approved = _record_review(proposal, SegmentProposal.Status.APPROVED, reviewer, [], note)
        if proposal.pay_cents:
            # Paid through the same ledger as every other task, once per assignment.
            ledger_credit(
                worker=proposal.worker,
                amount_cents=proposal.pay_cents,
                kind=LedgerEntry.Kind.TASK,
                reason=f"Approved segment proposal {proposal.pk}",
                source=f"assignment:{proposal.assignment_id}",
                tier=proposal.tier,
                assignment=proposal.assignment,
                created_by=reviewer,
            )
        return approved


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


def ledger_credit(
    *,
    worker: Worker,
    amount_cents: int,
    kind: str,
    reason: str,
    source: str,
    tier: int | None = None,
    assignment: Assignment | None = None,
    created_by=None,
) -> tuple[LedgerEntry, bool]:
    """Credit ``worker`` with ``amount_cents`` (a positive whole number of cents), once per
    ``source``: crediting a source again returns the stored entry with ``created`` False and
    changes nothing. Any kind of work can be paid this way; name the source after what is
    paid for ("assignment:12", "bonus:…")."""
    if isinstance(amount_cents, bool) or not isinstance(amount_cents, int) or amount_cents <= 0:
        raise WorkRefused("An amount must be a positive whole number of cents.")
    if not reason.strip() or not source:
        raise WorkRefused("A payment needs a reason and a source.")
    try:
        with transaction.atomic():
            entry = LedgerEntry.objects.create(
                worker=worker,
                amount_cents=amount_cents,
                kind=kind,
                reason=reason.strip(),
                source=source,
                tier=tier,
                assignment=assignment,
                created_by=created_by,
            )
            return entry, True
    except IntegrityError:
        return LedgerEntry.objects.get(source=source), False


def ledger_pay_assignments(*, assignments, reason: str, created_by=None) -> int:
    """Credit each assignment's worker with its HIT type's pay in its tier, once per
    assignment (whatever the kind of HIT). Assignments whose pay is zero earn nothing.
    Returns how many were credited now. Pass assignments with ``hit__hit_type`` loaded."""
    entries = [
        LedgerEntry(
            worker_id=assignment.worker_id,
            kind=LedgerEntry.Kind.TASK,
            amount_cents=assignment.hit.hit_type.pay_cents(assignment.hit.tier),
            tier=assignment.hit.tier,
            assignment=assignment,
            source=f"assignment:{assignment.pk}",
            reason=reason.strip(),
            created_by=created_by,
        )
        for assignment in assignments
    ]
    entries = [entry for entry in entries if entry.amount_cents > 0]
    if not entries:
        return 0
    sources = [entry.source for entry in entries]
    before = LedgerEntry.objects.filter(source__in=sources).count()
    LedgerEntry.objects.bulk_create(entries, ignore_conflicts=True, batch_size=1000)
    return LedgerEntry.objects.filter(source__in=sources).count() - before


def bonus_pay(
    *, worker: Worker, amount_cents: int, reason: str, paid_by, token: str
) -> tuple[LedgerEntry, bool]:
    """Pay ``worker`` a bonus, audit-logged. ``token`` comes from the bonus form, so that a
    form sent twice pays once."""
    with transaction.atomic():
        entry, created = ledger_credit(
            worker=worker,
            amount_cents=amount_cents,
            kind=LedgerEntry.Kind.BONUS,
            reason=reason,
            source=f"bonus:{token}",
            created_by=paid_by,
        )
        if created:
            audit_record(
                actor=paid_by,
                action=AuditEntry.Action.BONUS,
                worker=worker,
                reason=reason,
                details={"amount_cents": amount_cents, "ledger_entry": entry.pk},
            )
    return entry, created


def payout_record(*, through: datetime, paid_by, reason: str) -> Payout | None:
    """Mark every unpaid ledger entry made up to ``through`` as paid, in one payout,
    audit-logged. None when there is nothing unpaid."""
    with transaction.atomic():
        unpaid = LedgerEntry.objects.select_for_update().filter(
            payout__isnull=True, created_at__lte=through
        )
        ids = list(unpaid.values_list("pk", flat=True))
        if not ids:
            return None
        total = LedgerEntry.objects.filter(pk__in=ids).aggregate(total=Sum("amount_cents"))
        payout = Payout.objects.create(
            created_by=paid_by, through=through, reason=reason.strip(), total_cents=total["total"]
        )
        LedgerEntry.objects.filter(pk__in=ids).update(payout=payout)
        audit_record(
            actor=paid_by,
            action=AuditEntry.Action.PAYOUT,
            reason=reason,
            details={"payout": payout.pk, "entries": len(ids), "total_cents": total["total"]},
        )
    return payout


@dataclass
class ReviewOutcome:
    changed: list[int] = field(default_factory=list)
    # Descriptions left as they were: already in that state, or accepted (which is final).
    unchanged: list[int] = field(default_factory=list)


def descriptions_review(*, description_ids, status: str, reviewed_by, reason: str) -> ReviewOutcome:
    """Accept or reject descriptions as one admin action, with a reason the worker is shown.

    Pending work may be accepted or rejected, and a rejection may be overturned; an accepted
    description is final (it has been paid), as on crowd platforms. Accepting a collected
    description credits its pay to the ledger, once. Rejected descriptions are kept, marked,
    and leave the corpus's scores. Each worker concerned gets one audit entry listing their
    descriptions; ``reviewed_by`` None means the automatic acceptance.
    """
    if status not in (Description.Status.ACCEPTED, Description.Status.REJECTED):
        raise WorkRefused("A review accepts or rejects.")
    if not reason.strip():
        raise WorkRefused("Give a reason; the worker sees it.")
    outcome = ReviewOutcome()
    now = timezone.now()
    with transaction.atomic():
        descriptions = list(
            Description.objects.select_for_update(of=("self",))
            .filter(pk__in=list(description_ids))
            .select_related("assignment__hit__hit_type")
            .order_by("pk")
        )
        changing = []
        for description in descriptions:
            if description.status in (status, Description.Status.ACCEPTED):
                outcome.unchanged.append(description.pk)
            else:
                changing.append(description)
        if not changing:
            return outcome
        Description.objects.filter(pk__in=[d.pk for d in changing]).update(
            status=status, reviewed_by=reviewed_by, reviewed_at=now, review_reason=reason.strip()
        )
        if status == Description.Status.ACCEPTED:
            ledger_pay_assignments(
                assignments=[d.assignment for d in changing if d.assignment_id],
                reason=f"Accepted: {reason.strip()}",
                created_by=reviewed_by,
            )
        by_worker = {}
        for description in changing:
            by_worker.setdefault(description.worker_id, []).append(description.pk)
        action = (
            AuditEntry.Action.ACCEPT
            if status == Description.Status.ACCEPTED
            else AuditEntry.Action.REJECT
        )
        AuditEntry.objects.bulk_create(
            AuditEntry(
                actor=reviewed_by,
                action=action,
                worker_id=worker_id,
                reason=reason.strip(),
                details={"descriptions": ids},
                at=now,
            )
            for worker_id, ids in by_worker.items()
        )
        # Rejecting, or overturning a rejection, changes who is in a cluster; accepting
        # pending work does not (pending descriptions are scored already).
        moved = {
            d.segment_id for d in changing if Description.Status.REJECTED in (status, d.status)
        }
        for segment_id in sorted(moved):
            queue_scoring(segment_id)
        for worker_id in sorted(w for w in by_worker if w is not None):
            queue_signals_refresh(worker_id)
        outcome.changed = [d.pk for d in changing]
    return outcome


def descriptions_auto_accept(*, now=None, batch: int = 1000) -> int:
    """Accept, and pay, collected descriptions nobody reviewed within their HIT type's
    ``auto_accept_after``, as crowd platforms do. Returns how many were accepted."""
    now = now or timezone.now()
    hit_type = HitType.for_kind(HitType.Kind.DESCRIPTION)
    days = hit_type.auto_accept_after / timedelta(days=1)
    reason = f"Accepted automatically after {days:g} day{'' if days == 1 else 's'} without review."
    accepted = 0
    while True:
        due = list(
            Description.objects.filter(
                status=Description.Status.PENDING,
                assignment__isnull=False,
                created_at__lte=now - hit_type.auto_accept_after,
            )
            .order_by("pk")
            .values_list("pk", flat=True)[:batch]
        )
        if not due:
            return accepted
        outcome = descriptions_review(
            description_ids=due, status=Description.Status.ACCEPTED, reviewed_by=None, reason=reason
        )
        accepted += len(outcome.changed)
        if not outcome.changed:
            return accepted


def assignments_auto_pay(*, kind: str, now=None, batch: int = 1000) -> int:
    """Pay the submitted assignments of a kind of HIT that has no review of its own (word
    alignment), once its ``auto_accept_after`` has passed, as unreviewed descriptions are.
    Returns how many were paid; paying is once per assignment, so running it again pays
    nothing more."""
    now = now or timezone.now()
    hit_type = HitType.for_kind(kind)
    days = hit_type.auto_accept_after / timedelta(days=1)
    reason = f"Accepted automatically after {days:g} day{'' if days == 1 else 's'}."
    paid = 0
    while True:
        due = list(
            Assignment.objects.filter(
                hit__hit_type=hit_type,
                status=Assignment.Status.SUBMITTED,
                submitted_at__lte=now - hit_type.auto_accept_after,
                ledger_entry__isnull=True,
            )
            .select_related("hit__hit_type")
            .order_by("pk")[:batch]
        )
        credited = ledger_pay_assignments(assignments=due, reason=reason) if due else 0
        paid += credited
        if not credited:
            return paid


def _locked_assignment(assignment_id: int, worker: Worker) -> Assignment:
    try:
        return (
            Assignment.objects.select_for_update(of=("self",))
            .select_related("hit")
            .get(pk=assignment_id, worker=worker)
        )
    except Assignment.DoesNotExist:
        raise WorkRefused("There is no such task for you.") from None
