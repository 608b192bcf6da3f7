"""The ledger: what workers have earned (one credit per accepted task or bonus), and payouts."""

from datetime import datetime, timedelta

from django.db import IntegrityError, transaction
from django.db.models import Sum
from django.utils import timezone

from ..models import Assignment, AuditEntry, HitType, LedgerEntry, Payout, Worker
from .errors import WorkRefused
from .workers import audit_record


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


def assignments_auto_pay(*, kind: str, now=None, batch: int = 1000) -> int:
    """Pay the submitted assignments of a kind of HIT that has no review of its own (word
    alignment), once its ``auto_accept_after`` has passed, as unreviewed descriptions are.
    Returns how many were paid; paying is once per assignment, so running it again pays
    nothing more."""
    now = now or timezone.now()
    hit_type = HitType.objects.for_kind(kind)
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
