"""Prolific's webhooks against the stand-in and the live server: publishing subscribes once,
the webhook takes only Prolific's signed events, each once, and a returned submission gives
its task back at once (a real Celery worker applies it)."""

import time
from datetime import timedelta

import pytest
import requests
from django.core.cache import cache
from django.db import connections
from django.urls import reverse

from crowd import platforms
from crowd import services as crowd
from crowd.models import (
    Assignment,
    Campaign,
    CampaignEvent,
    HitType,
    PlatformEvent,
    PlatformHookSecret,
    Tier,
    WorkSession,
)
from crowd.services.platform_events import HOOKS_CHECK_KEY
from crowd.tasks import sync_campaigns
from tests.conftest import UNREACHABLE_CACHE, wait_for
from tests.crowd.prolific_standin import WORKSPACE
from tests.factories import make_segment

pytestmark = pytest.mark.django_db(transaction=True)

TARGET = "https://paracrowd.example.org/platforms/prolific/hooks/"


@pytest.fixture
def prolific(prolific_api, settings, live_server, monkeypatch):
    # The live server's request threads would keep their connections (CONN_MAX_AGE) past the
    # run, and the test database could not be dropped.
    monkeypatch.setitem(connections.settings["default"], "CONN_MAX_AGE", 0)
    settings.PLATFORM_PUBLIC_URL = "https://paracrowd.example.org"
    prolific_api.target_proxy = live_server.url  # the TLS proxy in front of the site
    platforms.install("prolific", prolific_api.connector())
    # The periodic check's hourly mark lives in the run's cache, across tests: each starts
    # with none.
    cache.delete(HOOKS_CHECK_KEY.format(platform="prolific"))
    yield prolific_api
    platforms.install("prolific", None)


def published(size=1):
    for _ in range(size):
        make_segment(targets=(3, 3))
    campaign = crowd.campaign_create(
        name="Descriptions",
        platform="prolific",
        kind=HitType.Kind.DESCRIPTION,
        tier=Tier.ONE,
        size=size,
        lifetime=timedelta(days=7),
        tasks_per_session=2,
    )
    return crowd.campaign_publish(campaign=campaign)


def working(prolific, campaign):
    """A participant in the study, at work on a task of their session."""
    participant, submission_id = prolific.participant_joins(campaign.external_id)
    session = crowd.session_enter(
        platform="prolific",
        worker_id=participant,
        session_id=submission_id,
        listing_id=campaign.external_id,
        kind=HitType.Kind.DESCRIPTION,
        tier=Tier.ONE,
        campaign=campaign,
        address=None,
    )
    return submission_id, session, crowd.session_task(session=session)


def test_publishing_subscribes_to_both_events_once_however_often_campaigns_are_published(
    prolific,
):
    published()
    published()
    assert list(prolific.hook_secrets) == [WORKSPACE]
    saved = PlatformHookSecret.objects.get(platform="prolific")
    assert saved.value == prolific.hook_secrets[WORKSPACE]["value"]
    subscriptions = sorted(
        (s["event_type"], s["target_url"], s["is_enabled"]) for s in prolific.subscriptions.values()
    )
    assert subscriptions == [
        ("study.status.change", TARGET, True),
        ("submission.status.change", TARGET, True),
    ]
    assert len(prolific.sent("POST", "/api/v1/hooks/secrets/")) == 1
    # Each subscription confirmed with the X-Hook-Secret its creation answered with, and the
    # site echoes a handshake to its address.
    assert not prolific.unconfirmed
    assert [echoed for _, echoed in prolific.handshakes] == [
        prolific.sent("POST", f"/api/v1/hooks/subscriptions/{s}/")[0].json["secret"]
        for s in prolific.subscriptions
    ]


def test_publishing_enables_again_a_subscription_prolific_disabled_and_says_so(prolific):
    first = published()
    prolific.hook_disable("submission.status.change")
    campaign = published()
    # The same subscription, enabled again through Prolific's update call: none added.
    assert len(prolific.subscriptions) == 2
    assert all(s["is_enabled"] for s in prolific.subscriptions.values())
    (disabled,) = [
        s for s in prolific.subscriptions.values() if s["event_type"] == "submission.status.change"
    ]
    (update,) = prolific.sent("PATCH", f"/api/v1/hooks/subscriptions/{disabled['id']}/")
    assert update.json == {
        "event_type": "submission.status.change",
        "target_url": TARGET,
        "is_enabled": True,
    }
    (event,) = CampaignEvent.objects.filter(campaign=campaign, message__contains="enabled again")
    assert "submission.status.change" in event.message and not event.is_error
    assert not CampaignEvent.objects.filter(campaign=first, message__contains="enabled again")
    # Publishing once more finds it enabled and changes nothing.
    published()
    assert len(prolific.sent("PATCH", f"/api/v1/hooks/subscriptions/{disabled['id']}/")) == 1


def test_a_failed_subscription_is_recorded_and_does_not_stop_publishing(prolific):
    prolific.fail_next("POST", "/api/v1/hooks/subscriptions/", status=400)
    campaign = published()
    assert campaign.state == Campaign.State.PUBLISHED
    event = CampaignEvent.objects.get(campaign=campaign, is_error=True)
    assert "read back by polling" in event.message


def test_a_returned_submission_gives_its_task_back_within_seconds(prolific, live_worker):
    campaign = published()
    submission_id, session, task = working(prolific, campaign)
    prolific.submission_status(submission_id, "RETURNED")

    delivery = prolific.submission_notify(submission_id)

    assert delivery.response.status_code == 200
    event = PlatformEvent.objects.get()
    assert (event.event_type, event.resource_id, event.status) == (
        "submission.status.change",
        submission_id,
        "RETURNED",
    )
    wait_for(
        lambda: Assignment.objects.get(pk=task.pk).status == Assignment.Status.RETURNED,
        seconds=5,
    )
    session.refresh_from_db()
    assert session.state == WorkSession.State.ABANDONED
    event.refresh_from_db()
    assert event.processed_at is not None


def test_a_timed_out_submission_gives_its_task_back(prolific):
    campaign = published()
    submission_id, session, task = working(prolific, campaign)
    prolific.submission_status(submission_id, "TIMED-OUT")
    assert prolific.submission_notify(submission_id).response.status_code == 200

    assert crowd.platform_event_process(event_id=PlatformEvent.objects.get().pk)

    assert Assignment.objects.get(pk=task.pk).status == Assignment.Status.RETURNED
    assert not crowd.platform_event_process(event_id=PlatformEvent.objects.get().pk)


def test_a_replayed_event_answers_200_and_changes_nothing(prolific):
    campaign = published()
    submission_id, session, task = working(prolific, campaign)
    delivery = prolific.submission_notify(submission_id)
    crowd.platform_event_process(event_id=PlatformEvent.objects.get().pk)
    before = PlatformEvent.objects.values().get()

    replay = prolific.resend(delivery)

    assert replay.response.status_code == 200
    assert replay.response.json() == {"stored": False}
    assert list(PlatformEvent.objects.values()) == [before]
    assert Assignment.objects.get(pk=task.pk).status == Assignment.Status.ASSIGNED


def test_a_bad_signature_answers_403_and_changes_nothing(prolific):
    campaign = published()
    submission_id, session, task = working(prolific, campaign)
    prolific.submission_status(submission_id, "RETURNED")

    forged = prolific.submission_notify(submission_id, secret="not-the-workspace-secret")
    genuine = prolific.submission_notify(submission_id)
    tampered = prolific.resend(
        genuine, genuine.body.replace(b"RETURNED", b"APPROVED"), **{"X-Event-ID": "another"}
    )
    unsigned = prolific.resend(genuine, **{"X-Prolific-Request-Signature": ""})

    assert [d.response.status_code for d in (forged, tampered, unsigned)] == [403, 403, 403]
    assert PlatformEvent.objects.count() == 1  # the genuine one alone


def test_a_stale_timestamp_is_refused(prolific):
    campaign = published()
    submission_id, _, _ = working(prolific, campaign)
    for off_by in (-301, 301):
        delivery = prolific.submission_notify(submission_id, timestamp=time.time() + off_by)
        assert delivery.response.status_code == 403
        assert "five minutes" in delivery.response.json()["detail"]
    assert not PlatformEvent.objects.exists()


def test_a_submitted_session_is_confirmed_as_the_read_back_would(prolific):
    campaign = published()
    submission_id, session, task = working(prolific, campaign)
    crowd.session_finish(session=session)
    prolific.submission_status(submission_id, "AWAITING REVIEW")
    prolific.submission_notify(submission_id)

    crowd.platform_event_process(event_id=PlatformEvent.objects.get().pk)

    session.refresh_from_db()
    assert session.state == WorkSession.State.FINISHED
    assert session.platform_status == "submitted"


def test_a_study_status_change_is_written_to_the_campaign_history(prolific):
    campaign = published()
    body = {
        "resource_id": campaign.external_id,
        "event_type": "study.status.change",
        "metadata": {},
        "status": "AWAITING REVIEW",
    }
    assert prolific.deliver("study.status.change", body).response.status_code == 200

    crowd.platform_event_process(event_id=PlatformEvent.objects.get().pk)

    assert CampaignEvent.objects.filter(
        campaign=campaign, message="Prolific reports the study is now awaiting review."
    ).exists()


def test_the_webhook_takes_post_only_and_bounds_the_body(prolific, live_server):
    url = live_server.url + reverse("crowd:platform_hooks", args=["prolific"])
    assert requests.get(url, timeout=5).status_code == 405
    assert requests.post(url, data=b"x" * 70_000, timeout=5).status_code == 413
    other = live_server.url + reverse("crowd:platform_hooks", args=["studylink"])
    assert requests.post(other, data=b"{}", timeout=5).status_code == 404
    assert not PlatformEvent.objects.exists()


def test_the_operators_secret_takes_precedence_over_the_saved_one(prolific, settings):
    campaign = published()
    submission_id, _, _ = working(prolific, campaign)
    settings.PROLIFIC_HOOKS_SECRET = "the-operators-own-secret-of-some-length"

    saved = prolific.submission_notify(submission_id)
    operators = prolific.submission_notify(submission_id, secret=settings.PROLIFIC_HOOKS_SECRET)

    assert (saved.response.status_code, operators.response.status_code) == (403, 200)


def hooks_calls(prolific, since=0):
    return [r for r in prolific.requests[since:] if r.path.startswith("/api/v1/hooks/")]


def test_the_periodic_sync_enables_again_a_subscription_disabled_while_campaigns_run(prolific):
    first, second = published(), published()
    prolific.hook_disable("submission.status.change")

    assert sync_campaigns() == 2

    assert len(prolific.subscriptions) == 2
    assert all(s["is_enabled"] for s in prolific.subscriptions.values())
    # Said in the history of each live campaign: the events of each arrived late.
    for campaign in (first, second):
        (event,) = CampaignEvent.objects.filter(
            campaign=campaign, message__contains="enabled again"
        )
        assert "submission.status.change" in event.message and not event.is_error
    # Within the hour the subscriptions are not looked at again, even disabled again.
    prolific.hook_disable("submission.status.change")
    seen = len(prolific.requests)
    assert sync_campaigns() == 2
    assert prolific.sent("GET", "/api/v1/submissions/")  # the campaigns were read back
    assert not hooks_calls(prolific, seen)
    assert CampaignEvent.objects.filter(message__contains="enabled again").count() == 2


def test_the_periodic_check_leaves_alone_platforms_with_no_live_campaign(prolific):
    campaign = published()
    # Expired long ago: the read-back no longer reads it.
    Campaign.objects.filter(pk=campaign.pk).update(
        state=Campaign.State.EXPIRED, expires_at=campaign.published_at - timedelta(days=365)
    )
    prolific.hook_disable("submission.status.change")
    seen = len(prolific.requests)

    assert sync_campaigns() == 0

    assert not hooks_calls(prolific, seen)


def test_a_failed_check_does_not_stop_the_sync_and_is_not_written_to_the_history(prolific):
    campaign = published()
    prolific.hook_disable("submission.status.change")
    prolific.fail_next("GET", "/api/v1/hooks/subscriptions/", status=400)

    assert sync_campaigns() == 1

    campaign.refresh_from_db()
    assert campaign.synced_at is not None
    assert not CampaignEvent.objects.filter(campaign=campaign, is_error=True)
    # The check itself raises nothing either; the hour starts again after a failure, so a
    # failing Prolific is asked once an hour.
    cache.delete(HOOKS_CHECK_KEY.format(platform="prolific"))
    prolific.fail_next("GET", "/api/v1/hooks/subscriptions/", status=400)
    assert crowd.platform_hooks_check(campaigns=[campaign]) == ["prolific"]
    assert crowd.platform_hooks_check(campaigns=[campaign]) == []


def test_with_the_cache_unreachable_the_sync_goes_on_without_checking(prolific, settings):
    campaign = published()
    prolific.hook_disable("submission.status.change")
    seen = len(prolific.requests)
    settings.CACHES = UNREACHABLE_CACHE

    assert sync_campaigns() == 1

    assert not hooks_calls(prolific, seen)
    campaign.refresh_from_db()
    assert campaign.synced_at is not None
    assert crowd.platform_hooks_check(campaigns=[campaign]) == []  # skipped, nothing raised
