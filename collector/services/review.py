"""The review every kind of written work shares (descriptions, direct paraphrases): accept
(and pay) or reject with a reason the worker is shown, and accept automatically what nobody
reviewed in time."""

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import timedelta

from django.db import transaction
from django.utils import timezone

from crowd import services as crowd
from crowd.models import AuditEntry, HitType
from crowd.services import WorkRefused


@dataclass
class ReviewOutcome:
    changed: list[int] = field(default_factory=list)
    # Work left as it was: already in that state, or accepted (which is final).
    unchanged: list[int] = field(default_factory=list)
    # Not accepted: a crowd platform has not confirmed the work yet (never paid until it does).
    unverified: list[int] = field(default_factory=list)


def submissions_review(
    model,
    *,
    ids,
    status: str,
    reviewed_by,
    reason: str,
    noun: str,
    after: Callable[[list, str], None] | None = None,
) -> ReviewOutcome:
    """Accept or reject rows of ``model`` (written work with ``status``, ``assignment``,
    ``worker`` and review fields) as one admin action, with a reason the worker is shown.

    Pending work may be accepted or rejected, and a rejection may be overturned; work from a
    crowd platform that the platform has not confirmed (``verified_at``) is never accepted, so
    never paid (``outcome.unverified``). Accepted work is final (it has been paid), as on crowd
    platforms, so the ledger never has to take money back. Accepting credits the pay to the
    ledger, once; rejecting marks the assignment rejected and reopens its HIT slot. Each worker
    concerned gets one audit entry listing their work under ``noun``; ``reviewed_by`` None
    means the automatic acceptance. ``after(changing, previous_status)`` runs inside the same
    transaction with the rows that changed (as they were before), for what else the kind of
    work needs (rescoring).
    """
    accepted, rejected = model.Status.ACCEPTED, model.Status.REJECTED
    if status not in (accepted, rejected):
        raise WorkRefused("A review accepts or rejects.")
    if not reason.strip():
        raise WorkRefused("Give a reason; the worker sees it.")
    reason = reason.strip()
    outcome = ReviewOutcome()
    now = timezone.now()
    with transaction.atomic():
        rows = list(
            model.objects.select_for_update(of=("self",))
            .filter(pk__in=list(ids))
            .select_related("assignment__hit__hit_type")
            .order_by("pk")
        )
        changing = []
        for row in rows:
            if row.status in (status, accepted):
                outcome.unchanged.append(row.pk)
            elif status == accepted and row.assignment_id and row.assignment.verified_at is None:
                outcome.unverified.append(row.pk)
            else:
                changing.append(row)
        if not changing:
            return outcome
        model.objects.filter(pk__in=[row.pk for row in changing]).update(
            status=status, reviewed_by=reviewed_by, reviewed_at=now, review_reason=reason
        )
        assignment_ids = [row.assignment_id for row in changing if row.assignment_id]
        if status == rejected:
            crowd.assignment_reject(assignment_ids=assignment_ids, reason=reason)
        else:
            # Overturned rejections count as submitted again before they are paid.
            crowd.assignment_reinstate(assignment_ids=assignment_ids)
            crowd.ledger_pay_assignments(
                assignments=[row.assignment for row in changing if row.assignment_id],
                reason=f"Accepted: {reason}",
                created_by=reviewed_by,
            )
        by_worker = {}
        for row in changing:
            by_worker.setdefault(row.worker_id, []).append(row.pk)
        action = AuditEntry.Action.ACCEPT if status == accepted else AuditEntry.Action.REJECT
        AuditEntry.objects.bulk_create(
            AuditEntry(
                actor=reviewed_by,
                action=action,
                worker_id=worker_id,
                reason=reason,
                details={noun: ids},
                at=now,
            )
            for worker_id, ids in by_worker.items()
        )
        if after is not None:
            after(changing, status)
        outcome.changed = [row.pk for row in changing]
    return outcome


def submissions_auto_accept(
    model, *, kind: str, review: Callable[..., ReviewOutcome], now=None, batch: int = 1000
) -> int:
    """Accept, and pay, collected work of ``model`` nobody reviewed within its HIT type's
    ``auto_accept_after``, as crowd platforms do, through ``review`` (the kind's review
    service, called with ``ids``, ``status``, ``reviewed_by`` and ``reason``). Work a crowd
    platform has not confirmed waits for it, however old. Returns how many were accepted."""
    now = now or timezone.now()
    hit_type = HitType.objects.for_kind(kind)
    days = hit_type.auto_accept_after / timedelta(days=1)
    reason = f"Accepted automatically after {days:g} day{'' if days == 1 else 's'} without review."
    accepted = 0
    while True:
        due = list(
            model.objects.filter(
                status=model.Status.PENDING,
                assignment__isnull=False,
                assignment__verified_at__isnull=False,
                created_at__lte=now - hit_type.auto_accept_after,
            )
            .order_by("pk")
            .values_list("pk", flat=True)[:batch]
        )
        if not due:
            return accepted
        outcome = review(ids=due, status=model.Status.ACCEPTED, reviewed_by=None, reason=reason)
        accepted += len(outcome.changed)
        if not outcome.changed:
            return accepted
