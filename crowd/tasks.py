"""Periodic upkeep of the crowd's work, and password-reset mail. Every task but the mail is
idempotent (the mail says why it may run twice)."""

import contextlib
import logging

from celery import shared_task
from django.db import InterfaceError, OperationalError

from . import services
from .models import Campaign

logger = logging.getLogger(__name__)


@shared_task
def expire_assignments() -> int:
    """Periodic: mark overdue assignments expired (nothing is deleted)."""
    return services.assignments_expire()


@shared_task
def forget_arrival_counts() -> int:
    """Periodic: delete the per-address counts of new platform workers of past hours."""
    return services.arrival_windows_forget()


@shared_task
def publish_campaign(campaign_id: int) -> None:
    """Publish (or finish publishing) a campaign; what went wrong is on the campaign's page."""
    campaign = Campaign.objects.filter(pk=campaign_id).first()
    if campaign and campaign.state in (Campaign.State.DRAFT, Campaign.State.PUBLISHING):
        # A refusal is recorded as a campaign event; the researcher publishes again.
        with contextlib.suppress(services.WorkRefused):
            services.campaign_publish(campaign=campaign)


@shared_task
def sync_campaigns() -> int:
    """Periodic: read every live campaign's work back from its platform and verify it, give
    back the places of study-link work not confirmed by its campaign's deadline, and, at most
    once an hour per platform, enable again a webhook subscription the platform disabled."""
    services.study_link_sessions_release()
    synced = 0
    # Live: published, or expired lately (their submissions still change, and send events).
    live = list(services.campaigns_to_sync())
    for campaign in live:
        try:
            services.campaign_sync(campaign=campaign)
        except services.WorkRefused:
            continue  # no connector configured for it here
        synced += 1
    # After the campaigns, and whatever it raises: webhooks only make the site learn sooner,
    # the read-back above is what must not be stopped.
    try:
        services.platform_hooks_check(campaigns=live)
    except Exception:
        logger.exception("Checking the platforms' webhook subscriptions failed")
    return synced


@shared_task
def send_platform_actions() -> int:
    """Queued after each decision for a crowd platform, and periodic: send the outbox's
    pending actions. Each action is sent by one worker, once, however many run."""
    return services.platform_actions_send()


@shared_task
def platform_event_process(event_id: int) -> bool:
    """Queued for each event a platform sent to the site's webhook: apply it, once."""
    return services.platform_event_process(event_id=event_id)


# An SMTP server that refuses or cannot be reached (smtplib's errors are OSErrors) is tried
# again, with the task base's backoff. Run twice (a worker died after sending), the person gets
# two links, each of which works: better than none.
@shared_task(autoretry_for=(OperationalError, InterfaceError, OSError), max_retries=5)
def send_password_reset(email: str, domain: str, use_https: bool) -> int:
    """Queued for every password-reset request, whether or not the address has an account:
    mail the reset link to the accounts with that address, or nothing. Takes the address, not
    a user id: the request must not look it up, or it would take longer for a known address
    (crowd.services.password_reset)."""
    return services.password_reset_send(email=email, domain=domain, use_https=use_https)
