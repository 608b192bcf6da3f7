"""The outbox: decisions that must reach a crowd platform (approve, reject, a bonus, a
qualification), written as ``PlatformAction`` rows in the transaction that makes the decision
and sent after it commits, retried until the platform has them and never sent twice.

Sending never holds a transaction open while the platform is called. An action is claimed in a
short transaction (``FOR UPDATE SKIP LOCKED``) together with a session-level advisory lock on
it, the claim commits, the platform is called, the outcome is recorded in a second short
transaction, and only then is the advisory lock released. Another sender that reaches the row
meanwhile cannot take the advisory lock and passes it by; one that reaches it after the record
sees it done. A sender that dies between the call and the record loses its session and so its
lock, and the action is sent again: that resend is harmless because a bonus carries the action's
token as the platform's idempotency token, and an approval or rejection the platform already
holds is recognised by asking the platform for the assignment's status.
"""

import logging
from datetime import datetime, timedelta

from django.core.exceptions import ObjectDoesNotExist
from django.db import IntegrityError, connection, transaction
from django.db.models import Q
from django.utils import timezone

from paracrowd.celery import enqueue

from .. import platforms
from ..models import (
    Assignment,
    AuditEntry,
    Campaign,
    CampaignEvent,
    LedgerEntry,
    PlatformAction,
    PlatformQualification,
    Tier,
    Worker,
)
from ..platforms import NotConfigured, PlatformError, Submission, connector

logger = logging.getLogger(__name__)

SEND_TASK = "crowd.tasks.send_platform_actions"
# The platforms decisions are sent to through their API (a study link's are paid from files).
PLATFORMS = tuple(name for name, platform in platforms.REGISTRY.items() if platform.has_api)
# After this many refused attempts an action is given up (state failed) for a human to look at.
MAX_ATTEMPTS = 8
# The n-th retry waits until RETRY_BASE × (2ⁿ − 1) after the action was created: 1, 3, 7, …
# 127 minutes, so a platform that is down is not hammered.
RETRY_BASE = timedelta(minutes=1)
# Candidates locked per claim; the first whose advisory lock is free is sent.
CLAIM_BATCH = 10
# The first key of the two-key advisory locks on actions, so they never meet other locks.
ADVISORY_NAMESPACE = 0x50_41_43  # "PAC"
REJECT_FEEDBACK = "Your work did not meet the task's instructions."
# How long a platform that pays bonuses asynchronously may take to list one as paid; a bonus
# whose pay call is older than this and is not listed was not paid.
BONUS_PAYMENT_SETTLES = timedelta(hours=1)
QUALIFICATION_NAME = "ParaCrowd Tier 2"
QUALIFICATION_DESCRIPTION = (
    "Granted by ParaCrowd to workers whose video descriptions earned them Tier 2."
)


def platform_action_queue(
    *,
    kind: str,
    worker: Worker,
    token: str,
    assignment: Assignment | None = None,
    ledger_entry: LedgerEntry | None = None,
    campaign: Campaign | None = None,
    details: dict | None = None,
) -> PlatformAction | None:
    """Queue one decision for the platform; call it inside the transaction that makes it.

    The action is stored once per ``token`` (a name of the decision, such as
    "approve:assignment:12"): asked again, the stored action is returned and nothing changes.
    Only workers of a platform with an API get actions, and work only when it came through a
    campaign; anything else returns None. A platform that takes no payments any more (Mechanical
    Turk after 30 October 2026) gets none either: the refusal is recorded in the audit log and
    on the campaign instead, and None returned. Sending is queued for after commit."""
    actions = platform_actions_queue(
        [
            PlatformAction(
                kind=kind,
                worker=worker,
                token=token,
                assignment=assignment,
                ledger_entry=ledger_entry,
                campaign=campaign,
                details=details or {},
            )
        ]
    )
    return actions[0] if actions else None


def platform_actions_queue(actions: list[PlatformAction]) -> list[PlatformAction]:
    """Queue many unsaved actions at once (a review paying hundreds of assignments), in one
    insert and with one send queued. Returns the stored actions of those that apply, the
    earlier ones for tokens already queued."""
    wanted = [action for action in actions if _place(action)]
    wanted = [action for action in wanted if not _refused(action)]
    if not wanted:
        return []
    for action in wanted:
        if len(action.token) > PlatformAction._meta.get_field("token").max_length:
            raise ValueError(f"a platform action token is at most 64 characters: {action.token}")
    PlatformAction.objects.bulk_create(wanted, ignore_conflicts=True)
    enqueue(SEND_TASK)
    stored = PlatformAction.objects.in_bulk([a.token for a in wanted], field_name="token")
    return [stored[a.token] for a in wanted if a.token in stored]


def _place(action: PlatformAction) -> bool:
    """Set the action's platform and account (sandbox or production); False when the
    decision has nothing to tell a platform."""
    worker = action.worker
    if worker.platform not in PLATFORMS:
        return False
    assignment = action.assignment
    about_work = action.kind in (PlatformAction.Kind.APPROVE, PlatformAction.Kind.REJECT)
    # A submission that left no work here names itself and its campaign.
    unknown_work = bool(action.details.get("submission_id")) and action.campaign is not None
    if about_work and (assignment is None or assignment.campaign_id is None) and not unknown_work:
        return False
    if action.session is None and assignment is not None and assignment.session_id:
        action.session = assignment.session
    if action.campaign is None and assignment is not None and assignment.campaign_id:
        action.campaign = assignment.campaign
    if action.campaign is not None:
        action.platform = action.campaign.platform
        action.sandbox = action.campaign.sandbox
    else:
        action.platform = worker.platform
        action.sandbox = platforms.get(worker.platform).sandbox()
    return action.platform == worker.platform


def _refused(action: PlatformAction) -> bool:
    """True, with the refusal recorded once, when the action's platform takes no payments
    (nor anything else) any more: nothing is queued that could never be sent."""
    refusal = platforms.get(action.platform).payments_refusal()
    if not refusal:
        return False
    if AuditEntry.objects.filter(
        action=AuditEntry.Action.PLATFORM, details__refused_action=action.token
    ).exists():
        return True
    message = (
        f"{action.get_kind_display()} ({action.token}) not sent to "
        f"{action.get_platform_display()}: {refusal}"
    )
    AuditEntry.objects.create(
        action=AuditEntry.Action.PLATFORM,
        worker=action.worker,
        reason=message,
        details={"refused_action": action.token, "platform": action.platform},
    )
    if action.campaign is not None:
        CampaignEvent.objects.create(campaign=action.campaign, is_error=True, message=message)
    return True


def platform_qualification(*, platform: str, sandbox: bool, tier: int) -> str:
    """The platform's id of ParaCrowd's qualification for ``tier``, created on the platform
    the first time it is needed and remembered. A type of that name the account already has
    (a racing sender's, or one a reset database forgot) is found by name instead."""
    stored = PlatformQualification.objects.filter(
        platform=platform, sandbox=sandbox, tier=tier
    ).first()
    if stored:
        return stored.external_id
    name = QUALIFICATION_NAME if tier == Tier.TWO else f"ParaCrowd Tier {tier}"
    account = connector(platform)
    try:
        external_id = account.qualification_type_create(
            name=name, description=QUALIFICATION_DESCRIPTION
        )
    except PlatformError:
        # Names are unique per account: one created earlier (by a database since reset, or a
        # racing sender) is found by its name.
        external_id = account.qualification_type_find(name=name)
        if external_id is None:
            raise
    try:
        with transaction.atomic():
            PlatformQualification.objects.create(
                platform=platform, sandbox=sandbox, tier=tier, external_id=external_id
            )
    except IntegrityError:
        pass
    return PlatformQualification.objects.get(
        platform=platform, sandbox=sandbox, tier=tier
    ).external_id


def platform_actions_send(*, limit: int = 200) -> int:
    """Send up to ``limit`` pending actions that are due, one at a time, and record each
    outcome. Safe to run in many processes at once: each action is sent by one of them.
    Returns how many are done now."""
    done = 0
    passed = []
    for _ in range(limit):
        action = _claim(passed)
        if action is None:
            break
        passed.append(action.pk)
        try:
            done += _deliver(action)
        finally:
            _unlock(action.pk)
    return done


def _due(now: datetime) -> Q:
    due = Q(attempts=0)
    for attempt in range(1, MAX_ATTEMPTS):
        due |= Q(attempts=attempt, created_at__lte=now - RETRY_BASE * (2**attempt - 1))
    return due


def _claim(passed: list[int]) -> PlatformAction | None:
    with transaction.atomic():
        candidates = (
            PlatformAction.objects.select_for_update(skip_locked=True, of=("self",))
            .filter(_due(timezone.now()), state=PlatformAction.State.PENDING)
            .exclude(pk__in=passed)
            .select_related("worker", "assignment", "campaign", "session")
            .order_by("created_at", "pk")[:CLAIM_BATCH]
        )
        for action in candidates:
            if _try_lock(action.pk):
                return action
            passed.append(action.pk)  # being sent by another process right now
    return None


def _try_lock(pk: int) -> bool:
    with connection.cursor() as cursor:
        # Two 32-bit keys; two actions sharing a key only means one waits for the next run.
        cursor.execute(
            "SELECT pg_try_advisory_lock(%s, %s)", [ADVISORY_NAMESPACE, pk % 2_147_483_647]
        )
        return cursor.fetchone()[0]


def _unlock(pk: int) -> None:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT pg_advisory_unlock(%s, %s)", [ADVISORY_NAMESPACE, pk % 2_147_483_647]
        )


class _Refused(Exception):
    """The action cannot succeed however often it is retried; the message says why."""


def _deliver(action: PlatformAction) -> bool:
    """Call the platform for ``action`` and record what happened; True when it is done."""
    refusal = platforms.get(action.platform).payments_refusal()
    if refusal:
        # Queued before the platform stopped taking payments: it never will now.
        _record_error(action, refusal, give_up=True)
        return False
    try:
        platform = connector(action.platform)
        if getattr(platform, "sandbox", action.sandbox) != action.sandbox:
            account = "sandbox" if action.sandbox else "production"
            raise NotConfigured(
                f"This action is for the {account} account of {action.get_platform_display()}, "
                "and the connector is configured for the other one."
            )
    except NotConfigured as missing:
        # Not the platform's fault and not the action's: wait, uncounted, for configuration.
        _record_error(action, str(missing), counted=False)
        return False
    try:
        note = _perform(platform, action)
    except _Refused as refusal:
        _record_error(action, str(refusal), give_up=True)
        return False
    except PlatformError as error:
        if not _already_done(platform, action):
            _record_error(action, str(error))
            return False
        note = "The platform already had it."
    _record_done(action, note)
    return True


def _rejection_overturned(action: PlatformAction) -> bool:
    """The work was reinstated before its rejection was sent: for a session, some of its
    work stands again (or was paid) ; otherwise the assignment is no longer rejected."""
    if action.session_id:
        tasks = Assignment.objects.filter(session=action.session_id)
        return tasks.filter(
            Q(status=Assignment.Status.SUBMITTED) | Q(ledger_entry__isnull=False)
        ).exists()
    if action.assignment is None:
        return False  # no work here to reinstate
    return action.assignment.status != Assignment.Status.REJECTED


def _platform_key(action: PlatformAction) -> str:
    """The platform's id of the work an action is about: the session for work done in one
    (the platform knows no task), else the platform's own assignment."""
    if action.details.get("submission_id"):
        return action.details["submission_id"]
    if action.session_id:
        return action.session.external_id
    return action.assignment.external_assignment_id if action.assignment else ""


def _perform(platform, action: PlatformAction) -> str:
    """One platform call for ``action``; returns a note for the record ("" for none)."""
    kind, details = action.kind, action.details
    if kind == PlatformAction.Kind.APPROVE:
        options = {"override_rejection": True} if details.get("override_rejection") else {}
        platform.approve(
            assignment_id=_platform_key(action),
            feedback=details.get("feedback", ""),
            **options,
        )
    elif kind == PlatformAction.Kind.REJECT:
        if _rejection_overturned(action):
            _details_update(action, overturned=True)
            return "The rejection was overturned before it was sent; nothing was sent."
        options = {"no_data": True} if details.get("no_data") else {}
        platform.reject(
            assignment_id=_platform_key(action),
            feedback=details.get("feedback") or REJECT_FEEDBACK,
            **options,
        )
    elif kind == PlatformAction.Kind.BONUS:
        _bonus(platform, action)
    else:
        qualification_id = platform_qualification(
            platform=action.platform, sandbox=action.sandbox, tier=details.get("tier", Tier.TWO)
        )
        if kind == PlatformAction.Kind.GRANT:
            platform.qualification_grant(
                qualification_type_id=qualification_id, worker_id=action.worker.external_id
            )
        else:
            platform.qualification_revoke(
                qualification_type_id=qualification_id,
                worker_id=action.worker.external_id,
                reason=details.get("reason", ""),
            )
    return ""


def _bonus(platform, action: PlatformAction) -> None:
    details = action.details
    assignment_id = _platform_key(action)
    worker_id = action.worker.external_id
    if not platforms.get(action.worker.platform).bonus_in_two_steps:
        # One idempotent call, the token naming the ledger entry (Mechanical Turk's).
        if not assignment_id:
            raise _Refused(
                "Mechanical Turk pays a bonus on one of the worker's assignments, and this "
                "worker has none from a campaign."
            )
        platform.bonus(
            worker_id=worker_id,
            assignment_id=assignment_id,
            cents=details["cents"],
            reason=details["reason"],
            token=action.token,
        )
        return
    # In two steps (Prolific's): set up (harmless to repeat), then paid (not idempotent). The
    # id is stored before paying, and that a payment was asked for, so a crash between the
    # two is never followed by a second payment.
    bonus_id = details.get("bonus_id")
    if not bonus_id:
        # Prolific's bulk bonus carries no message; the reason stays in our ledger.
        bonus_id = platform.bonus_setup(
            worker_id=worker_id, assignment_id=assignment_id, cents=details["cents"]
        )
        _details_update(action, bonus_id=str(bonus_id))
    if action.details.get("pay_requested") == str(bonus_id):
        raise _Refused(
            f"Payment of bonus {bonus_id} was asked for and its answer was lost; check it on "
            "the platform before paying it again."
        )
    _details_update(
        action, pay_requested=str(bonus_id), pay_requested_at=timezone.now().isoformat()
    )
    try:
        platform.bonus_pay(bonus_id)
    except PlatformError as error:
        # The platform may have paid before failing: never retried automatically.
        raise _Refused(f"{error} Check it on the platform before paying it again.") from error


def _details_update(action: PlatformAction, **changes) -> None:
    """Store ``changes`` in the action's details at once, outside any transaction, so they
    survive a crash in the next step."""
    action.details = {**action.details, **changes}
    PlatformAction.objects.filter(pk=action.pk).update(details=action.details)


def _already_done(platform, action: PlatformAction) -> bool:
    """After a refusal: does the platform already hold this approval or rejection (our
    earlier call went through, and the answer was lost)?"""
    wanted = {
        PlatformAction.Kind.APPROVE: Submission.APPROVED,
        PlatformAction.Kind.REJECT: Submission.REJECTED,
    }.get(action.kind)
    if wanted is None or not _platform_key(action) or not hasattr(platform, "assignment"):
        return False
    try:
        return platform.assignment(_platform_key(action)).status == wanted
    except PlatformError:
        return False


def _record_done(action: PlatformAction, note: str) -> None:
    now = timezone.now()
    details = {**action.details, "note": note} if note else action.details
    with transaction.atomic():
        updated = PlatformAction.objects.filter(
            pk=action.pk, state=PlatformAction.State.PENDING
        ).update(state=PlatformAction.State.DONE, done_at=now, last_error="", details=details)
        if updated and action.kind in (PlatformAction.Kind.GRANT, PlatformAction.Kind.REVOKE):
            verb = "granted" if action.kind == PlatformAction.Kind.GRANT else "revoked"
            tier = action.details.get("tier", Tier.TWO)
            AuditEntry.objects.create(
                action=AuditEntry.Action.PLATFORM,
                worker=action.worker,
                at=now,
                reason=f"{action.get_platform_display()} {verb} ParaCrowd's Tier-{tier} "
                f"qualification for worker {action.worker.external_id}.",
                details={"platform_action": action.pk, "token": action.token},
            )


def _record_error(
    action: PlatformAction, error: str, *, counted: bool = True, give_up: bool = False
) -> None:
    attempts = action.attempts + (1 if counted else 0)
    state = PlatformAction.State.PENDING
    if give_up or attempts >= MAX_ATTEMPTS:
        state = PlatformAction.State.FAILED
    logger.warning("Platform action %s: %s", action.token, error)
    with transaction.atomic():
        PlatformAction.objects.filter(pk=action.pk, state=PlatformAction.State.PENDING).update(
            attempts=attempts, last_error=error, state=state
        )
        if counted and action.campaign_id:
            given_up = " Given up." if state == PlatformAction.State.FAILED else ""
            CampaignEvent.objects.create(
                campaign_id=action.campaign_id,
                is_error=True,
                message=f"{action.get_kind_display()} ({action.token}), attempt {attempts}: "
                f"{error}{given_up}",
            )


def platform_bonuses_check(*, campaign: Campaign, now=None) -> dict:
    """Settle the bonuses of ``campaign`` the outbox gave up on, by what the platform shows.

    A bonus whose payment was never asked for was not paid: it is owed. One whose pay call
    went out and whose answer was lost may have been paid: the platform's list of bonuses
    paid on that piece of work decides. Each paid amount there answers one of our bonuses of
    that amount (those recorded done first); a given-up bonus it answers was paid, and is
    recorded done; one it does not answer, once ``BONUS_PAYMENT_SETTLES`` has passed since
    the pay call (the platform pays asynchronously), was not, and is owed. Only owed bonuses
    are listed for manual payment (``details["unpaid_confirmed"]``). A platform that cannot
    tell leaves them as they are. Returns counts: ``paid``, ``owed``, ``unknown``."""
    now = now or timezone.now()
    counts = {"paid": 0, "owed": 0, "unknown": 0}
    failed = list(
        PlatformAction.objects.filter(
            campaign=campaign, kind=PlatformAction.Kind.BONUS, state=PlatformAction.State.FAILED
        )
        .exclude(details__has_key="unpaid_confirmed")
        .select_related("session", "assignment")
        .order_by("pk")
    )
    by_work = {}
    for action in failed:
        if not action.details.get("pay_requested"):
            _details_update(action, unpaid_confirmed=now.isoformat())
            counts["owed"] += 1
        else:
            by_work.setdefault(_platform_key(action), []).append(action)
    platform = platforms.get(campaign.platform)
    for key, actions in by_work.items():
        try:
            paid = platform.bonuses_paid(assignment_id=key) if key else None
        except PlatformError as error:
            logger.warning("Bonuses paid on %s could not be read: %s", key, error)
            paid = None
        if paid is None:
            counts["unknown"] += len(actions)
            continue
        done = PlatformAction.objects.filter(
            campaign=campaign, kind=PlatformAction.Kind.BONUS, state=PlatformAction.State.DONE
        ).exclude(pk__in=[action.pk for action in failed])
        answered = [
            action.details.get("cents")
            for action in done.select_related("session", "assignment")
            if _platform_key(action) == key
        ]
        unanswered = list(paid)
        for cents in answered:
            if cents in unanswered:
                unanswered.remove(cents)
        for action in actions:
            if action.details.get("cents") in unanswered:
                unanswered.remove(action.details["cents"])
                PlatformAction.objects.filter(
                    pk=action.pk, state=PlatformAction.State.FAILED
                ).update(
                    state=PlatformAction.State.DONE,
                    done_at=now,
                    details={**action.details, "note": "The platform shows it paid."},
                )
                counts["paid"] += 1
            elif _requested_at(action) <= now - BONUS_PAYMENT_SETTLES:
                _details_update(action, unpaid_confirmed=now.isoformat())
                counts["owed"] += 1
            else:
                counts["unknown"] += 1
    return counts


def _requested_at(action: PlatformAction) -> datetime:
    """When the bonus's pay call went out (long ago for one recorded before it was kept)."""
    at = action.details.get("pay_requested_at")
    return datetime.fromisoformat(at) if at else action.created_at


def ledger_entry_platform_payment(entry: LedgerEntry) -> str:
    """Whether a crowd platform paid ``entry``, in words, for the ledger pages. Load the
    entries with ``select_related("platform_payment")`` so this costs no query."""
    try:
        action = entry.platform_payment
    except ObjectDoesNotExist:
        action = None
    if action is None:
        return "not through a platform"
    if action.state == PlatformAction.State.DONE:
        by = " itself" if action.details.get("by") == "platform" else ""
        when = timezone.localtime(action.done_at).strftime("%Y-%m-%d %H:%M")
        return f"paid by {action.get_platform_display()}{by} at {when}"
    if action.state == PlatformAction.State.FAILED:
        return f"failed: {action.last_error}"
    if action.last_error:
        return f"pending (last try: {action.last_error})"
    return "pending"
