"""Campaigns: what a draft takes, Mechanical Turk's closure (nothing new is created,
published or extended there), and the campaigns it ran before, through botocore's Stubber:
expiring them and reading their work back to verify it. Every request's parameters are the
ones the API receives."""

from datetime import UTC, datetime, timedelta

import pytest
from django.utils import timezone

from collector import services as collector
from crowd import services as crowd
from crowd.models import (
    Assignment,
    AuditEntry,
    Campaign,
    CampaignEvent,
    CampaignHit,
    HitType,
    LedgerEntry,
    Tier,
)
from crowd.platforms.mturk.client import CLOSURE_MESSAGE
from tests.factories import make_mturk_campaign, make_segment, make_staff

pytestmark = pytest.mark.django_db


def campaign_of(size=2, *, platform="prolific", tier=Tier.ONE, targets=(3, 3), **options):
    for _ in range(size):
        make_segment(targets=targets)
    return crowd.campaign_create(
        name="Spring batch",
        platform=platform,
        kind=HitType.Kind.DESCRIPTION,
        tier=tier,
        size=size,
        lifetime=timedelta(days=7),
        created_by=make_staff(),
        **options,
    )


def test_a_campaign_takes_hits_that_want_work_and_no_other_campaign_offers():
    first = campaign_of(2, tasks_per_session=4, tasks_minimum=2, task_cents=10)
    second = campaign_of(1)
    assert not set(first.postings.values_list("hit", flat=True)) & set(
        second.postings.values_list("hit", flat=True)
    )
    # Six descriptions wanted in sessions of up to four: two places. The reward pays the
    # minimum of two tasks (20¢, Prolific's 34% fee 7¢); the other two are bonuses, a line of
    # 10¢ each whose fee is rounded up on its own (20¢, 2 × 4¢).
    assert first.tasks_wanted == 6 and first.places == 2
    assert (first.reward_cents, first.fee_cents) == (20, 7)
    assert (first.bonus_cents_per_place, first.bonus_fee_cents) == (20, 8)
    assert first.cost_cents == 2 * (20 + 7 + 20 + 8)


def test_a_campaign_with_nothing_to_offer_is_refused():
    with pytest.raises(crowd.WorkRefused, match="No video description HITs"):
        crowd.campaign_create(
            name="",
            platform="prolific",
            kind=HitType.Kind.DESCRIPTION,
            tier=Tier.ONE,
            size=3,
            lifetime=timedelta(days=1),
        )
    assert not Campaign.objects.exists()


def test_a_video_collection_campaign_is_one_posting_with_a_place_per_video():
    campaign = crowd.campaign_create(
        name="Videos",
        platform="prolific",
        kind=HitType.Kind.VIDEO_COLLECTION,
        tier=Tier.ONE,
        size=12,
        lifetime=timedelta(days=2),
        tasks_per_session=3,
        task_cents=60,
    )
    posting = campaign.postings.get()
    assert posting.hit is None and posting.max_assignments == 12
    # Twelve videos in sessions of three; Prolific's fee: 34% of 180¢, rounded up.
    assert campaign.places == 4 and campaign.fee_cents == 62


def test_a_mechanical_turk_campaign_is_refused_with_the_closure_and_nothing_is_stored():
    make_segment(targets=(3, 3))
    with pytest.raises(crowd.WorkRefused) as refusal:
        campaign_of(1, platform="mturk")
    assert str(refusal.value) == CLOSURE_MESSAGE
    assert not Campaign.objects.exists() and not CampaignHit.objects.exists()
    assert not CampaignEvent.objects.exists()
    assert not AuditEntry.objects.filter(action=AuditEntry.Action.CAMPAIGN).exists()


def mturk_draft():
    """A Mechanical Turk campaign created before the closure and never published."""
    campaign = make_mturk_campaign()
    Campaign.objects.filter(pk=campaign.pk).update(
        state=Campaign.State.DRAFT, published_at=None, expires_at=None, external_id=""
    )
    CampaignHit.objects.filter(campaign=campaign).update(external_hit_id="", created_at=None)
    campaign.refresh_from_db()
    return campaign


def test_publishing_a_mechanical_turk_draft_is_refused_with_nothing_sent(mturk):
    """The Stubber expects no call: one would fail the test."""
    campaign = mturk_draft()
    for publish in (crowd.campaign_publish_check, crowd.campaign_publish):
        with pytest.raises(crowd.WorkRefused) as refusal:
            publish(campaign=campaign)
        assert str(refusal.value) == CLOSURE_MESSAGE
    campaign.refresh_from_db()
    assert campaign.state == Campaign.State.DRAFT and campaign.external_id == ""
    assert not CampaignEvent.objects.filter(campaign=campaign).exists()


def test_publishing_is_refused_with_the_closure_even_without_a_connector():
    with pytest.raises(crowd.WorkRefused) as refusal:
        crowd.campaign_publish(campaign=mturk_draft())
    assert str(refusal.value) == CLOSURE_MESSAGE


def test_extending_a_mechanical_turk_campaign_is_refused_with_nothing_sent(mturk):
    campaign = make_mturk_campaign()
    expires_at = campaign.expires_at
    with pytest.raises(crowd.WorkRefused) as refusal:
        crowd.campaign_extend(
            campaign=campaign, extended_by=make_staff(), by=timedelta(days=2), reason="Slow week"
        )
    assert str(refusal.value) == CLOSURE_MESSAGE
    campaign.refresh_from_db()
    assert campaign.expires_at == expires_at
    assert not CampaignEvent.objects.filter(campaign=campaign).exists()
    assert not AuditEntry.objects.filter(action=AuditEntry.Action.CAMPAIGN).exists()


def test_expiring_a_mechanical_turk_campaign_calls_nothing_and_is_audited(mturk):
    """Its HITs closed with the platform: the archive only records that it stopped here (the
    Stubber fails the test on any call)."""
    campaign = make_mturk_campaign()
    staff = make_staff()
    crowd.campaign_expire(campaign=campaign, expired_by=staff, reason="Enough descriptions")
    assert campaign.state == Campaign.State.EXPIRED
    assert AuditEntry.objects.filter(actor=staff, action=AuditEntry.Action.CAMPAIGN).exists()


def arrive_and_describe(campaign, *, worker_id="W1", assignment_id="A1", hit_id="HIT0"):
    assignment = crowd.platform_arrival(
        platform="mturk",
        external_worker_id=worker_id,
        address=None,
        tier=campaign.tier,
        external_assignment_id=assignment_id,
        external_hit_id=hit_id,
        campaign=campaign,
    )
    collector.description_submit(
        assignment_id=assignment.pk,
        worker=assignment.worker,
        text="A man slices an onion.",
        language="en",
    )
    assignment.refresh_from_db()
    return assignment


def expect_read_back(stubber, listed, *, approved_at=None):
    """The platform lists ``listed`` (assignment, worker, HIT, status) for HIT0 and nothing for
    HIT1."""
    for hit_id in ("HIT0", "HIT1"):
        stubber.add_response(
            "list_assignments_for_hit",
            {
                "Assignments": [
                    {
                        "AssignmentId": a,
                        "WorkerId": w,
                        "HITId": h,
                        "AssignmentStatus": status,
                        **({"ApprovalTime": approved_at} if status == "Approved" else {}),
                    }
                    for a, w, h, status in listed
                    if h == hit_id
                ]
            },
            {"HITId": hit_id, "MaxResults": 100},
        )
    for hit_id in ("HIT0", "HIT1"):
        stubber.add_response(
            "get_hit",
            {
                "HIT": {
                    "HITId": hit_id,
                    "NumberOfAssignmentsAvailable": 2,
                    "NumberOfAssignmentsPending": 0,
                    "NumberOfAssignmentsCompleted": 1,
                    "HITStatus": "Assignable",
                }
            },
            {"HITId": hit_id},
        )


def test_arrivals_take_the_local_hit_behind_the_platform_hit(mturk):
    campaign = make_mturk_campaign()
    assignment = arrive_and_describe(campaign, hit_id="HIT1")
    assert assignment.hit == campaign.postings.get(external_hit_id="HIT1").hit
    assert assignment.campaign == campaign and assignment.verified_at is None


def test_work_the_platform_shows_submitted_by_that_worker_is_verified_once(mturk):
    campaign = make_mturk_campaign()
    assignment = arrive_and_describe(campaign)
    for _ in range(2):
        expect_read_back(mturk, [("A1", "W1", "HIT0", "Submitted")])
        changed = crowd.campaign_sync(campaign=campaign)
    assert changed == {"verified": 0, "unverified": 0, "approved_by_platform": 0, "abandoned": 0}
    assignment.refresh_from_db()
    assert assignment.status == Assignment.Status.SUBMITTED and assignment.verified_at
    campaign.refresh_from_db()
    assert campaign.platform_counts == {"available": 4, "in_progress": 0, "submitted": 2}


def test_work_submitted_under_someone_elses_platform_id_is_never_verified(mturk):
    """The impersonation: the address named W1, but the platform's assignment is W2's."""
    campaign = make_mturk_campaign()
    assignment = arrive_and_describe(campaign)
    hit = assignment.hit
    expect_read_back(mturk, [("A1", "W2", "HIT0", "Submitted")])
    assert crowd.campaign_sync(campaign=campaign)["unverified"] == 1
    assignment.refresh_from_db()
    hit.refresh_from_db()
    assert assignment.status == Assignment.Status.UNVERIFIED and assignment.verified_at is None
    assert hit.submitted_count == 0  # the slot is offered again
    assert AuditEntry.objects.filter(action=AuditEntry.Action.PLATFORM).count() == 1
    assert CampaignEvent.objects.filter(campaign=campaign, is_error=True).exists()


def test_work_the_platform_never_shows_is_unverified_after_the_assignment_time(mturk):
    campaign = make_mturk_campaign()
    assignment = arrive_and_describe(campaign)
    expect_read_back(mturk, [])
    assert crowd.campaign_sync(campaign=campaign)["unverified"] == 0  # still in time
    expect_read_back(mturk, [])
    later = timezone.now() + timedelta(minutes=16)
    assert crowd.campaign_sync(campaign=campaign, now=later)["unverified"] == 1
    # The platform shows it after all: verified, and it counts again.
    expect_read_back(mturk, [("A1", "W1", "HIT0", "Submitted")])
    assert crowd.campaign_sync(campaign=campaign, now=later)["verified"] == 1
    assignment.refresh_from_db()
    assert assignment.status == Assignment.Status.SUBMITTED and assignment.verified_at
    assert assignment.hit.submitted_count == 1


def test_a_campaign_past_its_lifetime_expires_at_the_next_read_back(mturk):
    campaign = make_mturk_campaign()
    expect_read_back(mturk, [])
    crowd.campaign_sync(campaign=campaign, now=datetime.now(UTC) + timedelta(days=8))
    campaign.refresh_from_db()
    assert campaign.state == Campaign.State.EXPIRED


def test_unverified_work_is_neither_accepted_nor_paid(mturk):
    campaign = make_mturk_campaign()
    assignment = arrive_and_describe(campaign)
    staff = make_staff()
    outcome = collector.descriptions_review(
        description_ids=[assignment.description.pk],
        status="accepted",
        reviewed_by=staff,
        reason="Good",
    )
    assert outcome.unverified == [assignment.description.pk] and not outcome.changed
    later = timezone.now() + timedelta(days=4)
    assert collector.descriptions_auto_accept(now=later) == 0
    assignment.description.refresh_from_db()
    assert assignment.description.status == "pending"
    assert not LedgerEntry.objects.earnings().exists()


def test_the_platforms_own_approval_is_read_back_into_the_ledger_once(mturk):
    """Nobody reviewed the work before Mechanical Turk's auto-approval delay: it paid the
    worker itself, and the ledger says so."""
    campaign = make_mturk_campaign()
    assignment = arrive_and_describe(campaign)
    approved_at = datetime(2026, 11, 26, 12, 0, tzinfo=UTC)
    for _ in range(2):
        expect_read_back(mturk, [("A1", "W1", "HIT0", "Approved")], approved_at=approved_at)
        crowd.campaign_sync(campaign=campaign)
    entry = LedgerEntry.objects.earnings().get()
    assert entry.assignment == assignment and entry.amount_cents == 1
    assert entry.platform_payment.done_at == approved_at
    assert entry.platform_payment.details == {"by": "platform"}


def test_a_video_collection_arrival_opens_a_hit_of_its_own(mturk):
    campaign = make_mturk_campaign(kind=HitType.Kind.VIDEO_COLLECTION, size=12)
    assignment = crowd.platform_arrival(
        platform="mturk",
        external_worker_id="W9",
        address=None,
        tier=Tier.ONE,
        kind=HitType.Kind.VIDEO_COLLECTION,
        external_assignment_id="AV1",
        external_hit_id="HITV",
        campaign=campaign,
    )
    assert assignment.hit.opened_for == assignment.worker and assignment.campaign == campaign


def test_a_campaign_published_before_the_closure_is_still_read_back(mturk):
    """Published on 20 September 2026 and long expired: its work still verifies."""
    campaign = make_mturk_campaign(published_at=datetime(2026, 9, 20, 9, 0, tzinfo=UTC))
    Campaign.objects.filter(pk=campaign.pk).update(state=Campaign.State.EXPIRED)
    campaign.refresh_from_db()
    assignment = arrive_and_describe(campaign)
    expect_read_back(mturk, [("A1", "W1", "HIT0", "Submitted")])
    assert crowd.campaign_sync(campaign=campaign)["verified"] == 1
    assignment.refresh_from_db()
    assert assignment.verified_at and assignment.status == Assignment.Status.SUBMITTED
    campaign.refresh_from_db()
    assert campaign.synced_at and campaign.state == Campaign.State.EXPIRED
