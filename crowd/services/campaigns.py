"""Campaigns: publishing a batch of HITs on a crowd platform, stopping or extending it, and
reading back what the platform says workers did ("trust at sync").

Publishing is resumable: every platform object is created with a token naming the campaign
and the row it is for, and its id is stored as soon as the platform returns it, so publishing
again after a failure finishes the job without posting anything twice.
"""

import secrets
from datetime import timedelta

from django.conf import global_settings
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from paracrowd.wording import counted

from .. import platforms
from ..models import (
    Assignment,
    AuditEntry,
    Campaign,
    CampaignEvent,
    CampaignHit,
    HitType,
    Tier,
    WorkSession,
)
from ..platforms import PlatformError, Submission, entrance_url
from ..platforms.base import Listing
from ..platforms.studylink import links as studylink
from .allocation import submissions_move
from .campaign_work import campaign_places_check, campaign_postings, campaign_shortfall
from .closures import platform_open_check
from .errors import WorkRefused
from .ledger import platform_approval_record
from .outbox import platform_qualification
from .pay import (
    bonus_fees_cents,
    campaign_pay_check,
    campaign_task_cents,
    minimum_hourly_cents,
    money,
    platform_fee_cents,
    session_description,
    session_minutes,
)
from .platform_events import platform_hooks_ensure, session_reported
from .reconcile import campaign_listing_ids, campaign_reconcile
from .sessions import NEVER_LISTED, session_abandon, sessions_per_participant
from .workers import audit_record

# Expired campaigns are still read back this long, for late submissions and approvals.
SYNC_AFTER_EXPIRY = timedelta(days=30)


def campaign_create(
    *,
    name: str,
    platform: str,
    kind: str,
    tier: int,
    size: int,
    lifetime: timedelta,
    created_by=None,
    tasks_per_session: int = 20,
    tasks_minimum: int | None = None,
    task_cents: int | None = None,
    languages=(),
    study_link_preset: str = "generic",
    confirm_hours: int = 48,
) -> Campaign:
    """A draft campaign of ``size`` HITs of ``kind`` in ``tier`` that still want work and that
    no other live campaign offers (the HITs with the fewest submissions first). A
    video-collection campaign wants ``size`` tasks, each opening a HIT of its own. Nothing
    is sent to the platform yet; ``campaign_publish`` does that.

    Its places are work sessions of up to ``tasks_per_session`` tasks, which a worker may end
    after ``tasks_minimum`` (all of them when not given). A place's reward pays the minimum;
    each further task is a bonus of ``task_cents`` — by default the least that reaches the
    platform's minimum hourly reward at the time a task takes now. ``languages`` (ISO 639-1
    codes) limits the study to participants fluent in one of them. A study link's
    ``study_link_preset`` names the platform its link is pasted into; work that platform has
    not confirmed ``confirm_hours`` after its session started gives its place back."""
    platform_open_check(platform=platform)
    if platform not in Campaign.Platform.values:
        raise WorkRefused(f"Unknown platform {platform!r}.")
    tasks_minimum = tasks_per_session if tasks_minimum is None else tasks_minimum
    if not 1 <= tasks_per_session <= 200:
        raise WorkRefused("A session has between 1 and 200 tasks.")
    if not 1 <= tasks_minimum <= tasks_per_session:
        raise WorkRefused("The minimum of tasks is between 1 and the tasks in a session.")
    languages = _languages(languages)
    if study_link_preset not in studylink.PRESETS:
        raise WorkRefused(
            f"No study-link preset {study_link_preset!r}; there are {', '.join(studylink.PRESETS)}."
        )
    if not 1 <= confirm_hours <= 24 * 90:
        raise WorkRefused("Work is confirmed within 1 hour to 90 days (2160 hours).")
    if tier not in Tier.values:
        raise WorkRefused("The tier is 1 or 2.")
    if size < 1:
        raise WorkRefused("A campaign offers at least one HIT.")
    if lifetime < timedelta(minutes=30) or lifetime > timedelta(days=365):
        raise WorkRefused("A campaign runs between 30 minutes and a year.")
    hit_type = HitType.objects.for_kind(kind)
    if task_cents is not None and (
        isinstance(task_cents, bool) or not isinstance(task_cents, int) or task_cents < 1
    ):
        raise WorkRefused("The pay per task is a whole number of cents, at least 1.")
    # Read before any row is locked: the platform may be asked for its minimum.
    hourly_minimum = minimum_hourly_cents(platform=platform)
    with transaction.atomic():
        postings = campaign_postings(hit_type=hit_type, tier=tier, size=size)
        largest = max(posting.max_assignments for posting in postings)
        # A session never asks for more tasks than the campaign wants.
        tasks_per_session = min(tasks_per_session, sum(p.max_assignments for p in postings))
        tasks_minimum = min(tasks_minimum, tasks_per_session)
        campaign_places_check(
            hit_type=hit_type,
            tier=tier,
            places=-(-sum(p.max_assignments for p in postings) // tasks_per_session),
        )
        task_cents = campaign_task_cents(
            platform=platform,
            hit_type=hit_type,
            tier=tier,
            hourly_cents=hourly_minimum,
            tasks_minimum=tasks_minimum,
            task_cents=task_cents,
        )
        reward = task_cents * tasks_minimum
        campaign = Campaign.objects.create(
            name=name.strip() or f"{hit_type.title} (tier {tier})",
            platform=platform,
            sandbox=_sandbox(platform),
            hit_type=hit_type,
            tier=tier,
            reward_cents=reward,
            fee_cents=platform_fee_cents(platform, reward, largest),
            tasks_per_session=tasks_per_session,
            tasks_minimum=tasks_minimum,
            task_cents=task_cents,
            bonus_fee_cents=bonus_fees_cents(
                platform, task_cents=task_cents, bonuses=tasks_per_session - tasks_minimum
            ),
            languages=languages,
            study_link_preset=study_link_preset,
            confirm_hours=confirm_hours,
            lifetime=lifetime,
            completion_code=secrets.token_hex(4).upper(),
            created_by=created_by,
        )
        for posting in postings:
            posting.campaign = campaign
        CampaignHit.objects.bulk_create(postings)
        hits = counted(len(postings), "HIT")
        shortfall = campaign_shortfall(campaign=campaign, asked=size)
        _event(
            campaign,
            f"Created with {hits} wanting {counted(campaign.tasks_wanted, 'task')}: "
            f"{counted(campaign.places, 'place')} of up to {counted(tasks_per_session, 'task')}."
            + (f" {shortfall}" if shortfall else ""),
        )
        if created_by is not None:
            audit_record(
                actor=created_by,
                action=AuditEntry.Action.CAMPAIGN,
                reason=f"Created campaign {campaign.name}",
                details={"campaign": campaign.pk, "places": campaign.places},
            )
    return campaign


def campaign_publish(*, campaign: Campaign, published_by=None) -> Campaign:
    """Publish a draft campaign on its platform, or finish publishing one that stopped half
    way. Refused, with nothing sent, when the account's balance does not cover the rewards and
    fees of every place. Platform errors are recorded on the campaign and raised as
    ``WorkRefused`` carrying the platform's message."""
    platform_open_check(platform=campaign.platform)
    platform = platforms.get(campaign.platform)
    if platform.has_api:
        _connector(campaign)  # refused, with nothing recorded, when none is configured here
    try:
        balance = campaign_publish_check(campaign=campaign)
        if campaign.state == Campaign.State.DRAFT:
            moved = Campaign.objects.filter(pk=campaign.pk, state=Campaign.State.DRAFT).update(
                state=Campaign.State.PUBLISHING
            )
            if not moved:
                raise WorkRefused("Someone else is publishing this campaign.")
            campaign.state = Campaign.State.PUBLISHING
            balance_note = (
                "" if balance is None else f"; the balance was {money(balance, campaign.platform)}"
            )
            _event(campaign, f"Publishing{balance_note}.")
        if not campaign.external_id:
            # Stored before anything else is sent: publishing again finds this listing.
            campaign.external_id = platform.listing_create(_listing(campaign, platform))
            Campaign.objects.filter(pk=campaign.pk).update(external_id=campaign.external_id)
        platform.listing_publish(campaign.external_id)
        CampaignHit.objects.filter(campaign=campaign, created_at__isnull=True).update(
            created_at=timezone.now()
        )
        if platform.has_api:
            platform_hooks_ensure(campaign=campaign, connector=_connector(campaign))
    except PlatformError as error:
        _event(campaign, str(error), is_error=True)
        raise WorkRefused(str(error)) from error
    now = timezone.now()
    campaign.state = Campaign.State.PUBLISHED
    campaign.published_at = now
    campaign.expires_at = now + campaign.lifetime
    campaign.save(update_fields=["state", "published_at", "expires_at", "external_id"])
    places = counted(campaign.places, "place")
    _event(campaign, f"Published {places} on {campaign.get_platform_display()}.")
    if published_by is not None:
        audit_record(
            actor=published_by,
            action=AuditEntry.Action.CAMPAIGN,
            reason=f"Published campaign {campaign.name}",
            details={"campaign": campaign.pk, "cost_cents": campaign.cost_cents},
        )
    return campaign


def campaign_publish_check(*, campaign: Campaign) -> int | None:
    """Refuse (``WorkRefused``) to publish a campaign that is not a draft or half published,
    or whose platform account cannot pay every place with the fee. Returns the balance read
    for a draft (None when finishing a publication: its money was checked at the start, or
    when the platform holds no balance here)."""
    platform_open_check(platform=campaign.platform)
    if campaign.state not in (Campaign.State.DRAFT, Campaign.State.PUBLISHING):
        raise WorkRefused(f"This campaign is {campaign.get_state_display().lower()} already.")
    if campaign.state == Campaign.State.PUBLISHING:
        return None
    campaign_pay_check(campaign=campaign)
    try:
        balance = platforms.get(campaign.platform).balance_cents()
    except PlatformError as error:
        raise WorkRefused(str(error)) from error
    if balance is None:
        return None  # paid on the platform's own pages: no balance to read
    if balance < campaign.cost_cents:
        platform = campaign.platform
        raise WorkRefused(
            f"The {campaign.get_platform_display()} account has {money(balance, platform)}, "
            f"which does not cover this campaign's {money(campaign.cost_cents, platform)} "
            f"({counted(campaign.places, 'place')} at {money(campaign.reward_cents, platform)} "
            "plus "
            f"{money(campaign.fee_cents, platform)} fee, and up to "
            f"{money(campaign.bonus_cents_per_place, platform)} of bonuses each). Add funds or "
            "make it smaller."
        )
    return balance


def _listing(campaign: Campaign, platform) -> Listing:
    """What publishing asks of the platform, from the campaign."""
    hit_type = campaign.hit_type
    seconds = campaign.seconds_per_task or hit_type.estimated_seconds
    minutes = session_minutes(seconds=seconds, tasks=campaign.tasks_minimum)
    group = None
    if campaign.tier == Tier.TWO and platform.tier_on_platform:
        # Only members of the Tier-2 group (kept in step with qualifications through the
        # outbox) see the listing at all.
        group = platform_qualification(
            platform=campaign.platform, sandbox=campaign.sandbox, tier=Tier.TWO
        )
    return Listing(
        name=campaign.name,
        campaign_id=campaign.pk,
        description=session_description(campaign=campaign, minutes=minutes),
        url=entrance_url(hit_type.kind),
        completion_code=campaign.completion_code,
        reward_cents=campaign.reward_cents,
        places=campaign.places,
        minutes=minutes,
        maximum_minutes=max(
            10, 3 * session_minutes(seconds=seconds, tasks=campaign.tasks_per_session)
        ),
        failed_check_code=campaign.failed_check_code,
        sessions_per_participant=sessions_per_participant(campaign=campaign),
        tier_group_id=group,
        languages=tuple(campaign.languages),
    )


def _languages(codes) -> list[str]:
    known = dict(global_settings.LANGUAGES)
    codes = [code.strip().lower() for code in codes if code.strip()]
    unknown = [code for code in codes if code not in known]
    if unknown:
        raise WorkRefused(
            f"Unknown language code {unknown[0]!r}: give ISO 639-1 codes such as en, es, zh-hans."
        )
    return list(dict.fromkeys(codes))


def campaign_expire(*, campaign: Campaign, expired_by, reason: str) -> Campaign:
    """Stop offering a published campaign's HITs now. Work already accepted may still be
    submitted, and is read back as usual."""
    if campaign.state != Campaign.State.PUBLISHED:
        raise WorkRefused("Only a published campaign can be expired.")
    try:
        platforms.get(campaign.platform).listings_stop(campaign_listing_ids(campaign))
    except PlatformError as error:
        _event(campaign, str(error), is_error=True)
        raise WorkRefused(str(error)) from error
    with transaction.atomic():
        campaign.state = Campaign.State.EXPIRED
        campaign.expires_at = timezone.now()
        campaign.save(update_fields=["state", "expires_at"])
        _event(campaign, f"Expired early: {reason.strip()}")
        audit_record(
            actor=expired_by,
            action=AuditEntry.Action.CAMPAIGN,
            reason=reason,
            details={"campaign": campaign.pk, "expired": True},
        )
    return campaign


def campaign_extend(*, campaign: Campaign, extended_by, by: timedelta, reason: str) -> Campaign:
    """Keep a campaign's listings on offer ``by`` longer than planned (from now if it has
    expired), where its platform gives listings an end date (the platform refuses otherwise:
    Prolific's studies run until full or stopped)."""
    platform_open_check(platform=campaign.platform)
    if campaign.state not in (Campaign.State.PUBLISHED, Campaign.State.EXPIRED):
        raise WorkRefused("Only a published or expired campaign can be extended.")
    if by <= timedelta(0) or by > timedelta(days=365):
        raise WorkRefused("Extend by between a minute and a year.")
    until = max(campaign.expires_at or timezone.now(), timezone.now()) + by
    try:
        platforms.get(campaign.platform).listings_extend(
            campaign_listing_ids(campaign), until=until
        )
    except PlatformError as error:
        _event(campaign, str(error), is_error=True)
        raise WorkRefused(str(error)) from error
    with transaction.atomic():
        campaign.state = Campaign.State.PUBLISHED
        campaign.expires_at = until
        campaign.save(update_fields=["state", "expires_at"])
        _event(campaign, f"Extended until {until:%Y-%m-%d %H:%M} UTC: {reason.strip()}")
        audit_record(
            actor=extended_by,
            action=AuditEntry.Action.CAMPAIGN,
            reason=reason,
            details={"campaign": campaign.pk, "until": until.isoformat()},
        )
    return campaign


def campaigns_to_sync(*, now=None):
    """Campaigns whose work may still change on the platform."""
    now = now or timezone.now()
    return Campaign.objects.filter(
        Q(state=Campaign.State.PUBLISHED)
        | Q(state=Campaign.State.EXPIRED, expires_at__gt=now - SYNC_AFTER_EXPIRY)
    ).order_by("pk")


def campaign_sync(*, campaign: Campaign, now=None) -> dict:
    """Read the campaign's work back from the platform and verify the work stored here.

    A piece of work is verified only when the platform lists its assignment as submitted, by
    the worker and for the HIT (or study) it arrived with. Work the platform contradicts (the
    assignment is someone else's, or for another HIT) is marked unverified at once; work the
    platform still does not show once the assignment's time is up is marked unverified too.
    Unverified work keeps its row but is never paid or accepted, and its HIT's slot reopens;
    if the platform shows it later, it is verified and counts again. Approvals the platform
    made by itself are credited to the ledger as paid, and the campaign is reconciled
    (``campaign_reconcile``). Running it twice changes nothing more.
    Returns counts of what changed."""
    now = now or timezone.now()
    _connector(campaign)  # refused where nothing can be read back (no API, none configured)
    platform = platforms.get(campaign.platform)
    try:
        listing_ids = campaign_listing_ids(campaign)
        reported = list(platform.submissions_read(listing_ids))
        counts = platform.listing_counts(listing_ids)
    except PlatformError as error:
        _event(campaign, f"Reading back failed: {error}", is_error=True)
        return {"error": str(error)}
    by_id = {submission.assignment_id: submission for submission in reported}
    changed = {"verified": 0, "unverified": 0, "approved_by_platform": 0, "abandoned": 0}
    _sessions_sync(campaign, by_id, changed, now)
    assignments = (
        Assignment.objects.filter(campaign=campaign, session__isnull=True)
        .filter(
            Q(status=Assignment.Status.UNVERIFIED)
            | Q(status=Assignment.Status.SUBMITTED, verified_at__isnull=True)
            | Q(external_assignment_id__in=[s.assignment_id for s in reported if s.approved_at])
        )
        .select_related("worker", "hit__hit_type")
        .order_by("pk")
    )
    for assignment in assignments:
        submission = by_id.get(assignment.external_assignment_id)
        if submission is not None and not _is_theirs(campaign, assignment, submission):
            changed["unverified"] += _unverify(assignment, "the platform lists it for someone else")
        elif submission is not None and submission.is_submitted:
            changed["verified"] += _verify(assignment, now)
            if submission.status == Submission.APPROVED and assignment.verified_at:
                changed["approved_by_platform"] += platform_approval_record(
                    assignment=assignment, approved_at=submission.approved_at or now
                )
        elif (
            assignment.status == Assignment.Status.SUBMITTED
            and assignment.submitted_at + assignment.hit.hit_type.assignment_duration <= now
        ):
            changed["unverified"] += _unverify(assignment, "the platform never showed it submitted")
    Campaign.objects.filter(pk=campaign.pk).update(platform_counts=counts, synced_at=now)
    if campaign.state == Campaign.State.PUBLISHED and campaign.expires_at <= now:
        Campaign.objects.filter(pk=campaign.pk, state=Campaign.State.PUBLISHED).update(
            state=Campaign.State.EXPIRED
        )
    if changed["unverified"]:
        _event(
            campaign,
            f"{changed['unverified']} pieces of work were not confirmed by the platform: "
            "they will not be paid, and their HITs' places are offered again.",
            is_error=True,
        )
    campaign_reconcile(campaign=campaign, now=now)
    return changed


def _sessions_sync(campaign, by_id: dict, changed: dict, now) -> None:
    """What the platform says of each session not settled yet: submitted (or approved)
    confirms its work; returned or timed out gives back its task in hand and leaves its work
    unconfirmed; a session listed for someone else is treated as left. A session the
    platform does not list is left alone until it is, except once the longest time the
    platform allows has passed twice over (a visit that was never the platform's)."""
    sessions = (
        WorkSession.objects.filter(campaign=campaign)
        .exclude(state=WorkSession.State.ABANDONED, platform_status__gt="")
        .select_related("worker")
        .order_by("pk")
    )
    unsettled = Q(assignments__status=Assignment.Status.SUBMITTED, assignments__verified_at=None)
    unsettled |= Q(assignments__status=Assignment.Status.UNVERIFIED) | Q(
        state=WorkSession.State.OPEN
    )
    give_up = timedelta(seconds=campaign.seconds_per_task * campaign.tasks_per_session * 6)
    for session in sessions.filter(unsettled).distinct():
        submission = by_id.get(session.external_id)
        if submission is not None:
            session_reported(
                session=session,
                submission=submission,
                listing_id=campaign.external_id,
                changed=changed,
                now=now,
            )
        elif session.started_at + max(give_up, timedelta(hours=2)) <= now:
            changed["abandoned"] += session_abandon(session=session, platform_status=NEVER_LISTED)


def _is_theirs(campaign, assignment, submission) -> bool:
    listing = platforms.get(campaign.platform).work_listing_id(
        campaign_listing_id=campaign.external_id, posting_listing_id=assignment.external_hit_id
    )
    return submission.worker_id == assignment.worker.external_id and (
        submission.listing_id == listing
    )


def _verify(assignment, now) -> int:
    """Mark one assignment verified; an unverified one counts as submitted again."""
    if assignment.status == Assignment.Status.UNVERIFIED:
        moved = submissions_move(
            [assignment.pk],
            Assignment.Status.UNVERIFIED,
            Assignment.Status.SUBMITTED,
            verified_at=now,
        )
    else:
        moved = Assignment.objects.filter(
            pk=assignment.pk, status=Assignment.Status.SUBMITTED, verified_at__isnull=True
        ).update(verified_at=now)
    if moved:
        assignment.status, assignment.verified_at = Assignment.Status.SUBMITTED, now
    return 1 if moved else 0


def _unverify(assignment, why: str) -> int:
    with transaction.atomic():
        moved = submissions_move(
            [assignment.pk],
            Assignment.Status.SUBMITTED,
            Assignment.Status.UNVERIFIED,
            verified_at=None,
        )
        if not moved:
            return 0
        audit_record(
            actor=None,
            action=AuditEntry.Action.PLATFORM,
            worker=assignment.worker,
            reason=f"Work not confirmed by the platform: {why}.",
            details={"assignment": assignment.pk, "campaign": assignment.campaign_id},
        )
    return 1


def _connector(campaign):
    try:
        return platforms.connector(campaign.platform)
    except platforms.NotConfigured as error:
        raise WorkRefused(str(error)) from error


def _sandbox(platform: str) -> bool:
    return platforms.get(platform).sandbox()


def _event(campaign, message: str, *, is_error: bool = False) -> None:
    CampaignEvent.objects.create(campaign=campaign, message=message, is_error=is_error)
