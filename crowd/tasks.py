"""Periodic upkeep of the crowd's work. Every task is idempotent."""

import contextlib

from celery import shared_task

from . import services
from .models import Campaign


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
    """Periodic: read every live campaign's work back from its platform and verify it, and
    give back the places of study-link work not confirmed by its campaign's deadline."""
    services.study_link_sessions_release()
    synced = 0
    for campaign in services.campaigns_to_sync():
        try:
            services.campaign_sync(campaign=campaign)
        except services.WorkRefused:
            continue  # no connector configured for it here
        synced += 1
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
