"""The ledger: what workers have earned and what the platforms charge, and payouts.

What a platform pays is booked as it pays it: a task done alone, a session's base reward when
the session is approved (whatever number of its tasks was accepted), each bonus once, and the
platform's fee on each of these as an entry of its own (``fee:<source>``, nobody's earnings).
Sources are unique in the database, so nothing is booked twice."""

from datetime import datetime, timedelta

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import Case, F, IntegerField, Q, Sum, Value, When
from django.db.models.functions import Greatest
from django.utils import timezone

from .. import platforms
from ..models import (
    Assignment,
    AuditEntry,
    Campaign,
    HitType,
    LedgerEntry,
    Payout,
    PlatformAction,
    Worker,
    WorkSession,
)
from .errors import WorkRefused
from .outbox import platform_action_queue, platform_actions_queue
from .sessions import session_position
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
    campaign: Campaign | None = None,
    created_by=None,
) -> tuple[LedgerEntry, bool]:
    """Credit ``worker`` with ``amount_cents`` (a positive whole number of cents), once per
    ``source``: crediting a source again returns the stored entry with ``created`` False and
    changes nothing. Any kind of work can be paid this way; name the source after what is
    paid for ("assignment:12", "bonus:…"). Money a ``campaign``'s platform pays carries its
    fee as an entry of its own (``fee:<source>``), booked with it."""
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
                campaign=campaign,
                created_by=created_by,
            )
            _fees_book([entry])
            return entry, True
    except IntegrityError:
        return LedgerEntry.objects.get(source=source), False


def ledger_pay_assignments(*, assignments, reason: str, created_by=None) -> int:
    """Credit each verified assignment's worker once per assignment (whatever the kind of
    HIT), as its platform pays it. Work done alone earns its pay (its campaign's pay per task
    where the campaign sets one, else its HIT type's pay in its tier). Work done in a
    platform session is paid as the session: the first accepted task books the session's
    base ``REWARD`` (once, whatever number of its tasks is accepted, since the platform pays
    the whole reward on approval), a task within the session's minimum is covered by it (a
    ``TASK`` entry of 0 records it accepted) and a task past the minimum earns a ``BONUS``.
    Each payment a platform makes carries its fee as an entry of its own.

    Unverified assignments (a platform has not shown them submitted yet) are skipped and paid
    when verified; assignments whose pay is zero earn nothing. Work that came through a
    campaign is also paid on its platform, through the outbox (see ``_approvals_queue``),
    with ``reason`` as the worker's feedback. Returns how many assignments were credited now.
    Pass assignments with ``hit__hit_type`` loaded; call it inside the decision's
    transaction."""
    verified = [assignment for assignment in assignments if assignment.verified_at is not None]
    campaigns = Campaign.objects.in_bulk({a.campaign_id for a in verified if a.campaign_id})
    sessions = WorkSession.objects.in_bulk(
        {a.session_id for a in verified if a.session_id and a.campaign_id}
    )
    entries = {}
    for assignment in verified:
        campaign = campaigns.get(assignment.campaign_id)
        entry = LedgerEntry(
            worker_id=assignment.worker_id,
            kind=LedgerEntry.Kind.TASK,
            amount_cents=(campaign.task_cents if campaign else 0)
            or assignment.hit.hit_type.pay_cents(assignment.hit.tier),
            tier=assignment.hit.tier,
            assignment=assignment,
            campaign=campaign,
            source=f"assignment:{assignment.pk}",
            reason=reason.strip(),
            created_by=created_by,
        )
        session = sessions.get(assignment.session_id)
        if session is not None:
            if session_position(assignment) <= session.task_minimum:
                entry.amount_cents, entry.covered = 0, True
            else:
                entry.kind = LedgerEntry.Kind.BONUS
            reward = LedgerEntry(
                worker_id=assignment.worker_id,
                kind=LedgerEntry.Kind.REWARD,
                amount_cents=campaign.reward_cents,
                tier=assignment.hit.tier,
                campaign=campaign,
                source=f"session:{session.pk}",
                reason=reason.strip() or f"Session {session.external_id} approved.",
                created_by=created_by,
            )
            entries.setdefault(reward.source, reward)
        entries[entry.source] = entry
    wanted = [e for e in entries.values() if e.amount_cents > 0 or getattr(e, "covered", False)]
    if not wanted:
        return 0
    sources = [entry.source for entry in wanted]
    with transaction.atomic():
        before = set(
            LedgerEntry.objects.filter(source__in=sources).values_list("source", flat=True)
        )
        LedgerEntry.objects.bulk_create(wanted, ignore_conflicts=True, batch_size=1000)
        new = [source for source in sources if source not in before]
        booked = list(
            LedgerEntry.objects.filter(source__in=new)
            .select_related("worker", "campaign", "assignment__campaign", "assignment__session")
            .order_by("pk")
        )
        _fees_book(booked)
        _approvals_queue(booked, feedback=reason.strip())
    return sum(1 for source in new if source.startswith("assignment:"))


def _fees_book(entries: list[LedgerEntry]) -> None:
    """Book the platform's fee on each payment a campaign's platform makes (a task paid
    alone, a session's reward, a bonus), once: ``fee:<source>``, belonging to no worker, so
    it is never counted as anyone's earnings. Inside the transaction that books them."""
    fees = []
    for entry in entries:
        if entry.campaign_id is None or entry.kind == LedgerEntry.Kind.FEE:
            continue
        cents = platforms.get(entry.campaign.platform).fee_cents(entry.amount_cents)
        if cents > 0:
            fees.append(
                LedgerEntry(
                    worker=None,
                    campaign_id=entry.campaign_id,
                    kind=LedgerEntry.Kind.FEE,
                    amount_cents=cents,
                    tier=entry.tier,
                    source=f"fee:{entry.source}"[:100],
                    reason=f"The platform's fee on {entry.source}.",
                )
            )
    LedgerEntry.objects.bulk_create(fees, ignore_conflicts=True)


def _approvals_queue(entries: list[LedgerEntry], *, feedback: str) -> None:
    """Queue what the platform must do for each new entry whose work came through a
    campaign. Work done alone (Mechanical Turk) is approved by itself; a rejection already
    queued for it is overridden (OverrideRejection), whether or not it has been sent yet:
    the outbox sends in order, and a rejection still waiting when its work is reinstated is
    never sent. A session is approved once, paying its reward, and each task past its
    minimum is paid as a bonus on it."""
    paid = [entry for entry in entries if entry.campaign_id is not None]
    if not paid:
        return
    alone = [
        entry
        for entry in paid
        if entry.assignment_id
        and entry.assignment.session_id is None
        and entry.kind == LedgerEntry.Kind.TASK
    ]
    rejected = set(
        PlatformAction.objects.filter(
            kind=PlatformAction.Kind.REJECT, assignment__in=[e.assignment_id for e in alone]
        ).values_list("assignment_id", flat=True)
    )
    actions = [
        PlatformAction(
            kind=PlatformAction.Kind.APPROVE,
            worker=entry.worker,
            token=f"approve:assignment:{entry.assignment_id}",
            assignment=entry.assignment,
            ledger_entry=entry,
            details={
                "feedback": feedback,
                "override_rejection": entry.assignment_id in rejected,
            },
        )
        for entry in alone
    ]
    actions += _session_payments([entry for entry in paid if entry not in alone])
    platform_actions_queue(actions)


def _session_payments(entries: list[LedgerEntry]) -> list[PlatformAction]:
    """A session is one submission on its platform, paid its base reward when approved, and
    every task beyond the campaign's minimum earns a bonus on top: the session's ``REWARD``
    entry approves it (once: the token names the session), and each ``BONUS`` entry of a task
    in it is paid as a bonus on the session."""
    in_session = {
        entry.assignment.session_id: entry.assignment
        for entry in reversed(entries)
        if entry.assignment_id and entry.assignment.session_id
    }
    approvals, bonuses = [], []
    for entry in entries:
        if entry.kind == LedgerEntry.Kind.REWARD:
            session_id = int(entry.source.removeprefix("session:"))
            assignment = in_session.get(session_id) or (
                Assignment.objects.filter(session=session_id).select_related("session").first()
            )
            approvals.append(
                PlatformAction(
                    kind=PlatformAction.Kind.APPROVE,
                    worker=entry.worker,
                    token=f"approve:session:{session_id}",
                    assignment=assignment,
                    session=assignment.session,
                    ledger_entry=entry,
                    details={"feedback": ""},
                )
            )
        elif entry.kind == LedgerEntry.Kind.BONUS and entry.assignment_id:
            assignment, session = entry.assignment, entry.assignment.session
            bonuses.append(
                PlatformAction(
                    kind=PlatformAction.Kind.BONUS,
                    worker=entry.worker,
                    token=f"bonus:ledger:{entry.pk}",
                    assignment=assignment,
                    session=session,
                    ledger_entry=entry,
                    details={
                        "cents": entry.amount_cents,
                        "reason": f"Task {session_position(assignment)} of session "
                        f"{session.external_id}.",
                    },
                )
            )
    # Approved before any bonus on it is paid.
    return approvals + bonuses


def ledger_fee(*, amount: str = "amount_cents", platform: str = "worker__platform"):
    """The crowd platform's fee on one ledger entry, in whole cents, as SQL: the percentage
    (``PLATFORM_FEE_PERCENT``), rounded half up, and at least the minimum; nothing on the work
    of a local sign-up, which no platform carries and none charges for. Integer arithmetic;
    money never passes through floats."""
    percent = settings.PLATFORM_FEE_PERCENT
    return Case(
        When(**{f"{platform}__in": platforms.origins_where("fee_free")}, then=Value(0)),
        default=Greatest(
            (F(amount) * Value(percent) + Value(50)) / Value(100),
            Value(settings.PLATFORM_FEE_MINIMUM_CENTS),
        ),
        output_field=IntegerField(),
    )


def fee_on(amount_cents: int, *, platform: str) -> int:
    """The same fee, in Python, for a payment not in the ledger yet."""
    if not amount_cents or platform in platforms.origins_where("fee_free"):
        return 0
    percent, minimum = settings.PLATFORM_FEE_PERCENT, settings.PLATFORM_FEE_MINIMUM_CENTS
    return max((amount_cents * percent + 50) // 100, minimum)


def platform_approval_record(*, assignment: Assignment, approved_at) -> bool:
    """The platform approved (and paid) ``assignment`` by itself, its auto-approval delay
    having passed before we decided: credit the ledger for it, once, and record the approval
    as done by the platform at ``approved_at``, so the ledger shows it paid there. The sync
    calls this. Returns True when it was recorded now; again, it changes nothing."""
    campaign = assignment.campaign
    amount = campaign.reward_cents if campaign else 0
    amount = amount or assignment.hit.hit_type.pay_cents(assignment.hit.tier)
    with transaction.atomic():
        entry, created = None, False
        if amount > 0:
            entry, created = ledger_credit(
                worker=assignment.worker,
                amount_cents=amount,
                kind=LedgerEntry.Kind.TASK,
                reason="Approved automatically by the platform.",
                source=f"assignment:{assignment.pk}",
                tier=assignment.hit.tier,
                assignment=assignment,
                campaign=campaign,
            )
        token = f"approve:assignment:{assignment.pk}"
        action = PlatformAction.objects.filter(token=token).first()
        if action is None:
            PlatformAction.objects.create(
                kind=PlatformAction.Kind.APPROVE,
                platform=campaign.platform if campaign else assignment.worker.platform,
                sandbox=campaign.sandbox if campaign else False,
                token=token,
                worker=assignment.worker,
                assignment=assignment,
                campaign=campaign,
                ledger_entry=entry if entry and not _has_payment(entry) else None,
                details={"by": "platform"},
                state=PlatformAction.State.DONE,
                done_at=approved_at,
            )
            return True
        return created


def _has_payment(entry: LedgerEntry) -> bool:
    return PlatformAction.objects.filter(ledger_entry=entry).exists()


def bonus_pay(
    *, worker: Worker, amount_cents: int, reason: str, paid_by, token: str
) -> tuple[LedgerEntry, bool]:
    """Pay ``worker`` a bonus, audit-logged. ``token`` comes from the bonus form, so that a
    form sent twice pays once. A platform worker's bonus is also paid on their platform,
    through the outbox, on their most recent assignment from a campaign there."""
    with transaction.atomic():
        on = _latest_campaign_assignment(worker)
        entry, created = ledger_credit(
            worker=worker,
            amount_cents=amount_cents,
            kind=LedgerEntry.Kind.BONUS,
            reason=reason,
            source=f"bonus:{token}",
            campaign=on.campaign if on else None,
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
            platform_action_queue(
                kind=PlatformAction.Kind.BONUS,
                worker=worker,
                token=f"bonus:ledger:{entry.pk}",
                assignment=on,
                ledger_entry=entry,
                details={"cents": amount_cents, "reason": reason.strip()},
            )
    return entry, created


def _latest_campaign_assignment(worker: Worker) -> Assignment | None:
    return (
        # The platform pays a bonus on a piece of work it knows: its own assignment, or the
        # session the work was done in.
        Assignment.objects.filter(worker=worker, campaign__platform=worker.platform)
        .filter(Q(external_assignment_id__gt="") | Q(session__isnull=False))
        .select_related("campaign")
        .order_by("-accepted_at", "-pk")
        .first()
    )


def payout_record(*, through: datetime, paid_by, reason: str) -> Payout | None:
    """Mark every unpaid ledger entry made up to ``through`` as paid, in one payout,
    audit-logged. None when there is nothing unpaid."""
    with transaction.atomic():
        # A platform's fee is paid to nobody.
        unpaid = (
            LedgerEntry.objects.earnings()
            .select_for_update()
            .filter(payout__isnull=True, created_at__lte=through)
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


def assignments_auto_pay(*, kind: str, now=None, batch: int = 1000, hold=()) -> int:
    """Pay the submitted assignments of a kind of HIT nobody reviewed (word alignment), once
    its ``auto_accept_after`` has passed, as unreviewed descriptions are; the assignment ids
    in ``hold`` wait (for review). Returns how many were paid; paying is once per assignment,
    so running it again pays nothing more."""
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
                verified_at__isnull=False,
                submitted_at__lte=now - hit_type.auto_accept_after,
                ledger_entry__isnull=True,
            )
            .exclude(pk__in=list(hold))
            .select_related("hit__hit_type")
            .order_by("pk")[:batch]
        )
        credited = ledger_pay_assignments(assignments=due, reason=reason) if due else 0
        paid += credited
        if not credited:
            return paid
