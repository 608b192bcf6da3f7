"""Campaigns on Mechanical Turk through botocore's Stubber: publishing (with its cost check,
the Tier-2 qualification and resuming after a failure), expiring, extending, and reading work
back to verify it. Every request's parameters are the ones the API receives."""

from datetime import UTC, datetime, timedelta

import pytest
from botocore.stub import ANY
from django.utils import timezone

from collector import services as collector
from crowd import services as crowd
from crowd.models import (
    Assignment,
    AuditEntry,
    Campaign,
    CampaignEvent,
    HitType,
    LedgerEntry,
    PlatformQualification,
    Tier,
)
from tests.factories import make_segment, make_staff

pytestmark = pytest.mark.django_db


def campaign_of(size=2, *, tier=Tier.ONE, targets=(3, 3)):
    for _ in range(size):
        make_segment(targets=targets)
    return crowd.campaign_create(
        name="Spring batch",
        platform="mturk",
        kind=HitType.Kind.DESCRIPTION,
        tier=tier,
        size=size,
        lifetime=timedelta(days=7),
        created_by=make_staff(),
    )


def expect_balance(stubber, dollars):
    stubber.add_response("get_account_balance", {"AvailableBalance": dollars}, {})


def expect_hit_type(stubber, *, requirements=(), reward="0.01"):
    stubber.add_response(
        "create_hit_type",
        {"HITTypeId": "HT1"},
        {
            "Title": ANY,
            "Description": ANY,
            "Keywords": ANY,
            "Reward": reward,
            "AssignmentDurationInSeconds": 15 * 60,
            "AutoApprovalDelayInSeconds": 3 * 24 * 3600,
            "QualificationRequirements": list(requirements),
        },
    )


def expect_hit(stubber, campaign, posting, hit_id):
    token = f"paracrowd-{campaign.pk}-{posting.pk}"
    stubber.add_response(
        "create_hit_with_hit_type",
        {"HIT": {"HITId": hit_id}},
        {
            "HITTypeId": "HT1",
            "MaxAssignments": posting.max_assignments,
            "LifetimeInSeconds": 7 * 24 * 3600,
            "Question": (
                '<ExternalQuestion xmlns="http://mechanicalturk.amazonaws.com/'
                'AWSMechanicalTurkDataSchemas/2006-07-14/ExternalQuestion.xsd">'
                "<ExternalURL>https://paracrowd.example.org/external/describe/</ExternalURL>"
                "<FrameHeight>0</FrameHeight></ExternalQuestion>"
            ),
            "RequesterAnnotation": token,
            "UniqueRequestToken": token,
        },
    )


def published(stubber, size=2, **kwargs):
    campaign = campaign_of(size, **kwargs)
    expect_balance(stubber, "100.00")
    expect_hit_type(stubber, reward="0.05" if kwargs.get("tier") == Tier.TWO else "0.01")
    for n, posting in enumerate(campaign.postings.order_by("pk")):
        expect_hit(stubber, campaign, posting, f"HIT{n}")
    return crowd.campaign_publish(campaign=campaign)


def test_a_campaign_takes_hits_that_want_work_and_no_other_campaign_offers():
    first = campaign_of(2)
    second = campaign_of(1)
    assert not set(first.postings.values_list("hit", flat=True)) & set(
        second.postings.values_list("hit", flat=True)
    )
    assert first.places == 6 and first.reward_cents == 1
    # Mechanical Turk's fee on 1¢ is its minimum, 1¢: six places cost 12¢.
    assert first.cost_cents == 12


def test_a_campaign_with_nothing_to_offer_is_refused():
    with pytest.raises(crowd.WorkRefused, match="No video description HITs"):
        crowd.campaign_create(
            name="",
            platform="mturk",
            kind=HitType.Kind.DESCRIPTION,
            tier=Tier.ONE,
            size=3,
            lifetime=timedelta(days=1),
        )
    assert not Campaign.objects.exists()


def test_publishing_is_refused_when_the_balance_does_not_cover_it(mturk):
    campaign = campaign_of(2)
    expect_balance(mturk, "0.11")
    with pytest.raises(crowd.WorkRefused, match=r"has \$0.11.*\$0.12"):
        crowd.campaign_publish(campaign=campaign)
    campaign.refresh_from_db()
    assert campaign.state == Campaign.State.DRAFT and campaign.external_id == ""


def test_publishing_creates_one_platform_hit_per_local_hit(mturk):
    campaign = published(mturk)
    assert campaign.state == Campaign.State.PUBLISHED and campaign.external_id == "HT1"
    assert sorted(campaign.postings.values_list("external_hit_id", flat=True)) == ["HIT0", "HIT1"]
    assert campaign.expires_at == campaign.published_at + timedelta(days=7)


def test_a_tier_two_campaign_requires_the_qualification_created_once(mturk):
    requirement = {
        "QualificationTypeId": "QT2",
        "Comparator": "Exists",
        "ActionsGuarded": "DiscoverPreviewAndAccept",
    }
    for _ in range(2):
        campaign = campaign_of(1, tier=Tier.TWO)
        expect_balance(mturk, "100.00")
        if not PlatformQualification.objects.exists():
            mturk.add_response(
                "create_qualification_type",
                {"QualificationType": {"QualificationTypeId": "QT2"}},
                {
                    "Name": "ParaCrowd Tier 2",
                    "Description": ANY,
                    "Keywords": "paracrowd,tier",
                    "QualificationTypeStatus": "Active",
                },
            )
        expect_hit_type(mturk, requirements=[requirement], reward="0.05")
        expect_hit(mturk, campaign, campaign.postings.get(), f"HIT-{campaign.pk}")
        crowd.campaign_publish(campaign=campaign)
    assert PlatformQualification.objects.get().external_id == "QT2"


def test_publishing_again_after_a_failure_finishes_without_posting_twice(mturk):
    campaign = campaign_of(2)
    first, second = campaign.postings.order_by("pk")
    expect_balance(mturk, "100.00")
    expect_hit_type(mturk)
    expect_hit(mturk, campaign, first, "HIT0")
    mturk.add_client_error(
        "create_hit_with_hit_type", service_error_code="ServiceFault", service_message="Try later"
    )
    with pytest.raises(crowd.WorkRefused, match="Try later"):
        crowd.campaign_publish(campaign=campaign)
    campaign.refresh_from_db()
    assert campaign.state == Campaign.State.PUBLISHING
    assert CampaignEvent.objects.filter(campaign=campaign, is_error=True).count() == 1

    expect_hit_type(mturk)
    expect_hit(mturk, campaign, second, "HIT1")
    crowd.campaign_publish(campaign=campaign)
    assert campaign.state == Campaign.State.PUBLISHED
    assert sorted(campaign.postings.values_list("external_hit_id", flat=True)) == ["HIT0", "HIT1"]


def test_expiring_stops_every_platform_hit_and_is_audited(mturk):
    campaign = published(mturk)
    for hit_id in ("HIT0", "HIT1"):
        mturk.add_response(
            "update_expiration_for_hit", {}, {"HITId": hit_id, "ExpireAt": datetime(2015, 1, 1)}
        )
    staff = make_staff()
    crowd.campaign_expire(campaign=campaign, expired_by=staff, reason="Enough descriptions")
    assert campaign.state == Campaign.State.EXPIRED
    assert AuditEntry.objects.filter(actor=staff, action=AuditEntry.Action.CAMPAIGN).exists()


def test_extending_moves_every_hits_expiry(mturk):
    campaign = published(mturk)
    until = campaign.expires_at + timedelta(days=2)
    for hit_id in ("HIT0", "HIT1"):
        mturk.add_response("update_expiration_for_hit", {}, {"HITId": hit_id, "ExpireAt": until})
    crowd.campaign_extend(
        campaign=campaign, extended_by=make_staff(), by=timedelta(days=2), reason="Slow week"
    )
    assert campaign.expires_at == until


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
    campaign = published(mturk)
    assignment = arrive_and_describe(campaign, hit_id="HIT1")
    assert assignment.hit == campaign.postings.get(external_hit_id="HIT1").hit
    assert assignment.campaign == campaign and assignment.verified_at is None


def test_work_the_platform_shows_submitted_by_that_worker_is_verified_once(mturk):
    campaign = published(mturk)
    assignment = arrive_and_describe(campaign)
    for _ in range(2):
        expect_read_back(mturk, [("A1", "W1", "HIT0", "Submitted")])
        changed = crowd.campaign_sync(campaign=campaign)
    assert changed == {"verified": 0, "unverified": 0, "approved_by_platform": 0}
    assignment.refresh_from_db()
    assert assignment.status == Assignment.Status.SUBMITTED and assignment.verified_at
    campaign.refresh_from_db()
    assert campaign.platform_counts == {"available": 4, "in_progress": 0, "submitted": 2}


def test_work_submitted_under_someone_elses_platform_id_is_never_verified(mturk):
    """The impersonation: the address named W1, but the platform's assignment is W2's."""
    campaign = published(mturk)
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
    campaign = published(mturk)
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
    campaign = published(mturk)
    expect_read_back(mturk, [])
    crowd.campaign_sync(campaign=campaign, now=datetime.now(UTC) + timedelta(days=8))
    campaign.refresh_from_db()
    assert campaign.state == Campaign.State.EXPIRED


def test_unverified_work_is_neither_accepted_nor_paid(mturk):
    campaign = published(mturk)
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
    assert not LedgerEntry.objects.exists()


def test_the_platforms_own_approval_is_read_back_into_the_ledger_once(mturk):
    """Nobody reviewed the work before Mechanical Turk's auto-approval delay: it paid the
    worker itself, and the ledger says so."""
    campaign = published(mturk)
    assignment = arrive_and_describe(campaign)
    approved_at = datetime(2026, 11, 26, 12, 0, tzinfo=UTC)
    for _ in range(2):
        expect_read_back(mturk, [("A1", "W1", "HIT0", "Approved")], approved_at=approved_at)
        crowd.campaign_sync(campaign=campaign)
    entry = LedgerEntry.objects.get()
    assert entry.assignment == assignment and entry.amount_cents == 1
    assert entry.platform_payment.done_at == approved_at
    assert entry.platform_payment.details == {"by": "platform"}


def test_a_video_collection_campaign_is_one_platform_hit_with_a_place_per_video(mturk):
    campaign = crowd.campaign_create(
        name="Videos",
        platform="mturk",
        kind=HitType.Kind.VIDEO_COLLECTION,
        tier=Tier.ONE,
        size=12,
        lifetime=timedelta(days=2),
    )
    # Twelve assignments on one HIT: Mechanical Turk's larger fee, 40% of 5¢.
    assert campaign.places == 12 and campaign.fee_cents == 2
    expect_balance(mturk, "100.00")
    mturk.add_response(
        "create_hit_type",
        {"HITTypeId": "HTV"},
        {
            "Title": "Find a short segment showing one clear action",
            "Description": ANY,
            "Keywords": ANY,
            "Reward": "0.05",
            "AssignmentDurationInSeconds": 30 * 60,
            "AutoApprovalDelayInSeconds": 3 * 24 * 3600,
            "QualificationRequirements": [],
        },
    )
    posting = campaign.postings.get()
    mturk.add_response(
        "create_hit_with_hit_type",
        {"HIT": {"HITId": "HITV"}},
        {
            "HITTypeId": "HTV",
            "MaxAssignments": 12,
            "LifetimeInSeconds": 2 * 24 * 3600,
            "Question": ANY,
            "RequesterAnnotation": f"paracrowd-{campaign.pk}-{posting.pk}",
            "UniqueRequestToken": f"paracrowd-{campaign.pk}-{posting.pk}",
        },
    )
    crowd.campaign_publish(campaign=campaign)
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


def test_a_hit_whose_creation_answer_was_lost_is_found_by_its_token(mturk):
    """The first publish created the HIT but its answer never arrived: asked again with the
    same token, Mechanical Turk creates nothing, and the HIT is found by its annotation."""
    campaign = campaign_of(1)
    posting = campaign.postings.get()
    token = f"paracrowd-{campaign.pk}-{posting.pk}"
    expect_balance(mturk, "100.00")
    expect_hit_type(mturk)
    mturk.add_client_error(
        "create_hit_with_hit_type",
        service_error_code="RequestError",
        service_message=f"The value {token} of UniqueRequestToken has already been used.",
    )
    mturk.add_response(
        "list_hits",
        {
            "HITs": [
                {"HITId": "OTHER", "RequesterAnnotation": "paracrowd-0-0"},
                {"HITId": "HIT7", "RequesterAnnotation": token},
            ]
        },
        {"MaxResults": 100},
    )
    crowd.campaign_publish(campaign=campaign)
    assert campaign.postings.get().external_hit_id == "HIT7"
