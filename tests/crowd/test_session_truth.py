"""What participants are told is what they are paid: every task page of a session states the
session's reward and the bonus per further task as the platform pays them, the study's
description states the minutes Prolific is told, and a Tier-2 task never pays less than a
Tier-1 task of the same kind."""

from datetime import timedelta

import pytest
from django.urls import reverse

from collector import services as collector
from crowd import platforms
from crowd import services as crowd
from crowd.models import Assignment, Campaign, HitType, Tier
from tests.factories import make_segment, make_worker

pytestmark = pytest.mark.django_db

URL = reverse("collector:platform_describe")
STUDIES = "/api/v1/studies/"


@pytest.fixture
def prolific(prolific_api, settings):
    settings.PLATFORM_PUBLIC_URL = "https://paracrowd.example.org"
    platforms.install("prolific", prolific_api.connector())
    yield prolific_api
    platforms.install("prolific", None)


def campaign(*, segments=3, tier=Tier.ONE, **options):
    for _ in range(segments):
        make_segment(targets=(3, 3))
    return crowd.campaign_create(
        name="Descriptions",
        platform="prolific",
        kind=HitType.Kind.DESCRIPTION,
        tier=tier,
        size=segments,
        lifetime=timedelta(days=7),
        **options,
    )


def arrive(client, participant, session, study):
    return client.get(URL, {"PROLIFIC_PID": participant, "STUDY_ID": study, "SESSION_ID": session})


def test_each_task_page_of_a_session_states_its_reward_and_bonus_as_prolific_pays_them(
    prolific, client
):
    published = crowd.campaign_publish(
        campaign=campaign(tasks_per_session=3, tasks_minimum=2, task_cents=30)
    )
    participant, session = prolific.participant_joins(published.external_id)
    page = arrive(client, participant, session, published.external_id).content.decode()
    assert "This session pays $0.60 for 2 tasks" in page
    assert "a bonus of $0.30 for each further task up to 3" in page
    # The HIT type's own pay per task is not what Prolific pays: it is not shown.
    hit_type_pay = HitType.objects.for_kind(HitType.Kind.DESCRIPTION).pay_cents(Tier.ONE)
    assert f"{platforms.get('prolific').money(hit_type_pay)} for an accepted" not in page
    assert "$0.60 for the session · $0.30 bonus a task past 2" in page


def test_session_pay_is_written_in_the_platforms_currency(prolific, client, settings):
    settings.PROLIFIC_CURRENCY = prolific.currency = "GBP"
    published = crowd.campaign_publish(campaign=campaign(tasks_per_session=2, task_cents=45))
    participant, session = prolific.participant_joins(published.external_id)
    page = arrive(client, participant, session, published.external_id).content.decode()
    assert "This session pays £0.90 for 2 tasks, once your work is approved." in page


def test_the_study_description_states_the_minutes_prolific_is_told(prolific):
    crowd.campaign_publish(campaign=campaign(tasks_per_session=3, tasks_minimum=2))
    (created,) = prolific.sent("POST", STUDIES)
    body = created.json
    assert f"About {body['estimated_completion_time']} minutes for 2 tasks" in body["description"]
    assert platforms.get("prolific").money(body["reward"]) in body["description"]


def measured(tier, seconds, n):
    """``n`` verified submissions of ``tier`` that took ``seconds`` each."""
    for _ in range(n):
        make_segment(targets=(n, n))
    for _ in range(n):
        worker = make_worker(tier=tier)
        assignment = crowd.assignment_claim(worker=worker, tier=tier)
        collector.description_submit(
            assignment_id=assignment.pk, worker=worker, text="A man is riding.", language="en"
        )
        Assignment.objects.filter(pk=assignment.pk).update(
            accepted_at=assignment.accepted_at - timedelta(seconds=seconds)
        )


def test_a_tier_two_task_never_pays_less_than_a_tier_one_task_of_the_same_kind(settings):
    settings.PLATFORM_PAY_MEASURED_MINIMUM = 3
    measured(Tier.ONE, 50, 3)
    measured(Tier.TWO, 30, 3)  # the better tier works faster
    one = campaign(tier=Tier.ONE, tasks_per_session=2)
    two = campaign(tier=Tier.TWO, tasks_per_session=2)
    assert two.task_cents >= one.task_cents
    plan = crowd.campaign_plan(
        platform="prolific",
        kind=HitType.Kind.DESCRIPTION,
        tier=Tier.TWO,
        tasks=10,
        tasks_per_session=2,
    )
    assert plan.task_cents >= one.task_cents


def test_a_tier_two_campaign_paying_less_than_a_live_tier_one_campaign_is_refused():
    campaign(tier=Tier.ONE, tasks_per_session=2, task_cents=20)
    with pytest.raises(crowd.WorkRefused, match="at least what a lower tier's task"):
        campaign(tier=Tier.TWO, tasks_per_session=2, task_cents=15)
    assert Campaign.objects.count() == 1


def test_a_partial_session_pays_the_minimum_hourly_rate_for_the_time_prolific_is_told(prolific):
    published = crowd.campaign_publish(
        campaign=campaign(tier=Tier.TWO, tasks_per_session=3, tasks_minimum=1)
    )
    (created,) = prolific.sent("POST", STUDIES)
    body = created.json
    # A session ended before its minimum (nothing left, or stopped) is paid its whole reward.
    assert body["reward"] == published.reward_cents
    assert body["reward"] * 60 >= published.minimum_hourly_cents * body["estimated_completion_time"]
