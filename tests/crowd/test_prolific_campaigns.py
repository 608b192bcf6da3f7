"""A campaign on Prolific end to end against the local stand-in of its API: publish a study,
participants arrive with their session ids, their work is verified by reading the study's
submissions back, and nothing doubles when it is read twice."""

from datetime import timedelta

import pytest
from django.urls import reverse

from collector import services as collector
from crowd import platforms
from crowd import services as crowd
from crowd.models import Assignment, Campaign, HitType, LedgerEntry, PlatformAction, Tier
from tests.crowd.prolific_sessions import session_described
from tests.factories import make_segment, make_staff

pytestmark = pytest.mark.django_db


@pytest.fixture
def prolific(prolific_api, settings):
    settings.PLATFORM_PUBLIC_URL = "https://paracrowd.example.org"
    platforms.install("prolific", prolific_api.connector())
    yield prolific_api
    platforms.install("prolific", None)


def prolific_campaign(size=2, **options):
    """A draft of ``size`` segments wanting 3 descriptions each, in sessions of one task
    unless ``options`` say otherwise."""
    for _ in range(size):
        make_segment(targets=(3, 3))
    options.setdefault("tasks_per_session", 1)
    return crowd.campaign_create(
        name="Descriptions",
        platform="prolific",
        kind=HitType.Kind.DESCRIPTION,
        tier=Tier.ONE,
        size=size,
        lifetime=timedelta(days=7),
        **options,
    )


def test_publishing_creates_and_publishes_one_study_for_every_place(prolific):
    campaign = crowd.campaign_publish(campaign=prolific_campaign())
    study = prolific.studies[campaign.external_id]
    assert campaign.state == Campaign.State.PUBLISHED and study["status"] == "ACTIVE"
    assert study["total_available_places"] == 6
    assert study["reward"] == campaign.reward_cents == campaign.task_cents
    assert campaign.hourly_cents >= 800
    assert study["external_study_url"].startswith(
        "https://paracrowd.example.org/external/describe/?PROLIFIC_PID={{%PROLIFIC_PID%}}"
    )
    assert campaign.completion_code in str(study["completion_codes"])


def test_publishing_is_refused_when_the_workspace_cannot_pay(prolific):
    prolific.balance = 5
    campaign = prolific_campaign()
    with pytest.raises(crowd.WorkRefused, match="does not cover"):
        crowd.campaign_publish(campaign=campaign)
    assert not prolific.studies


def test_publishing_is_refused_when_the_workspace_pays_in_another_currency(prolific, settings):
    prolific.currency = "GBP"  # the site states and books USD
    campaign = prolific_campaign()
    with pytest.raises(crowd.WorkRefused, match="pays in GBP, but the site states and books USD"):
        crowd.campaign_publish(campaign=campaign)
    assert not prolific.studies
    assert Campaign.objects.get(pk=campaign.pk).state == Campaign.State.DRAFT


def test_participants_work_is_verified_once_the_study_shows_it_submitted(prolific):
    campaign = crowd.campaign_publish(campaign=prolific_campaign())
    description, session = described(prolific, campaign)
    assert crowd.campaign_sync(campaign=campaign)["verified"] == 0  # still working there
    prolific.submission_status(session, "AWAITING REVIEW")
    assert crowd.campaign_sync(campaign=campaign)["verified"] == 1
    assert crowd.campaign_sync(campaign=campaign)["verified"] == 0
    assignment = Assignment.objects.get(pk=description.assignment_id)
    assert assignment.status == Assignment.Status.SUBMITTED and assignment.verified_at
    campaign.refresh_from_db()
    assert campaign.platform_counts["submitted"] == 1


def described(prolific, campaign, text="A woman rides a horse."):
    """A participant takes a place, arrives with their ids and describes a segment."""
    session_id, _, (description,) = session_described(prolific, campaign, [text])
    return description, session_id


def verified_work(prolific, campaign, text="A woman rides a horse."):
    """Work described here, submitted on Prolific and read back."""
    description, session = described(prolific, campaign, text)
    prolific.submission_status(session, "AWAITING REVIEW")
    crowd.campaign_sync(campaign=campaign)
    return description, session


def test_review_decisions_reach_prolific_once(prolific):
    campaign = crowd.campaign_publish(campaign=prolific_campaign())
    staff = make_staff()
    good, good_session = verified_work(prolific, campaign)
    spam, spam_session = verified_work(prolific, campaign, text="Nice video I like it.")
    collector.descriptions_review(
        description_ids=[good.pk], status="accepted", reviewed_by=staff, reason="Clear."
    )
    collector.descriptions_review(
        description_ids=[spam.pk], status="rejected", reviewed_by=staff, reason="Off topic."
    )
    assert crowd.platform_actions_send() == 2
    assert crowd.platform_actions_send() == 0
    assert prolific.submissions[good_session]["status"] == "APPROVED"
    assert prolific.submissions[spam_session]["status"] == "REJECTED"
    (rejection,) = prolific.sent("POST", f"/api/v1/submissions/{spam_session}/transition/")
    assert rejection.json["message"].startswith("Off topic.")
    # The session's reward is what the approval paid.
    entry = LedgerEntry.objects.get(kind=LedgerEntry.Kind.REWARD, worker=good.worker)
    assert entry.platform_payment.state == PlatformAction.State.DONE


def test_a_bonus_is_paid_on_prolific_exactly_once(prolific):
    campaign = crowd.campaign_publish(campaign=prolific_campaign())
    description, _ = verified_work(prolific, campaign)
    crowd.bonus_pay(
        worker=description.worker,
        amount_cents=25,
        reason="Careful work.",
        paid_by=make_staff(),
        token="t1",
    )
    assert crowd.platform_actions_send() == 1
    assert crowd.platform_actions_send() == 0
    (bonus,) = prolific.bonuses.values()
    assert bonus["csv_bonuses"].strip() == f"{description.worker.external_id},0.25"
    assert len(prolific.payments) == 1


def test_the_campaign_page_gives_prolifics_bulk_sheets_for_what_was_not_sent(prolific, client):
    campaign = crowd.campaign_publish(campaign=prolific_campaign())
    description, _ = verified_work(prolific, campaign)
    staff = make_staff()
    staff.is_superuser = True
    staff.save()
    collector.descriptions_review(
        description_ids=[description.pk], status="accepted", reviewed_by=staff, reason="Clear."
    )
    crowd.bonus_pay(
        worker=description.worker, amount_cents=25, reason="Well done.", paid_by=staff, token="b"
    )
    PlatformAction.objects.filter(kind="bonus").update(state=PlatformAction.State.FAILED)
    # Its payment was never asked for, so it is owed.
    crowd.platform_bonuses_check(campaign=campaign)
    client.force_login(staff)
    participant = description.worker.external_id

    def sheet(name):
        url = reverse("admin:crowd_campaign_sheet", args=[campaign.pk, name])
        return client.get(url).content.decode()

    assert sheet("approvals") == f"{participant}\n"
    assert sheet("bonuses") == f"{participant},0.25\n"
    assert (
        "prolific-approvals.csv"
        in client.get(reverse("admin:crowd_campaign_change", args=[campaign.pk])).content.decode()
    )
