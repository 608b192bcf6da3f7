"""Work sessions: a platform visit of up to K tasks, handed out one at a time.

A session holds at most one task at a time, so one that is abandoned holds nothing it has
not started: the task in hand goes back when it expires (or at once when the platform says
the participant left), and the tasks not yet handed out were never taken. Inside a session
every guarantee of the allocation holds (no item twice for one worker, never over target,
one stored submission per task), because each task is claimed like any other.
"""

from dataclasses import dataclass

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import F, Q, Window
from django.db.models.functions import RowNumber
from django.utils import timezone

from paracrowd.wording import counted

from ..models import Assignment, AuditEntry, Campaign, Tier, Worker, WorkSession
from .allocation import session_claim, submissions_move
from .errors import WorkRefused
from .workers import arrival_count, audit_record, worker_from_platform

# What a session is marked with (its platform status) when the read-back gave up on it: the
# platform never listed it, long after the longest time it allows. The site gave its place
# back; the participant did not give anything back, as far as anyone knows.
NEVER_LISTED = "unknown"
# And when the platform listed it as given up: given back by the participant, run out of time,
# or listed for another participant or study (the site gave that place back).
RETURNED, TIMED_OUT, SOMEONE_ELSES = "returned", "timed out", "listed for someone else"


@dataclass(frozen=True)
class SessionProgress:
    """Where a session stands, for the task page: "task 7 of 20", and whether the worker may
    end it now."""

    done: int
    limit: int
    minimum: int

    @property
    def current(self) -> int:
        return min(self.done + 1, self.limit)

    @property
    def may_finish(self) -> bool:
        return self.done >= self.minimum


def session_enter(
    *,
    platform: str,
    worker_id: str,
    session_id: str,
    listing_id: str,
    kind: str,
    tier: int,
    campaign: Campaign | None,
    address: str | None,
    checked_at=None,
) -> WorkSession:
    """The session of a platform visit: opened on first arrival, the same one on every reload.
    The worker is the platform's participant (created on first sight), so a later session by
    the same id carries their tier and history; every new session counts against
    ``address``'s hourly allowance (``ArrivalsExceeded`` over it). A visit id that arrives
    with another participant, another study or another kind of task is refused
    (``WorkRefused``) and nothing is stored; so is a new visit the platform did not confirm
    while the participant has a session open in the campaign. ``checked_at``: when the
    platform confirmed the visit is the participant's (None where it cannot be asked)."""
    existing = _session(platform, session_id)
    if existing is not None:
        _same_visit_check(existing, worker_id=worker_id, listing_id=listing_id, kind=kind)
        return existing
    if campaign is not None:
        limit, minimum = campaign.tasks_per_session, campaign.tasks_minimum
    else:
        limit, minimum = settings.PLATFORM_DEMO_SESSION_TASKS, 1
    try:
        with transaction.atomic():
            # Every new session counts against the address, not only a new participant id:
            # invented session ids of one participant would otherwise take places unchecked.
            if address:
                arrival_count(address=address)
            worker = worker_from_platform(platform=platform, external_id=worker_id)
            if tier > Tier.ONE and worker.current_tier < tier:
                raise WorkRefused(
                    f"This study is for Tier-{tier} workers, and your account does not hold "
                    f"our Tier-{tier} qualification."
                )
            if checked_at is None and campaign is not None:
                _one_open_session_check(worker, campaign)
            return WorkSession.objects.create(
                worker=worker,
                campaign=campaign,
                platform=platform,
                external_id=session_id,
                listing_id=listing_id,
                kind=kind,
                tier=tier,
                task_limit=limit,
                task_minimum=minimum,
                arrival_checked_at=checked_at,
            )
    except IntegrityError:
        # The same visit's other request (a double click, two tabs) opened it first.
        existing = _session(platform, session_id)
        if existing is None:
            raise
        _same_visit_check(existing, worker_id=worker_id, listing_id=listing_id, kind=kind)
        return existing


def _one_open_session_check(worker, campaign) -> None:
    """A visit the platform could not confirm opens no second session for a participant who
    has one open in the campaign: each would hold places on ids nobody checked. The worker's
    row lock makes two such visits at once queue, so only one of them opens."""
    Worker.objects.select_for_update().filter(pk=worker.pk).first()
    if WorkSession.objects.open().filter(worker=worker, campaign=campaign).exists():
        raise WorkRefused(
            "You already have a session open in this study. Please go back to the study on "
            "your platform and continue from the link you started with; a new one opens once "
            "that session is finished."
        )


def _session(platform: str, session_id: str) -> WorkSession | None:
    return (
        WorkSession.objects.select_related("worker", "campaign")
        .filter(platform=platform, external_id=session_id)
        .first()
    )


def _same_visit_check(session: WorkSession, *, worker_id, listing_id, kind) -> None:
    if session.worker.external_id != worker_id or session.listing_id != listing_id:
        raise WorkRefused("This session was opened by another participant or for another study.")
    if session.kind != kind:
        raise WorkRefused("This session is for another kind of task than this page.")


def sessions_per_participant(*, campaign: Campaign) -> int:
    """How many sessions of ``campaign`` one participant may take: enough for
    PLATFORM_TASKS_PER_PARTICIPANT tasks (MSVD's workers wrote ~120 descriptions each), so a
    good participant can come back for more. An item is never handed to a worker twice, so
    coming back never means the same work again."""
    wanted = settings.PLATFORM_TASKS_PER_PARTICIPANT
    return max(1, -(-wanted // max(campaign.tasks_per_session, 1)))


def session_progress(session: WorkSession) -> SessionProgress:
    return SessionProgress(
        done=session_done(session), limit=session.task_limit, minimum=session.task_minimum
    )


def session_done(session: WorkSession) -> int:
    """Tasks submitted in the session (whatever their review said since)."""
    return Assignment.objects.filter(session=session, submitted_at__isnull=False).count()


def session_position(assignment: Assignment) -> int:
    """The place of a submitted task in its session, by submission order (1 for the first):
    the session's reward pays the places up to its minimum, bonuses the rest."""
    earlier = Q(submitted_at__lt=assignment.submitted_at) | Q(
        submitted_at=assignment.submitted_at, pk__lte=assignment.pk
    )
    return Assignment.objects.filter(earlier, session=assignment.session_id).count()


def session_positions(assignments):
    """``session_position`` of many submitted tasks at once: a queryset of them annotated
    with ``position``, in one query."""
    return assignments.filter(submitted_at__isnull=False).annotate(
        position=Window(
            RowNumber(), partition_by=[F("session_id")], order_by=[F("submitted_at"), F("pk")]
        )
    )


def session_task(*, session: WorkSession) -> Assignment | None:
    """The session's task in hand, or the next one claimed for it; None when the session is
    over, has done its tasks, or nothing is left to claim. Two requests of one session (two
    tabs) queue on the session's row, so it never holds two tasks."""
    now = timezone.now()
    with transaction.atomic():
        session = (
            WorkSession.objects.select_for_update(of=("self",))
            .select_related("campaign", "worker")
            .get(pk=session.pk)
        )
        if session.state != WorkSession.State.OPEN:
            return None
        held = (
            Assignment.objects.filter(
                session=session, status=Assignment.Status.ASSIGNED, expires_at__gt=now
            )
            .order_by("pk")
            .first()
        )
        if held is not None:
            return held
        if session_done(session) >= session.task_limit:
            return None
        claimed = session_claim(
            worker=session.worker,
            tier=session.tier,
            kind=session.kind,
            campaign=session.campaign,
            listing_id=session.listing_id,
        )
        if claimed is not None:
            Assignment.objects.filter(pk=claimed.pk).update(session=session)
            claimed.session = session
        return claimed


def session_finish(
    *, session: WorkSession, early: bool = False, failed_check: bool = False
) -> WorkSession:
    """End an open session: the task in hand goes back at once. ``early`` is the worker's
    own choice, refused (``WorkRefused``) before the campaign's minimum of tasks;
    ``failed_check``, the quality rules stopped the worker (the session is sent back with
    the failed-check code); otherwise the session has done its tasks, or nothing was left to
    give it. Ending twice is once."""
    with transaction.atomic():
        session = WorkSession.objects.select_for_update().get(pk=session.pk)
        if session.state != WorkSession.State.OPEN:
            return session
        done = session_done(session)
        if early and done < session.task_minimum:
            raise WorkRefused(
                f"Please do at least {counted(session.task_minimum, 'task')} before finishing; "
                f"you have done {done}."
            )
        _give_back_held(session)
        session.state = WorkSession.State.FINISHED
        session.ended_at = timezone.now()
        session.failed_check = failed_check
        session.save(update_fields=["state", "ended_at", "failed_check"])
    return session


def session_consent(*, session: WorkSession) -> WorkSession:
    """The participant agreed to the campaign's consent and instructions page: the session's
    tasks follow. Agreeing twice keeps the first time."""
    WorkSession.objects.filter(pk=session.pk, consented_at__isnull=True).update(
        consented_at=timezone.now()
    )
    session.refresh_from_db(fields=["consented_at"])
    return session


def session_consent_due(session: WorkSession) -> bool:
    """Whether the campaign's consent and instructions page comes before the next task: it
    has one, the participant has not agreed yet, and no task was handed out in the session
    (a page set by staff mid-session does not interrupt it)."""
    campaign = session.campaign
    if campaign is None or not campaign.consent_text.strip() or session.consented_at:
        return False
    return not Assignment.objects.filter(session=session).exists()


def session_skip(*, session: WorkSession, assignment: Assignment) -> bool:
    """The participant gives the session's task in hand back (Skip): it goes back at once, so
    it can go to someone else, and it is never handed to them again. The tasks done in the
    session still count; the next task is handed out as usual. Returns False when the task
    was submitted (or given back) already: there is nothing to skip."""
    if assignment.session_id != session.pk:
        raise WorkRefused("This task is not one of your session's.")
    returned = Assignment.objects.filter(
        pk=assignment.pk, session=session, status=Assignment.Status.ASSIGNED
    ).update(status=Assignment.Status.RETURNED)
    return bool(returned)


def session_after_submit(*, session: WorkSession) -> WorkSession:
    """After a task of ``session`` is stored: the session ends once it has done its tasks."""
    if session_done(session) >= session.task_limit:
        return session_finish(session=session)
    return session


def session_abandon(*, session: WorkSession, platform_status: str) -> bool:
    """The platform says the participant left (returned the study, timed out): the task in
    hand goes back at once, and work submitted in the session is marked not confirmed (never
    paid or accepted; its HITs' places reopen), as for any work the platform contradicts.
    Returns True when the session was abandoned now."""
    with transaction.atomic():
        session = (
            WorkSession.objects.select_for_update().select_related("worker").get(pk=session.pk)
        )
        if session.state == WorkSession.State.ABANDONED:
            return False
        _give_back_held(session)
        submitted = list(
            # Only work the platform never confirmed: nothing verified is taken back.
            session.assignments.filter(
                status=Assignment.Status.SUBMITTED, verified_at__isnull=True
            ).values_list("pk", flat=True)
        )
        moved = submissions_move(
            submitted, Assignment.Status.SUBMITTED, Assignment.Status.UNVERIFIED, verified_at=None
        )
        session.state = WorkSession.State.ABANDONED
        session.ended_at = session.ended_at or timezone.now()
        session.platform_status = platform_status[:30]
        session.save(update_fields=["state", "ended_at", "platform_status"])
        audit_record(
            actor=None,
            action=AuditEntry.Action.PLATFORM,
            worker=session.worker,
            reason=f"The platform reports the session {platform_status.lower()}: its task in "
            f"hand went back and {len(moved)} submitted tasks are not confirmed.",
            details={"session": session.pk, "campaign": session.campaign_id},
        )
    return True


def session_confirm(*, session: WorkSession, platform_status: str, now=None) -> int:
    """The platform shows the session submitted (or approved): the work submitted in it is
    verified, and work marked not confirmed before counts again. Returns how many tasks were
    verified now; again, none."""
    now = now or timezone.now()
    with transaction.atomic():
        reinstated = submissions_move(
            list(
                session.assignments.filter(status=Assignment.Status.UNVERIFIED).values_list(
                    "pk", flat=True
                )
            ),
            Assignment.Status.UNVERIFIED,
            Assignment.Status.SUBMITTED,
            verified_at=now,
        )
        verified = session.assignments.filter(
            status=Assignment.Status.SUBMITTED, verified_at__isnull=True
        ).update(verified_at=now)
        WorkSession.objects.filter(pk=session.pk).update(platform_status=platform_status[:30])
    return len(reinstated) + verified


def _give_back_held(session: WorkSession) -> None:
    Assignment.objects.filter(session=session, status=Assignment.Status.ASSIGNED).update(
        status=Assignment.Status.RETURNED
    )
