"""What a crowd platform tells the site on its own (webhooks), and what the read-back learns of
one session; both end in the same code.

A signed event is stored once under the platform's event id and answered at once; a Celery
task applies it. Applying a submission's new state is what reading the campaign back does for
that session (``session_reported``), so a webhook only makes the site learn sooner: polling
stays the reconciler for any event lost or never sent.
"""

import json
import logging
import time

from django.conf import settings
from django.core.cache import cache
from django.db import connection, transaction
from django.urls import reverse
from django.utils import timezone
from redis.exceptions import RedisError

from paracrowd.celery import enqueue

from .. import platforms
from ..models import Campaign, CampaignEvent, PlatformEvent, PlatformHookSecret, WorkSession
from ..platforms import PlatformError, Submission
from ..platforms.base import HOOK_REENABLED, WebhookEvent
from .sessions import (
    RETURNED,
    SOMEONE_ELSES,
    TIMED_OUT,
    session_abandon,
    session_confirm,
)

PROCESS_TASK = "crowd.tasks.platform_event_process"
# The periodic read-back looks at a platform's webhook subscriptions at most this often: a
# disabled one is found within the hour, for two or three calls an hour, not twelve.
HOOKS_CHECK_SECONDS = 60 * 60
HOOKS_CHECK_KEY = "platform-hooks-checked:{platform}"

logger = logging.getLogger(__name__)


def platform_hooks_ensure(*, campaign: Campaign, connector) -> None:
    """Have the campaign's platform send its events to the site's webhook: the platform's
    signing secret saved here (unless the operator set one) and a subscription to each event
    the site acts on. Safe to repeat: nothing is made twice, and a subscription the platform
    disabled is enabled again, which the campaign's history records. A failure is recorded as
    an error event of the campaign and nothing is raised, so publishing goes on; the read-back still
    learns everything, later."""
    platform = platforms.get(campaign.platform)
    if not platform.webhook_events:
        return
    try:
        _hooks_ensure(platform, connector, [campaign])
    except PlatformError as error:
        CampaignEvent.objects.create(
            campaign=campaign,
            is_error=True,
            message=f"{platform.label} will not send its events to {_hooks_target(platform)} "
            f"({error}); its submissions are read back by polling instead.",
        )


def platform_hooks_check(*, campaigns) -> list[str]:
    """The periodic read-back's look at the webhook subscriptions of the platforms of
    ``campaigns`` (the live ones), so that one the platform disabled while they run does not
    stay disabled until the next publication. At most once an hour per platform, across every
    worker (a key added to the cache: whoever adds it checks); skipped when the cache cannot be
    reached, and for platforms that send no events or have no connector here. Re-enabling is
    recorded in the history of every live campaign of the platform: the subscription is the
    workspace's, not one campaign's, so each of them had its events arrive late, and each
    history is where someone reading that campaign looks for why. A failure is logged, not
    written to those histories (an hourly error in each would bury them; publishing records
    it), and nothing is raised. Returns the platforms checked."""
    live: dict[str, list[Campaign]] = {}
    for campaign in campaigns:
        if platforms.get(campaign.platform).webhook_events:
            live.setdefault(campaign.platform, []).append(campaign)
    checked = []
    for name, platform_campaigns in live.items():
        platform = platforms.get(name)
        try:
            connector = platforms.connector(name)
        except platforms.NotConfigured:
            continue
        try:
            if not cache.add(HOOKS_CHECK_KEY.format(platform=name), 1, HOOKS_CHECK_SECONDS):
                continue  # checked within the hour
        except RedisError as error:
            logger.warning("%s's webhook subscriptions not checked: %s", platform.label, error)
            continue
        try:
            _hooks_ensure(platform, connector, platform_campaigns)
        except PlatformError as error:
            logger.warning(
                "%s's webhook subscriptions could not be checked: %s", platform.label, error
            )
        checked.append(name)
    return checked


def _hooks_target(platform) -> str:
    return settings.PLATFORM_PUBLIC_URL + reverse("crowd:platform_hooks", args=[platform.name])


def _hooks_ensure(platform, connector, campaigns: list[Campaign]) -> None:
    """Save the secret and subscribe to each event; each re-enabling is written to the history
    of ``campaigns`` as it happens (so one made before a later call fails is still told).
    Raises ``PlatformError``."""
    target = _hooks_target(platform)
    if not platform.webhook_secret_setting():
        # Saved before subscribing, so the first event already verifies.
        PlatformHookSecret.objects.update_or_create(
            platform=platform.name,
            defaults={"value": connector.hooks_secret(), "saved_at": timezone.now()},
        )
    for event_type in platform.webhook_events:
        done = connector.hooks_subscribe(event_type=event_type, target_url=target)
        if done == HOOK_REENABLED:
            CampaignEvent.objects.bulk_create(
                CampaignEvent(
                    campaign=campaign,
                    message=f"{platform.label} had disabled sending its {event_type} events "
                    f"to {target}: they are enabled again.",
                )
                for campaign in campaigns
            )


def platform_webhook_secret(platform: str) -> str:
    """The secret ``platform`` signs its webhook requests with: the operator's setting, else
    the one publishing saved (empty: none, and nothing verifies)."""
    configured = platforms.get(platform).webhook_secret_setting()
    if configured:
        return configured
    saved = PlatformHookSecret.objects.filter(platform=platform).values_list("value", flat=True)
    return saved.first() or ""


def platform_event_receive(*, platform: str, headers, body: bytes) -> bool:
    """Store the event of a request to ``platform``'s webhook and queue its processing once
    this commits. Refused (``WebhookRefused``, nothing stored) unless the platform signed it
    within the last minutes. An event already stored (a redelivery, a replay) changes nothing.
    Returns whether the event is new."""
    event = platforms.get(platform).webhook_read(
        headers=headers, body=body, secret=platform_webhook_secret(platform), now=time.time()
    )
    with transaction.atomic():
        pk = _event_insert(platform, event)
        if pk is not None:
            enqueue(PROCESS_TASK, pk)
    return pk is not None


def _event_insert(platform: str, event: WebhookEvent) -> int | None:
    # ON CONFLICT DO NOTHING: two deliveries of one event racing each other both end well,
    # one row stored and the other told so, with no error to roll back.
    with connection.cursor() as cursor:
        cursor.execute(
            f"INSERT INTO {PlatformEvent._meta.db_table} "  # noqa: S608 (our own table name)
            "(platform, event_id, event_type, resource_id, status, received_at, body) "
            "VALUES (%s, %s, %s, %s, %s, %s, %s::jsonb) "
            "ON CONFLICT (platform, event_id) DO NOTHING RETURNING id",
            [
                platform,
                event.event_id,
                event.event_type,
                event.resource_id,
                event.status,
                timezone.now(),
                json.dumps(event.body),
            ],
        )
        row = cursor.fetchone()
    return row[0] if row else None


def platform_event_process(*, event_id: int) -> bool:
    """Apply a stored event: a submission returned or timed out gives its session's task back
    at once; one submitted or decided confirms the session's work (as reading the campaign
    back would); a study's new state is written to its campaign's history. The event is
    claimed and applied in one transaction, so it is applied once however often this runs,
    and an error leaves it to a retry. Returns whether it was applied now."""
    with transaction.atomic():
        now = timezone.now()
        claimed = PlatformEvent.objects.filter(pk=event_id, processed_at=None).update(
            processed_at=now
        )
        if claimed != 1:
            return False  # applied already, by this task's earlier run or another worker
        event = PlatformEvent.objects.get(pk=event_id)
        platform = platforms.get(event.platform)
        about = platform.webhook_events.get(event.event_type)
        if about == WebhookEvent.SUBMISSION:
            _submission_event(platform, event, now)
        elif about == WebhookEvent.LISTING:
            _listing_event(platform, event)
    return True


def _submission_event(platform, event: PlatformEvent, now) -> None:
    session = (
        WorkSession.objects.select_related("worker", "campaign")
        .filter(platform=event.platform, external_id=event.resource_id)
        .exclude(state=WorkSession.State.ABANDONED, platform_status__gt="")
        .first()
    )
    if session is None:
        return  # not a visit of ours yet (the read-back will tell), or settled already
    submission = Submission(
        assignment_id=event.resource_id,
        worker_id=str(event.body.get("participant_id") or ""),
        # The event names no study: the session was found by the submission's own id.
        listing_id=session.listing_id,
        status=platform.submission_status(event.status),
    )
    session_reported(
        session=session,
        submission=submission,
        listing_id=session.listing_id,
        changed={"verified": 0, "abandoned": 0},
        now=now,
    )


def _listing_event(platform, event: PlatformEvent) -> None:
    campaign = Campaign.objects.filter(
        platform=event.platform, external_id=event.resource_id
    ).first()
    if campaign is not None:
        CampaignEvent.objects.create(
            campaign=campaign,
            message=f"{platform.label} reports the {platform.unit} is now "
            f"{event.status.lower() or 'changed'}.",
        )


def session_reported(
    *, session: WorkSession, submission: Submission, listing_id: str, changed: dict, now
) -> None:
    """What the platform reports of one session, by the read-back or by a webhook, counted in
    ``changed``: submitted (or decided) confirms its work; returned or timed out gives back
    its task in hand and leaves its work unconfirmed; listed for someone else (another
    participant, or another study than ``listing_id``) is treated as left."""
    theirs = submission.worker_id == session.worker.external_id and (
        submission.listing_id == listing_id
    )
    if not theirs or submission.status == Submission.GONE:
        status = RETURNED
        if not theirs:
            status = SOMEONE_ELSES
        elif submission.timed_out:
            status = TIMED_OUT
        changed["abandoned"] += session_abandon(session=session, platform_status=status)
    elif submission.is_submitted:
        changed["verified"] += session_confirm(
            session=session, platform_status=submission.status, now=now
        )
