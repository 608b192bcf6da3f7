"""Handing out work and taking it back: opening HITs, claiming, returning, expiring and
submitting assignments, and reopening a slot when submitted work is rejected."""

from datetime import timedelta
from functools import cache

from django.conf import settings
from django.db import IntegrityError, connection, transaction
from django.db.models import F
from django.db.models.functions import Least
from django.utils import timezone

from paracrowd.celery import enqueue
from paracrowd.compiled_query import CompiledQuery

from .. import platforms
from ..models import (
    Assignment,
    Hit,
    HitType,
    Item,
    PlatformAction,
    Qualification,
    Tier,
    Worker,
)
from .errors import WorkRefused
from .outbox import platform_actions_queue
from .quality import quality_stop_message
from .workers import worker_from_platform

# Checks an answer to a gold item (queued by name: the checks know every kind of task).
CHECK_GOLD_ANSWER = "review.tasks.check_gold_answer"
# How many locked-then-full candidates the allocator steps past before giving up.
CLAIM_ATTEMPTS = 5


def hits_open(
    *, rows, kind: str, tiers: tuple[int, ...] = tuple(Tier.values), max_assignments=None
) -> int:
    """Offer each row of ``rows`` (a queryset of segments, sentence pairs, … : rows with an
    ``item`` link to ``Item``) in ``tiers`` (both by default) with the HIT type's targets, or
    ``max_assignments`` submissions each when given. Rows not offered before get their item
    now. Re-running adds nothing; returns how many HITs were really opened."""
    hit_type = HitType.objects.for_kind(kind)
    with transaction.atomic():
        # Locking the rows serialises two openings of the same rows, so the count is exact.
        locked = list(rows.select_for_update().order_by("pk").only("pk", "item"))
        new = [row for row in locked if row.item_id is None]
        if new:
            items = Item.objects.bulk_create([Item(kind=kind) for _ in new], batch_size=2000)
            for row, item in zip(new, items, strict=True):
                row.item = item
            rows.model.objects.bulk_update(new, ["item"], batch_size=2000)
        item_ids = [row.item_id for row in locked]
        offered = Hit.objects.filter(hit_type=hit_type, item_id__in=item_ids)
        before = offered.count()
        Hit.objects.bulk_create(
            [
                Hit(
                    hit_type=hit_type,
                    tier=tier,
                    item_id=item_id,
                    max_assignments=max_assignments or hit_type.target(tier),
                )
                for item_id in item_ids
                for tier in tiers
            ],
            ignore_conflicts=True,
            batch_size=2000,
        )
        return offered.count() - before


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
    worker has not had (or had and let expire: their assignment is reopened, see
    ``Assignment.reopenable``) and that has room is locked with SKIP LOCKED, so concurrent claims
    spread over different HITs instead of queueing on one.
    """
    return _claim(
        worker=worker,
        tier=tier,
        kind=kind,
        give_back_held=True,
        external_assignment_id=external_assignment_id,
        external_hit_id=external_hit_id,
    )


def session_claim(
    *, worker: Worker, tier: int, kind: str, campaign=None, listing_id: str = ""
) -> Assignment | None:
    """The next task of a work session: a HIT of ``kind`` in ``tier`` (one ``campaign``
    published, when given) that ``worker`` has not had, with every guarantee of
    ``assignment_claim``; None when nothing is left. What the worker holds elsewhere is not
    given back: the session's caller knows its own task."""
    return _claim(
        worker=worker,
        tier=tier,
        kind=kind,
        give_back_held=False,
        external_assignment_id="",
        external_hit_id=listing_id,
        campaign=campaign,
    )


def assignments_held(*, worker: Worker, kind: str | None = None):
    """The tasks ``worker`` holds open on this site (assigned, deadline not passed), of
    ``kind`` or of every kind, soonest deadline first. A platform's assignment or session
    task is done through the platform, so it is not among them."""
    held = (
        Assignment.objects.filter(
            worker=worker,
            status=Assignment.Status.ASSIGNED,
            expires_at__gt=timezone.now(),
            external_assignment_id="",
            session__isnull=True,
        )
        .select_related("hit__hit_type")
        .order_by("expires_at", "pk")
    )
    return held.filter(hit__hit_type__kind=kind) if kind else held


def assignment_for_platform(
    *,
    worker: Worker,
    tier: int,
    kind: str = HitType.Kind.DESCRIPTION,
    external_assignment_id: str,
    external_hit_id: str = "",
    campaign=None,
) -> Assignment | None:
    """The one local assignment for the crowd platform's assignment ``external_assignment_id``.

    With a ``campaign``, the HIT is one the campaign published: on Mechanical Turk the local HIT
    behind ``external_hit_id``, on Prolific any of the study's HITs.

    The first arrival claims a HIT for it; every later one (a reload, before or after
    submitting, even by a blocked worker) gets the same assignment back. None when nothing is
    left to claim. The platform's assignment belongs to one worker: the same id arriving with
    another worker is refused. Concurrent arrivals of one worker queue on the worker's row
    lock; arrivals under different workers meet the database's unique constraint, so either
    way one local assignment results.
    """
    if not external_assignment_id:
        raise ValueError("a platform arrival needs the platform's assignment id")
    hit_type = HitType.objects.for_kind(kind)
    try:
        with transaction.atomic():
            Worker.objects.select_for_update(no_key=True).filter(pk=worker.pk).get()
            existing = _platform_assignment(external_assignment_id)
            if existing is None:
                # A held assignment belongs to another platform assignment: claim a new HIT.
                return _claim(
                    worker=worker,
                    tier=tier,
                    kind=kind,
                    give_back_held=False,
                    external_assignment_id=external_assignment_id,
                    external_hit_id=external_hit_id,
                    campaign=campaign,
                )
    except IntegrityError:
        existing = _platform_assignment(external_assignment_id)
        if existing is None:
            raise
    if existing.worker_id != worker.pk or existing.hit.hit_type_id != hit_type.pk:
        raise WorkRefused(
            "This assignment was opened by another worker account. Please return the task on "
            "your crowd platform."
        )
    return existing


def platform_arrival(
    *,
    platform: str,
    external_worker_id: str,
    address: str | None,
    tier: int,
    kind: str = HitType.Kind.DESCRIPTION,
    external_assignment_id: str,
    external_hit_id: str = "",
    campaign=None,
) -> Assignment | None:
    """A worker arriving from a crowd platform with an accepted assignment: the worker (created
    on first sight, counted against ``address``'s hourly allowance) and their local assignment,
    as ``assignment_for_platform`` gives it. All in one transaction, so a refusal
    (``WorkRefused``, or ``ArrivalsExceeded`` for too many new workers) stores nothing."""
    with transaction.atomic():
        worker = worker_from_platform(
            platform=platform, external_id=external_worker_id, address=address
        )
        return assignment_for_platform(
            worker=worker,
            tier=tier,
            kind=kind,
            external_assignment_id=external_assignment_id,
            external_hit_id=external_hit_id,
            campaign=campaign,
        )


def _platform_assignment(external_assignment_id: str) -> Assignment | None:
    return (
        Assignment.objects.select_related("hit")
        .filter(external_assignment_id=external_assignment_id)
        .first()
    )


def worker_has_access(*, worker: Worker, kind: str) -> bool:
    """Whether ``worker`` holds an active qualification for ``kind`` of task. Only HIT types with
    ``qualification_required`` ask; every other kind is open to all."""
    return (
        Qualification.objects.active().filter(worker=worker, kind=kind, tier__isnull=True).exists()
    )


def _claim(
    *,
    worker,
    tier,
    kind,
    give_back_held,
    external_assignment_id,
    external_hit_id,
    campaign=None,
) -> Assignment | None:
    # Tier 1 is open to every worker: only a higher tier costs the look-up.
    if tier > Tier.ONE and tier > worker.current_tier:
        raise WorkRefused(f"You do not hold the Tier-{tier} qualification.")
    request = {
        "worker": worker,
        "kind": kind,
        "tier": tier,
        "give_back_held": give_back_held,
        "campaign": campaign,
        "external_assignment_id": external_assignment_id,
        "external_hit_id": external_hit_id,
    }
    if kind == HitType.Kind.VIDEO_COLLECTION:
        return _own_hit_claim(**request)
    claimed = _claim_in_database(**request, access_checked=False)
    if claimed is None:
        # Nothing handed out: the HIT type may ask for a qualification, which is checked only
        # now so that the common claim stays one round trip.
        hit_type = HitType.objects.for_kind(kind)
        if hit_type.qualification_required:
            _access_check(worker, hit_type)
            claimed = _claim_in_database(**request, access_checked=True)
    if claimed is None:
        _blocked_check(worker)
    return claimed


def _claim_in_database(
    *,
    worker,
    kind,
    tier,
    give_back_held,
    access_checked,
    campaign,
    external_assignment_id,
    external_hit_id,
    attempts=CLAIM_ATTEMPTS,
) -> Assignment | None:
    """One round trip to crowd_assignment_claim (crowd/migrations/0006, 0008): lock the worker's
    row, give back what they hold (if asked), else lock the best open HIT with SKIP LOCKED, count
    again under the lock and assign it, stepping past up to ``attempts`` HITs that filled in
    between. None for a blocked worker, for a HIT type whose qualification was not checked
    (``access_checked``), and when nothing is left."""
    # A campaign offers only the HITs it posted; where each HIT is a listing of its own
    # (Mechanical Turk), the one platform HIT the worker came through.
    posting = None
    if campaign is not None and platforms.get(campaign.platform).listing_per_posting:
        posting = external_hit_id
    claimed = Assignment.objects.raw(
        "SELECT * FROM crowd_assignment_claim(%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)",
        [
            worker.pk,
            kind,
            tier,
            timezone.now(),
            give_back_held,
            access_checked,
            campaign.pk if campaign is not None else None,
            posting,
            external_assignment_id,
            external_hit_id,
            attempts,
        ],
    )
    return next(iter(claimed), None)


def _own_hit_claim(*, worker, kind, tier, give_back_held, **external) -> Assignment:
    hit_type = HitType.objects.for_kind(kind)
    _access_check(worker, hit_type)
    with transaction.atomic():
        # Locks the worker's row (so the daily allowance is counted without a race) and gives
        # back what they hold, as for shared HITs.
        held = _claim_in_database(
            worker=worker,
            kind=kind,
            tier=tier,
            give_back_held=give_back_held,
            access_checked=True,
            attempts=0,
            **external,
        )
        if held is not None:
            return held
        _blocked_check(worker)
        return _own_hit_open(worker=worker, hit_type=hit_type, tier=tier, **external)


def _access_check(worker, hit_type) -> None:
    if hit_type.qualification_required and not worker_has_access(worker=worker, kind=hit_type.kind):
        # A signed-in worker can take the trial; a platform worker has no page of ours to
        # take it on, so staff qualify them by hand.
        then = (
            "Take the short trial from your dashboard first."
            if platforms.origin(worker.platform).signs_in_here
            else "Please return the task on your crowd platform."
        )
        raise WorkRefused(
            f"{hit_type.get_kind_display()} tasks need a qualification you do not hold yet. {then}"
        )


def _blocked_check(worker) -> None:
    if Worker.objects.filter(pk=worker.pk, blocked_at__isnull=False).exists():
        raise WorkRefused(
            quality_stop_message(worker) or "Your account can no longer take new tasks."
        )


def _own_hit_open(*, worker, hit_type, tier, **external_ids) -> Assignment:
    """A video-collection HIT opened for ``worker`` alone, with their assignment to it.

    There is no shared item to hand out: the worker brings the video. So each claim opens a
    one-submission HIT of their own (``hit_opened_for_one_takes_one``), and the usual machinery
    then records the time spent, the deadline and the status, and stores the work once. The
    caller holds the worker's row lock, so the daily allowance is counted without a race.
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
    hit = Hit.objects.create(hit_type=hit_type, tier=tier, opened_for=worker, max_assignments=1)
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


def assignment_submit(
    *,
    assignment_id: int,
    worker: Worker,
    record,
    submission: str,
    kind: str | None = None,
    related: tuple[str, ...] = (),
):
    """The shared end of every HIT: store what the worker did for their assignment, once.

    ``record(assignment, hit, now)`` creates the submission row inside the transaction;
    ``submission`` names the assignment's reverse relation to it ("description", "alignment").
    With ``kind``, an assignment of another kind of task is refused as if it were not the
    worker's; ``related`` names relations that ``record`` reads (``"hit__item__segment"``),
    loaded with the assignment. Returns ``(row, created)``; a repeated submission returns the
    stored row, unchanged. A late submission on an expired assignment is accepted while the HIT
    is under target.
    """
    now = timezone.now()
    with transaction.atomic():
        # The assignment and its HIT locked together: one round trip where there were two.
        # Whether the item is gold comes with it: no round trip of its own.
        assignment = _locked_assignment(
            assignment_id,
            worker,
            kind=kind,
            related=(*related, "hit__item__gold"),
            locking=("self", "hit"),
        )
        if assignment.status == Assignment.Status.SUBMITTED:
            return getattr(assignment, submission), False
        if assignment.status in (Assignment.Status.RETURNED, Assignment.Status.REJECTED):
            raise WorkRefused("This task was given back and can no longer be submitted.")
        hit = assignment.hit
        if hit.is_full:
            raise WorkRefused(
                "This task has already received all the submissions it needs, so nothing "
                "was stored. Please take another task."
            )
        row = record(assignment, hit, now)
        gold = getattr(hit.item, "gold", None) if hit.item_id else None
        if gold is not None and gold.retired_at is None:
            enqueue(CHECK_GOLD_ANSWER, assignment.pk)
        # A signed-in worker's work is theirs; a platform worker's waits for the platform.
        platform_work = assignment.external_assignment_id or assignment.session_id
        verified_at = None if platform_work else now
        _submission_count(assignment, now=now, verified_at=verified_at)
    return row, True


def _submission_count(assignment: Assignment, *, now, verified_at) -> None:
    """Count the submission on the HIT and mark the assignment submitted, in one statement
    (the caller holds both rows' locks)."""
    with connection.cursor() as cursor:
        cursor.execute(
            "WITH counted AS"
            " (UPDATE crowd_hit SET submitted_count = submitted_count + 1 WHERE id = %s)"
            " UPDATE crowd_assignment SET status = %s, submitted_at = %s, verified_at = %s"
            " WHERE id = %s",
            [assignment.hit_id, Assignment.Status.SUBMITTED, now, verified_at, assignment.pk],
        )
    assignment.hit.submitted_count += 1
    assignment.status = Assignment.Status.SUBMITTED
    assignment.submitted_at = now
    assignment.verified_at = verified_at


def assignment_reject(*, assignment_ids, reason: str = "") -> int:
    """Mark submitted assignments rejected (their work was rejected in review) and reopen their
    HITs' slots, so that rejected work never keeps an item from reaching its target. The work
    itself is kept by the app that stored it. Work that came through a campaign is also
    rejected on its platform, through the outbox, with ``reason`` as the worker's feedback.
    Call it inside the review's transaction; an assignment already rejected is left alone.
    Returns how many were rejected now."""
    with transaction.atomic():
        moved = submissions_move(
            assignment_ids, Assignment.Status.SUBMITTED, Assignment.Status.REJECTED
        )
        if moved:
            _rejections_queue(moved, reason=reason.strip())
    return len(moved)


def _rejections_queue(assignment_ids: list[int], *, reason: str) -> None:
    rejected = Assignment.objects.filter(
        pk__in=assignment_ids, campaign__isnull=False
    ).select_related("worker", "campaign", "session")
    actions, sessions = [], {}
    for assignment in rejected:
        if assignment.session_id:
            sessions[assignment.session_id] = assignment
            continue
        actions.append(
            PlatformAction(
                kind=PlatformAction.Kind.REJECT,
                worker=assignment.worker,
                token=f"reject:assignment:{assignment.pk}",
                assignment=assignment,
                details={"feedback": reason},
            )
        )
    # A session is one submission on its platform: it is rejected there only once none of
    # its work stands (everything it submitted was rejected).
    standing = set(
        Assignment.objects.filter(
            session__in=list(sessions), status=Assignment.Status.SUBMITTED
        ).values_list("session_id", flat=True)
    )
    actions += [
        PlatformAction(
            kind=PlatformAction.Kind.REJECT,
            worker=assignment.worker,
            token=f"reject:session:{session_id}",
            assignment=assignment,
            session=assignment.session,
            details={"feedback": reason},
        )
        for session_id, assignment in sessions.items()
        if session_id not in standing
    ]
    actions = platform_actions_queue(actions)
    # Rejected, reinstated and rejected again before the first rejection was sent: that
    # rejection was recorded as not sent (see the outbox), so it is sent after all.
    PlatformAction.objects.filter(
        pk__in=[action.pk for action in actions],
        state=PlatformAction.State.DONE,
        details__has_key="overturned",
    ).update(state=PlatformAction.State.PENDING, done_at=None, details={"feedback": reason})


def assignment_reinstate(*, assignment_ids) -> int:
    """Undo ``assignment_reject`` (a rejection overturned): the assignments count as submitted
    again. If a HIT's reopened slot has been filled meanwhile, the HIT stays at its target and
    the reinstated work is one more than it asked for, rather than being lost.

    Nothing is sent to a platform here: on a platform, taking a rejection back means approving
    (and paying) the work, which ``ledger_pay_assignments`` queues when the reinstated work is
    paid (with Mechanical Turk's OverrideRejection); a rejection not sent yet is dropped by the
    outbox, which sends rejections of rejected assignments only."""
    return len(
        submissions_move(assignment_ids, Assignment.Status.REJECTED, Assignment.Status.SUBMITTED)
    )


def submissions_move(assignment_ids, from_status: str, to_status: str, **changes) -> list[int]:
    """Move assignments from ``from_status`` to ``to_status`` (with ``changes`` to their other
    fields) and keep their HITs' counts right: only submitted work counts, so leaving it frees
    the slot and coming back takes one (capped at the target: the work is one more than asked
    rather than lost). Returns the ids moved; one already elsewhere is left alone."""
    with transaction.atomic():
        moving = list(
            Assignment.objects.select_for_update()
            .filter(pk__in=list(assignment_ids), status=from_status)
            .values_list("pk", "hit_id")
        )
        if not moving:
            return []
        Assignment.objects.filter(pk__in=[pk for pk, _ in moving]).update(
            status=to_status, **changes
        )
        per_hit = {}
        for _, hit_id in moving:
            per_hit[hit_id] = per_hit.get(hit_id, 0) + 1
        for hit_id, n in sorted(per_hit.items()):
            hits = Hit.objects.filter(pk=hit_id)
            if to_status != Assignment.Status.SUBMITTED:
                hits.update(submitted_count=F("submitted_count") - n)
            else:
                hits.update(submitted_count=Least(F("submitted_count") + n, F("max_assignments")))
    return [pk for pk, _ in moving]


def _locked_assignment(
    assignment_id: int, worker: Worker, *, kind=None, related=(), locking=("self",)
) -> Assignment:
    query = _locked_assignment_query(kind, tuple(related), tuple(locking))
    found = query.fetch(pk=int(assignment_id), worker_id=worker.pk)
    if not found:
        raise WorkRefused("There is no such task for you.")
    return found[0]


@cache
def _locked_assignment_query(kind, related: tuple, locking: tuple) -> CompiledQuery:
    """Every submission locks its assignment: compiled once per process for each caller."""

    def build(pk, worker_id):
        assignments = Assignment.objects.select_for_update(of=locking).select_related(
            "hit", *related
        )
        if kind is not None:
            assignments = assignments.filter(hit__hit_type__kind=kind)
        return assignments.filter(pk=pk, worker_id=worker_id)

    return CompiledQuery(build, "pk", "worker_id")
