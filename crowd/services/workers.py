"""Workers, their tiers and standing, and the audit log that records every change to them."""

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import IntegrityError, transaction
from django.db.models import F
from django.utils import timezone

from .. import platforms
from ..models import ArrivalWindow, AuditEntry, PlatformAction, Qualification, Tier, Worker
from .errors import ArrivalsExceeded, WorkRefused
from .outbox import platform_action_queue


def worker_create(*, username: str, password: str | None, email: str = "") -> Worker:
    """A local worker with a Django account. Tier 1 until someone qualifies them. With no
    ``password`` the account cannot log in (the demo's writers)."""
    with transaction.atomic():
        user = get_user_model().objects.create_user(
            username=username, password=password, email=email
        )
        return Worker.objects.create(user=user, platform=Worker.Platform.LOCAL)


def worker_from_platform(*, platform: str, external_id: str, address: str | None = None) -> Worker:
    """The worker a crowd platform calls ``external_id``, created on first sight.

    With ``address`` (where the request came from), creating a worker counts against that
    address's PLATFORM_ARRIVALS_PER_HOUR; over it, ``ArrivalsExceeded`` is raised and nobody is
    created. Workers already known are never counted."""
    worker = Worker.objects.filter(platform=platform, external_id=external_id).first()
    if worker:
        return worker
    try:
        with transaction.atomic():
            if address:
                _arrival_count(address=address)
            user = get_user_model().objects.create_user(username=f"{platform}:{external_id}")
            return Worker.objects.create(user=user, platform=platform, external_id=external_id)
    except IntegrityError:  # a concurrent first request created them
        return Worker.objects.get(platform=platform, external_id=external_id)


def arrival_windows_forget(*, now=None) -> int:
    """Delete the arrival counts of past hours; they limit nothing any more."""
    deleted, _ = ArrivalWindow.objects.filter(hour__lt=_hour(now or timezone.now())).delete()
    return deleted


def arrival_count(*, address: str) -> None:
    """Count one arrival that costs something (a new worker, a look-up at the platform)
    against ``address``'s PLATFORM_ARRIVALS_PER_HOUR, committed at once; over it,
    ``ArrivalsExceeded``."""
    with transaction.atomic():
        _arrival_count(address=address)


def _arrival_count(*, address: str) -> None:
    hour = _hour(timezone.now())
    ArrivalWindow.objects.bulk_create(
        [ArrivalWindow(address=address, hour=hour)], ignore_conflicts=True
    )
    # One conditional UPDATE both checks and counts, so concurrent arrivals never overshoot.
    admitted = ArrivalWindow.objects.filter(
        address=address, hour=hour, count__lt=settings.PLATFORM_ARRIVALS_PER_HOUR
    ).update(count=F("count") + 1)
    if not admitted:
        raise ArrivalsExceeded(
            "Too many new workers have arrived from your network in the last hour. "
            "Please return the task on your crowd platform and try again later."
        )


def _hour(moment):
    return moment.replace(minute=0, second=0, microsecond=0)


def audit_record(
    *, actor, action: str, reason: str, worker: Worker | None = None, details=None
) -> AuditEntry:
    """One line of the audit log. Call it inside the transaction that makes the change."""
    if not reason.strip():
        raise WorkRefused("Give a reason; it goes into the audit log.")
    return AuditEntry.objects.create(
        actor=actor, action=action, worker=worker, reason=reason.strip(), details=details or {}
    )


def qualification_grant(
    *,
    worker: Worker,
    tier: int | None = None,
    kind: str = Qualification.Kind.TIER,
    granted_by,
    reason: str,
) -> Qualification:
    """Grant ``tier`` (a promotion) or, with ``kind`` other than TIER, access to that kind of
    task, to ``worker``, audit-logged; ``granted_by`` None means an automatic rule. Granting
    what is already held returns the existing grant, unchanged."""
    if not reason.strip():
        raise WorkRefused("A qualification needs a reason.")
    held = _held(worker=worker, tier=tier, kind=kind)
    try:
        with transaction.atomic():
            qualification = Qualification.objects.create(
                worker=worker, kind=kind, tier=tier, granted_by=granted_by, reason=reason.strip()
            )
            audit_record(
                actor=granted_by,
                action=AuditEntry.Action.PROMOTE,
                worker=worker,
                reason=reason,
                details=_details(qualification),
            )
            _qualification_tell(
                PlatformAction.Kind.GRANT, qualification=qualification, reason=reason
            )
            return qualification
    except IntegrityError:
        return held.get()


def qualification_revoke(
    *,
    worker: Worker,
    tier: int | None = None,
    kind: str = Qualification.Kind.TIER,
    revoked_by,
    reason: str,
) -> Qualification:
    """Take ``tier`` (a demotion) or access to ``kind`` of task away from ``worker``,
    audit-logged. The grant is kept, marked revoked. Tasks they already hold may still be
    submitted."""
    if not reason.strip():
        raise WorkRefused("A demotion needs a reason.")
    with transaction.atomic():
        qualification = _held(worker=worker, tier=tier, kind=kind).select_for_update().first()
        if qualification is None:
            what = f"Tier-{tier}" if kind == Qualification.Kind.TIER else kind
            raise WorkRefused(f"{worker} does not hold the {what} qualification.")
        qualification.revoked_by = revoked_by
        qualification.revoked_at = timezone.now()
        qualification.revoke_reason = reason.strip()
        qualification.save(update_fields=["revoked_by", "revoked_at", "revoke_reason"])
        audit_record(
            actor=revoked_by,
            action=AuditEntry.Action.DEMOTE,
            worker=worker,
            reason=reason,
            details=_details(qualification),
        )
        _qualification_tell(PlatformAction.Kind.REVOKE, qualification=qualification, reason=reason)
    return qualification


def _held(*, worker, tier, kind):
    if (kind == Qualification.Kind.TIER) != (tier is not None):
        raise ValueError("a tier qualification names its tier; other kinds have none")
    return Qualification.objects.active().filter(worker=worker, kind=kind, tier=tier)


def _details(qualification: Qualification) -> dict:
    if qualification.tier is not None:
        return {"tier": qualification.tier, "qualification": qualification.pk}
    return {"kind": qualification.kind, "qualification": qualification.pk}


# Where a platform worker's Tier 2 is also kept on their platform: ParaCrowd's qualification
# on Mechanical Turk, a participant group on Prolific (Tier-2 studies admit only its members).
TIER_ON_PLATFORM = tuple(
    name for name, platform in platforms.REGISTRY.items() if platform.tier_on_platform
)


def _qualification_tell(kind: str, *, qualification: Qualification, reason: str) -> None:
    """Grant or revoke a platform worker's Tier 2 on their platform too, through the outbox
    (one member added or removed, never the whole list rewritten)."""
    worker = qualification.worker
    if worker.platform not in TIER_ON_PLATFORM or qualification.tier != Tier.TWO:
        return
    platform_action_queue(
        kind=kind,
        worker=worker,
        token=f"{kind}:qualification:{qualification.pk}",
        details={"tier": qualification.tier, "reason": reason.strip()},
    )


def _tier_two_tell(kind: str, *, worker: Worker, event: str, reason: str) -> None:
    """A blocked Tier-2 worker leaves the platform's Tier-2 list, and comes back to it when
    unblocked while still in Tier 2 (``event`` names the audit entry, one action each)."""
    if worker.platform not in TIER_ON_PLATFORM or worker.current_tier < Tier.TWO:
        return
    platform_action_queue(
        kind=kind,
        worker=worker,
        token=f"{kind}:{event}",
        details={"tier": Tier.TWO, "reason": reason.strip()},
    )


def worker_block(*, worker: Worker, blocked_by, reason: str, details=None) -> None:
    """Stop ``worker`` from taking new tasks, audit-logged (with ``details``, when an automatic
    rule says which). Tasks they hold may still be submitted (and reviewed) so that no
    finished work is lost."""
    with transaction.atomic():
        if Worker.objects.filter(pk=worker.pk, blocked_at__isnull=True).update(
            blocked_at=timezone.now()
        ):
            entry = audit_record(
                actor=blocked_by,
                action=AuditEntry.Action.BLOCK,
                worker=worker,
                reason=reason,
                details=details,
            )
            _tier_two_tell(
                PlatformAction.Kind.REVOKE, worker=worker, event=f"audit:{entry.pk}", reason=reason
            )
        else:
            raise WorkRefused(f"{worker} is already blocked.")
    worker.refresh_from_db(fields=["blocked_at"])


def worker_unblock(*, worker: Worker, unblocked_by, reason: str) -> None:
    """Let a blocked worker take tasks again, audit-logged."""
    with transaction.atomic():
        if Worker.objects.filter(pk=worker.pk, blocked_at__isnull=False).update(blocked_at=None):
            entry = audit_record(
                actor=unblocked_by, action=AuditEntry.Action.UNBLOCK, worker=worker, reason=reason
            )
            _tier_two_tell(
                PlatformAction.Kind.GRANT, worker=worker, event=f"audit:{entry.pk}", reason=reason
            )
        else:
            raise WorkRefused(f"{worker} is not blocked.")
    worker.refresh_from_db(fields=["blocked_at"])
