"""A platform that takes no payments any more (Mechanical Turk after 30 October 2026): the
outbox queues nothing for it and says so, and what was queued before is given up unsent."""

from datetime import date, timedelta

import pytest
from django.utils import timezone

from crowd import services as crowd
from crowd.models import (
    Assignment,
    AuditEntry,
    Campaign,
    CampaignEvent,
    CampaignHit,
    HitType,
    PlatformAction,
    Tier,
)
from crowd.platforms.mturk.client import CLOSURE_MESSAGE
from tests.factories import make_segment

pytestmark = pytest.mark.django_db


@pytest.fixture
def campaign():
    return Campaign.objects.create(
        name="Describe, tier 1",
        platform=Campaign.Platform.MTURK,
        sandbox=True,
        hit_type=HitType.objects.for_kind(HitType.Kind.DESCRIPTION),
        tier=Tier.ONE,
        reward_cents=1,
        fee_cents=1,
        lifetime=timedelta(days=7),
        external_id="HT1",
    )


def submitted(campaign) -> Assignment:
    worker = crowd.worker_from_platform(platform="mturk", external_id="W1")
    hit = make_segment().hits.get(tier=Tier.ONE)
    CampaignHit.objects.create(campaign=campaign, hit=hit, max_assignments=1, external_hit_id="H1")
    hit.submitted_count = 1
    hit.save(update_fields=["submitted_count"])
    now = timezone.now()
    return Assignment.objects.create(
        hit=hit,
        worker=worker,
        status=Assignment.Status.SUBMITTED,
        expires_at=now + timedelta(minutes=15),
        submitted_at=now,
        external_assignment_id="A1",
        external_hit_id="H1",
        campaign=campaign,
        verified_at=now,
    )


def test_approving_mechanical_turk_work_today_queues_no_payment_and_says_why(mturk, campaign):
    assignment = submitted(campaign)
    assert crowd.ledger_pay_assignments(assignments=[assignment], reason="Good.") == 1
    assert not PlatformAction.objects.exists()
    refusal = AuditEntry.objects.get(action=AuditEntry.Action.PLATFORM)
    assert refusal.worker == assignment.worker
    assert f"approve:assignment:{assignment.pk}" in refusal.reason
    assert CLOSURE_MESSAGE in refusal.reason
    event = CampaignEvent.objects.get(campaign=campaign)
    assert event.is_error and CLOSURE_MESSAGE in event.message


def test_asking_again_records_the_refusal_once(mturk, campaign):
    assignment = submitted(campaign)
    for _ in range(2):
        crowd.platform_action_queue(
            kind=PlatformAction.Kind.APPROVE,
            worker=assignment.worker,
            token=f"approve:assignment:{assignment.pk}",
            assignment=assignment,
        )
    assert not PlatformAction.objects.exists()
    assert AuditEntry.objects.filter(action=AuditEntry.Action.PLATFORM).count() == 1


def test_a_payment_queued_before_the_last_day_is_given_up_unsent(mturk, campaign, monkeypatch):
    assignment = submitted(campaign)
    with monkeypatch.context() as last_day:
        last_day.setattr("crowd.platforms.mturk.client._today", lambda: date(2026, 10, 30))
        crowd.ledger_pay_assignments(assignments=[assignment], reason="Good.")
    # The Stubber fails the test on any call to Mechanical Turk.
    assert crowd.platform_actions_send() == 0
    action = PlatformAction.objects.get()
    assert action.state == PlatformAction.State.FAILED and action.last_error == CLOSURE_MESSAGE
