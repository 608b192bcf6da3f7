"""Writes that span models: opening HITs, handing out work, taking it back in.

Every function here is safe under concurrency. The database enforces the invariants (one
assignment per worker per HIT, never more submissions than a HIT's target); the code checks them
too so that a lost race ends in a clear ``WorkRefused``, not in bad data.
"""

import logging
from datetime import timedelta

from django.contrib.auth import get_user_model
from django.db import IntegrityError, transaction
from django.db.models import F
from django.utils import timezone

from scoring.tasks import queue_scoring

from .models import Assignment, Description, Hit, HitType, Qualification, Segment, Tier, Worker

logger = logging.getLogger(__name__)

# How many locked-then-full candidates the allocator steps past before giving up.
CLAIM_ATTEMPTS = 5


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


def _locked_assignment(assignment_id: int, worker: Worker) -> Assignment:
    try:
        return (
            Assignment.objects.select_for_update(of=("self",))
            .select_related("hit")
            .get(pk=assignment_id, worker=worker)
        )
    except Assignment.DoesNotExist:
        raise WorkRefused("There is no such task for you.") from None
