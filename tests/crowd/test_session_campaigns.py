"""Session campaigns on Prolific against the local stand-in of its API: places are sessions at
a checked hourly rate, Tier 2 is a participant group kept in step, a study can ask for a
language, arrivals are looked up before any task, and a session is paid as one submission
with bonuses for the tasks past its minimum."""

from datetime import timedelta

import pytest
from django.core import signing
from django.urls import reverse

from collector import services as collector
from collector.models import Description
from crowd import platforms
from crowd import services as crowd
from crowd.models import Assignment, Campaign, HitType, PlatformAction, Tier, Worker, WorkSession
from tests.crowd.prolific_sessions import session_described
from tests.crowd.prolific_standin import NotEligible
from tests.factories import make_segment, make_staff, make_worker

pytestmark = pytest.mark.django_db

URL = reverse("collector:platform_describe")
STUDIES = "/api/v1/studies/"


@pytest.fixture
def prolific(prolific_api, settings):
    settings.PLATFORM_PUBLIC_URL = "https://paracrowd.example.org"
    platforms.install("prolific", prolific_api.connector())
    yield prolific_api
    platforms.install("prolific", None)


def campaign(*, segments=2, targets=(3, 3), tier=Tier.ONE, **options):
    for _ in range(segments):
        make_segment(targets=targets)
    return crowd.campaign_create(
        name="Descriptions",
        platform="prolific",
        kind=HitType.Kind.DESCRIPTION,
        tier=tier,
        size=segments,
        lifetime=timedelta(days=7),
        **options,
    )


def test_two_thousand_descriptions_publish_as_a_hundred_sessions_of_twenty(prolific):
    draft = campaign(segments=100, targets=(20, 20), tasks_per_session=20)
    published = crowd.campaign_publish(campaign=draft)
    (created,) = prolific.sent("POST", STUDIES)
    body = created.json
    assert body["total_available_places"] == 100 == published.places
    assert published.tasks_wanted == 2000
    # The reward pays the whole session at or above the minimum hourly rate (40 s a task).
    assert body["reward"] == published.reward_cents == 20 * published.task_cents
    assert body["estimated_completion_time"] == 14  # 20 × 40 s, rounded up
    assert body["reward"] * 60 / body["estimated_completion_time"] >= 800
    assert body["maximum_allowed_time"] >= 3 * body["estimated_completion_time"]
    assert "filters" not in body
    assert published.hourly_cents >= published.minimum_hourly_cents == 800


def test_a_campaign_paying_below_the_minimum_hourly_rate_is_refused_with_nothing_sent(prolific):
    draft = campaign(task_cents=2)
    with pytest.raises(crowd.WorkRefused, match=r"below Prolific's minimum of \$8.00 an hour"):
        crowd.campaign_publish(campaign=draft)
    assert not prolific.sent("POST", STUDIES)
    assert Campaign.objects.get().state == Campaign.State.DRAFT


def test_prolifics_own_recommended_minimum_wins_when_it_is_higher(prolific, settings):
    prolific.reward_rates["USD"] = (1500, 1800)
    draft = campaign(task_cents=10)  # $9.00 an hour at 40 s a task
    with pytest.raises(crowd.WorkRefused, match=r"minimum of \$15.00 an hour"):
        crowd.campaign_publish(campaign=draft)
    assert not prolific.sent("POST", STUDIES)


def test_the_measured_median_time_replaces_the_estimate_once_there_is_enough(prolific, settings):
    settings.PLATFORM_PAY_MEASURED_MINIMUM = 3
    hit_type = HitType.objects.for_kind(HitType.Kind.DESCRIPTION)
    assert crowd.task_time(hit_type=hit_type, tier=Tier.ONE).measured_on == 0
    for n in range(3):
        make_segment()
        worker = make_worker()
        assignment = crowd.assignment_claim(worker=worker, tier=Tier.ONE)
        collector.description_submit(
            assignment_id=assignment.pk, worker=worker, text="A man is riding.", language="en"
        )
        Assignment.objects.filter(pk=assignment.pk).update(
            accepted_at=assignment.accepted_at - timedelta(seconds=100 + 20 * n)
        )
    time = crowd.task_time(hit_type=hit_type, tier=Tier.ONE)
    assert time.measured_on == 3 and 119 <= time.seconds <= 121


def test_a_tier_two_study_admits_only_the_participant_group_kept_in_step(prolific):
    published = crowd.campaign_publish(campaign=campaign(tier=Tier.TWO, tasks_per_session=2))
    (created,) = prolific.sent("POST", STUDIES)
    (group_id,) = prolific.groups
    assert created.json["filters"] == [
        {"filter_id": "participant_group_allowlist", "selected_values": [group_id]}
    ]
    staff = make_staff()
    worker = crowd.worker_from_platform(platform="prolific", external_id="f" * 24)
    with pytest.raises(NotEligible):
        prolific.participant_joins(published.external_id, "f" * 24)

    crowd.qualification_grant(worker=worker, tier=Tier.TWO, granted_by=staff, reason="Careful.")
    assert crowd.platform_actions_send() == 1
    assert prolific.group_members[group_id] == ["f" * 24]
    (added,) = prolific.sent("POST", f"/api/v1/participant-groups/{group_id}/participants/")
    assert added.json == {"participant_ids": ["f" * 24]}
    prolific.participant_joins(published.external_id, "f" * 24)

    crowd.qualification_revoke(worker=worker, tier=Tier.TWO, revoked_by=staff, reason="Sloppy.")
    assert crowd.platform_actions_send() == 1
    assert prolific.group_members[group_id] == []
    (removed,) = prolific.sent("DELETE", f"/api/v1/participant-groups/{group_id}/participants/")
    assert removed.json == {"participant_ids": ["f" * 24]}
    # Never the whole list rewritten.
    assert not prolific.sent("PATCH", f"/api/v1/participant-groups/{group_id}/")


def test_blocking_a_tier_two_participant_takes_them_out_of_the_group(prolific):
    crowd.campaign_publish(campaign=campaign(tier=Tier.TWO))
    (group_id,) = prolific.groups
    staff = make_staff()
    worker = crowd.worker_from_platform(platform="prolific", external_id="e" * 24)
    crowd.qualification_grant(worker=worker, tier=Tier.TWO, granted_by=staff, reason="Good.")
    crowd.platform_actions_send()
    crowd.worker_block(worker=worker, blocked_by=staff, reason="Pasted generated text.")
    assert crowd.platform_actions_send() == 1
    assert prolific.group_members[group_id] == []
    crowd.worker_unblock(worker=worker, unblocked_by=staff, reason="Appeal upheld.")
    assert crowd.platform_actions_send() == 1
    assert prolific.group_members[group_id] == ["e" * 24]


def test_a_study_in_one_language_reaches_only_participants_fluent_in_it(prolific):
    crowd.campaign_publish(campaign=campaign(languages=["es"]))
    (created,) = prolific.sent("POST", STUDIES)
    (language,) = created.json["filters"]
    assert language["filter_id"] == "fluent-languages"
    assert language["selected_values"] == ["46"]  # the stand-in's id of Spanish


def test_an_unknown_language_is_refused_when_the_campaign_is_made():
    with pytest.raises(crowd.WorkRefused, match="Unknown language code 'xx'"):
        campaign(languages=["xx"])
    assert not Campaign.objects.exists()


def arrive(client, participant, session, study):
    return client.get(URL, {"PROLIFIC_PID": participant, "STUDY_ID": study, "SESSION_ID": session})


def task_of(response) -> int:
    """The assignment a task page's signed token names (the signature itself carries the
    time, so two pages of one task differ there)."""
    return signing.loads(token_from(response), salt="crowd.entrance.description")["assignment"]


def token_from(response) -> str:
    return response.content.decode().split('name="token" value="', 1)[1].split('"', 1)[0]


def test_a_forged_session_id_gets_no_task_and_takes_no_place(prolific, client):
    published = crowd.campaign_publish(campaign=campaign())
    participant, _ = prolific.participant_joins(published.external_id)
    response = arrive(client, participant, "9" * 24, published.external_id)
    assert response.status_code == 403
    assert "Prolific does not list this session" in response.content.decode()
    assert not Worker.objects.exists() and not WorkSession.objects.exists()
    assert not Assignment.objects.exists()


def test_someone_elses_session_id_gets_no_task(prolific, client):
    published = crowd.campaign_publish(campaign=campaign())
    _, session = prolific.participant_joins(published.external_id)
    response = arrive(client, "1" * 24, session, published.external_id)
    assert response.status_code == 403
    assert not Assignment.objects.exists()


def test_a_real_arrival_is_looked_up_once_and_resumed_without_asking_again(prolific, client):
    published = crowd.campaign_publish(campaign=campaign(tasks_per_session=2))
    participant, session = prolific.participant_joins(published.external_id)
    first = arrive(client, participant, session, published.external_id)
    assert first.status_code == 200 and "Task 1 of 2" in first.content.decode()
    again = arrive(client, participant, session, published.external_id)
    assert task_of(again) == task_of(first)
    assert len(prolific.sent("GET", f"/api/v1/submissions/{session}/")) == 1
    assert WorkSession.objects.get().arrival_checked_at is not None


def test_prolific_unreachable_answers_a_retry_later_and_stores_nothing(prolific, client):
    published = crowd.campaign_publish(campaign=campaign())
    participant, session = prolific.participant_joins(published.external_id)
    prolific.fail_next("GET", f"/api/v1/submissions/{session}/", status=503, times=10)
    response = arrive(client, participant, session, published.external_id)
    assert response.status_code == 503
    assert not Worker.objects.exists() and not WorkSession.objects.exists()


def test_a_finished_session_goes_back_with_the_completion_code(prolific, client):
    published = crowd.campaign_publish(campaign=campaign(tasks_per_session=2))
    participant, session = prolific.participant_joins(published.external_id)
    page = arrive(client, participant, session, published.external_id)
    for text in ("A man is slicing bread.", "A woman is pouring tea."):
        done = client.post(URL, {"token": token_from(page), "text": text, "language": "en"})
        if done["Location"].startswith("/"):
            page = client.get(done["Location"])
    assert done["Location"].endswith(f"?cc={published.completion_code}")
    assert Description.objects.count() == 2


def test_a_returned_session_releases_its_task_at_the_next_read_back(prolific, client):
    published = crowd.campaign_publish(campaign=campaign(tasks_per_session=3))
    participant, session = prolific.participant_joins(published.external_id)
    page = arrive(client, participant, session, published.external_id)
    done = client.post(URL, {"token": token_from(page), "text": "A dog runs.", "language": "en"})
    client.get(done["Location"])
    prolific.submission_status(session, "RETURNED")
    assert crowd.campaign_sync(campaign=published)["abandoned"] == 1
    statuses = sorted(Assignment.objects.values_list("status", flat=True))
    assert statuses == [Assignment.Status.RETURNED, Assignment.Status.UNVERIFIED]
    assert WorkSession.objects.get().state == WorkSession.State.ABANDONED
    assert crowd.campaign_sync(campaign=published)["abandoned"] == 0


def session_work(prolific, published, texts):
    """A participant does ``texts`` in one session, submits on Prolific, and it is read back."""
    session_id, session, descriptions = session_described(prolific, published, texts)
    crowd.session_finish(session=session, early=True)
    prolific.submission_status(session_id, "AWAITING REVIEW")
    crowd.campaign_sync(campaign=published)
    return session_id, descriptions


def test_a_session_is_approved_once_and_tasks_past_its_minimum_are_bonuses(prolific):
    published = crowd.campaign_publish(
        campaign=campaign(segments=3, tasks_per_session=3, tasks_minimum=1, task_cents=15)
    )
    session_id, descriptions = session_work(
        prolific, published, ["A cat sleeps.", "A boy swims.", "A car turns left."]
    )
    collector.descriptions_review(
        description_ids=[d.pk for d in descriptions],
        status="accepted",
        reviewed_by=make_staff(),
        reason="Clear.",
    )
    assert crowd.platform_actions_send() == 3  # one approval, two bonuses
    assert crowd.platform_actions_send() == 0
    assert prolific.submissions[session_id]["status"] == "APPROVED"
    bonuses = sorted(bonus["csv_bonuses"] for bonus in prolific.bonuses.values())
    participant = descriptions[0].worker.external_id
    assert bonuses == [f"{participant},0.15\n"] * 2
    assert len(prolific.payments) == 2
    kinds = PlatformAction.objects.values_list("kind", "session__external_id")
    assert sorted(kinds) == [("approve", session_id), ("bonus", session_id), ("bonus", session_id)]


def test_a_session_all_of_whose_work_is_rejected_is_rejected_on_prolific(prolific):
    published = crowd.campaign_publish(campaign=campaign(tasks_per_session=2, tasks_minimum=1))
    session_id, descriptions = session_work(prolific, published, ["Nice video.", "I like it."])
    staff = make_staff()
    collector.descriptions_review(
        description_ids=[descriptions[0].pk], status="rejected", reviewed_by=staff, reason="Off."
    )
    assert crowd.platform_actions_send() == 0  # one task still stands
    collector.descriptions_review(
        description_ids=[descriptions[1].pk], status="rejected", reviewed_by=staff, reason="Off."
    )
    assert crowd.platform_actions_send() == 1
    assert prolific.submissions[session_id]["status"] == "REJECTED"
