"""Reviewing submitted work, whatever its kind: one function per decision, one set of rules.

Every kind of work follows ``crowd.models.Reviewed`` (a status, who decided, when, the reason
the worker is shown) and says how to reach its assignment. The rules:

- Pending work is accepted or rejected; a reason is required to reject, optional to accept.
- Accepting pays the assignment once (``ledger_pay_assignments``, which also tells the crowd
  platform through the outbox). Work a platform has not confirmed (``verified_at``) is never
  accepted, so never paid, until it has (``ReviewOutcome.unverified``).
- Rejecting marks the assignment rejected and frees the HIT's slot (``assignment_reject``,
  which also tells the platform).
- A rejection may be overturned, with a reason: the work is accepted, its assignment counts as
  submitted again and it is paid. An acceptance is final (the money is never taken back).
- A decision already taken is not taken twice: each row is claimed with a conditional UPDATE
  and the count checked, so two reviewers deciding at once change it once.
- Each decision is written to the audit log once, one entry per worker listing their work.

A kind that needs more (rescoring a cluster, creating a segment) passes ``changes`` (written
with the decision) and ``after`` (run in the same transaction with the rows decided).
"""

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import timedelta

from django.db import models, transaction
from django.utils import timezone

from ..models import AuditEntry, HitType, ReviewStatus
from .allocation import assignment_reinstate, assignment_reject
from .errors import WorkRefused
from .ledger import ledger_pay_assignments

ACCEPTED_WITHOUT_REASON = "Accepted in review."


@dataclass
class ReviewOutcome:
    changed: list[int] = field(default_factory=list)
    # Left as it was: already decided (by this decision or another one).
    unchanged: list[int] = field(default_factory=list)
    # Not accepted: a crowd platform has not confirmed the work yet (never paid until it does).
    unverified: list[int] = field(default_factory=list)


def work_accept(*, items, reviewer, reason: str = "", changes=None, after=None) -> ReviewOutcome:
    """Accept pending ``items`` (rows, or a queryset, of one kind of work) and pay each once.
    ``reviewer`` None is the automatic acceptance. Rejected work is left alone (overturn it
    with ``work_overturn``), as is work a platform has not confirmed."""
    return _decide(
        items,
        frm=ReviewStatus.PENDING,
        to=ReviewStatus.ACCEPTED,
        reviewer=reviewer,
        reason=reason.strip(),
        changes=changes,
        after=after,
    )


def work_reject(*, items, reviewer, reason: str, changes=None, after=None) -> ReviewOutcome:
    """Reject pending ``items`` with a reason the worker is shown; their assignments are marked
    rejected and their HITs' slots reopen. Accepted work is final and left alone."""
    reason = reason.strip()
    if not reason:
        raise WorkRefused("Give a reason; the worker sees it.")
    return _decide(
        items,
        frm=ReviewStatus.PENDING,
        to=ReviewStatus.REJECTED,
        reviewer=reviewer,
        reason=reason,
        changes=changes,
        after=after,
    )


def work_overturn(*, items, reviewer, reason: str, changes=None, after=None) -> ReviewOutcome:
    """Overturn the rejection of ``items``: they are accepted, their assignments count as
    submitted again (one more than the HIT wanted, if its slot was filled meanwhile) and they
    are paid. Needs a reason. Only a rejection is overturned; an acceptance is final."""
    reason = reason.strip()
    if not reason:
        raise WorkRefused("Give a reason for overturning the rejection; the worker sees it.")
    return _decide(
        items,
        frm=ReviewStatus.REJECTED,
        to=ReviewStatus.ACCEPTED,
        reviewer=reviewer,
        reason=reason,
        changes=changes,
        after=after,
    )


def work_auto_accept(
    model, *, kind: str, now=None, hold: Iterable[int] = (), batch: int = 1000, after=None
) -> int:
    """Accept, and pay, pending work of ``model`` nobody reviewed within the ``kind`` HIT
    type's ``auto_accept_after``, as crowd platforms do; the rows in ``hold`` (their ids) wait
    for staff. Work a platform has not confirmed waits for it however old; imported work (no
    assignment) and kinds that need a person's decision (``review_auto_accept`` False) are
    never accepted this way. Returns how many were accepted; running it again accepts nothing
    more."""
    if not model.review_auto_accept:
        return 0
    now = now or timezone.now()
    hit_type = HitType.objects.for_kind(kind)
    days = hit_type.auto_accept_after / timedelta(days=1)
    reason = f"Accepted automatically after {days:g} day{'' if days == 1 else 's'} without review."
    path = model.review_assignment
    due = (
        model.objects.filter(
            status=ReviewStatus.PENDING,
            created_at__lte=now - hit_type.auto_accept_after,
            **{f"{path}__isnull": False, f"{path}__verified_at__isnull": False},
        )
        .exclude(pk__in=list(hold))
        .order_by("pk")
    )
    accepted = 0
    while True:
        ids = list(due.values_list("pk", flat=True)[:batch])
        if not ids:
            return accepted
        outcome = work_accept(
            items=model.objects.filter(pk__in=ids), reviewer=None, reason=reason, after=after
        )
        accepted += len(outcome.changed)
        if not outcome.changed:
            return accepted


def _decide(
    items,
    *,
    frm: str,
    to: str,
    reviewer,
    reason: str,
    changes: dict | None,
    after: Callable[[list, str, str], None] | None,
) -> ReviewOutcome:
    outcome = ReviewOutcome()
    model, ids = _model_and_ids(items)
    if model is None:
        return outcome
    path = model.review_assignment
    now = timezone.now()
    with transaction.atomic():
        rows = list(
            model.objects.filter(pk__in=ids).select_related(f"{path}__hit__hit_type").order_by("pk")
        )
        decided = []
        for row in rows:
            assignment = getattr(row, path)
            if row.status != frm:
                outcome.unchanged.append(row.pk)
                continue
            if to == ReviewStatus.ACCEPTED and assignment and assignment.verified_at is None:
                outcome.unverified.append(row.pk)
                continue
            claimed = model.objects.filter(pk=row.pk, status=frm).update(
                status=to,
                reviewed_by=reviewer,
                reviewed_at=now,
                review_reason=reason,
                **(changes or {}),
            )
            if claimed != 1:
                outcome.unchanged.append(row.pk)  # another reviewer got there first
                continue
            decided.append(row)
        if not decided:
            return outcome
        assignments = [getattr(row, path) for row in decided if getattr(row, f"{path}_id")]
        if to == ReviewStatus.REJECTED:
            assignment_reject(assignment_ids=[a.pk for a in assignments], reason=reason)
        else:
            if frm == ReviewStatus.REJECTED:
                # An overturned rejection counts as submitted again before it is paid.
                assignment_reinstate(assignment_ids=[a.pk for a in assignments])
            ledger_pay_assignments(
                assignments=assignments,
                reason=reason or ACCEPTED_WITHOUT_REASON,
                created_by=reviewer,
            )
        _audit(model, decided, frm=frm, to=to, reviewer=reviewer, reason=reason, at=now)
        if after is not None:
            after(decided, to, frm)
        outcome.changed = [row.pk for row in decided]
    return outcome


def _model_and_ids(items) -> tuple[type | None, list[int]]:
    if isinstance(items, models.QuerySet):
        return items.model, list(items.values_list("pk", flat=True))
    items = list(items)
    if not items:
        return None, []
    model = type(items[0])
    if any(type(item) is not model for item in items):
        raise TypeError("A review decides work of one kind at a time.")
    return model, [item.pk for item in items]


def _audit(model, decided, *, frm, to, reviewer, reason, at) -> None:
    by_worker = {}
    for row in decided:
        by_worker.setdefault(row.worker_id, []).append(row.pk)
    action = AuditEntry.Action.REJECT if to == ReviewStatus.REJECTED else AuditEntry.Action.ACCEPT
    details_extra = {"overturned": True} if frm == ReviewStatus.REJECTED else {}
    AuditEntry.objects.bulk_create(
        AuditEntry(
            actor=reviewer,
            action=action,
            worker_id=worker_id,
            reason=reason or ACCEPTED_WITHOUT_REASON,
            details={model.review_noun: ids, **details_extra},
            at=at,
        )
        for worker_id, ids in by_worker.items()
    )
