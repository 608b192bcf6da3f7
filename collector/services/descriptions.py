"""Descriptions: storing a worker's description once and queueing its scoring, and the review
that accepts (and pays) or rejects them."""

from dataclasses import dataclass, field
from datetime import timedelta

from django.db import transaction
from django.utils import timezone

from crowd import services as crowd
from crowd.models import AuditEntry, HitType, Worker
from crowd.services import WorkRefused
from paracrowd.celery import enqueue

from ..models import Description

# Work queued in the apps that build on this one, by task name.
SCORE_SEGMENTS = "scoring.tasks.score_segments"
REFRESH_WORKER_SIGNALS = "review.tasks.refresh_worker_signals"


def description_submit(
    *,
    assignment_id: int,
    worker: Worker,
    text: str,
    language: str,
    comment: str = "",
) -> tuple[Description, bool]:
    """Store a worker's description for their assignment, exactly once, and queue its scoring.

    The caller has validated the text (forms.DescriptionForm). An assignment that is not the
    worker's own description task is refused (``WorkRefused``), whoever's it is.
    """

    def record(assignment, hit, now):
        segment_id = hit.item.segment.pk
        description = Description.objects.create(
            segment_id=segment_id,
            assignment=assignment,
            worker=worker,
            tier=hit.tier,
            text=text,
            language=language,
            comment=comment,
            time_spent=max(now - assignment.accepted_at, timedelta(0)),
            created_at=now,
        )
        enqueue(SCORE_SEGMENTS, [segment_id])
        enqueue(REFRESH_WORKER_SIGNALS, worker.pk)
        return description

    return crowd.assignment_submit(
        assignment_id=assignment_id,
        worker=worker,
        record=record,
        submission="description",
        kind=HitType.Kind.DESCRIPTION,
        related=("hit__item__segment",),
    )


@dataclass
class ReviewOutcome:
    changed: list[int] = field(default_factory=list)
    # Descriptions left as they were: already in that state, or accepted (which is final).
    unchanged: list[int] = field(default_factory=list)
    # Not accepted: a crowd platform has not confirmed the work yet (never paid until it does).
    unverified: list[int] = field(default_factory=list)


def descriptions_review(*, description_ids, status: str, reviewed_by, reason: str) -> ReviewOutcome:
    """Accept or reject descriptions as one admin action, with a reason the worker is shown.

    Pending work may be accepted or rejected, and a rejection may be overturned; work from a
    crowd platform that the platform has not confirmed (``verified_at``) is never accepted, so
    never paid or exported as accepted (``outcome.unverified``). An accepted
    description is final (it has been paid), as on crowd platforms, so paid work is never
    rejected and the ledger never has to take money back. Accepting a collected description
    credits its pay to the ledger, once. Rejected descriptions are kept, marked, and leave the
    corpus's scores; their assignments are marked rejected and their HIT slots reopen, so spam
    never keeps a segment from reaching its target. Each worker concerned gets one audit entry
    listing their descriptions; ``reviewed_by`` None means the automatic acceptance.
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
            elif (
                status == Description.Status.ACCEPTED
                and description.assignment_id
                and description.assignment.verified_at is None
            ):
                outcome.unverified.append(description.pk)
            else:
                changing.append(description)
        if not changing:
            return outcome
        Description.objects.filter(pk__in=[d.pk for d in changing]).update(
            status=status, reviewed_by=reviewed_by, reviewed_at=now, review_reason=reason.strip()
        )
        assignment_ids = [d.assignment_id for d in changing if d.assignment_id]
        if status == Description.Status.REJECTED:
            crowd.assignment_reject(assignment_ids=assignment_ids, reason=reason.strip())
        else:
            # Overturned rejections count as submitted again before they are paid.
            crowd.assignment_reinstate(assignment_ids=assignment_ids)
            crowd.ledger_pay_assignments(
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
            enqueue(SCORE_SEGMENTS, [segment_id])
        for worker_id in sorted(w for w in by_worker if w is not None):
            enqueue(REFRESH_WORKER_SIGNALS, worker_id)
        outcome.changed = [d.pk for d in changing]
    return outcome


def descriptions_auto_accept(*, now=None, batch: int = 1000) -> int:
    """Accept, and pay, collected descriptions nobody reviewed within their HIT type's
    ``auto_accept_after``, as crowd platforms do. Returns how many were accepted."""
    now = now or timezone.now()
    hit_type = HitType.objects.for_kind(HitType.Kind.DESCRIPTION)
    days = hit_type.auto_accept_after / timedelta(days=1)
    reason = f"Accepted automatically after {days:g} day{'' if days == 1 else 's'} without review."
    accepted = 0
    while True:
        due = list(
            Description.objects.filter(
                status=Description.Status.PENDING,
                assignment__isnull=False,
                # Work a crowd platform has not confirmed waits for it, however old.
                assignment__verified_at__isnull=False,
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
