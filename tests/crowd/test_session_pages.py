"""What a participant meets in a work session: Skip on every task, a campaign's consent and
instructions page before the first task, and a completion code at every end (the demo's own,
and Prolific's failed-attention-check code for a participant the quality rules stopped)."""

from datetime import timedelta

import pytest
from django.urls import reverse

from collector.models import Description
from crowd import platforms
from crowd import services as crowd
from crowd.models import (
    Assignment,
    Campaign,
    Hit,
    HitType,
    QualityRule,
    Tier,
    Worker,
    WorkSession,
)
from tests.factories import make_segment, make_staff

pytestmark = pytest.mark.django_db

URL = reverse("collector:platform_describe")
PID, STUDY, SESSION = "a" * 24, "b" * 24, "c" * 24


@pytest.fixture
def demo(settings):
    settings.PLATFORM_DEMO = True
    settings.PLATFORM_DEMO_SESSION_TASKS = 3
    return settings


def arrive(client, *, pid=PID, study=STUDY, session=SESSION, **extra):
    return client.get(URL, {"PROLIFIC_PID": pid, "STUDY_ID": study, "SESSION_ID": session, **extra})


def token_from(response) -> str:
    page = response.content.decode()
    return page.split('name="token" value="', 1)[1].split('"', 1)[0]


def describe(client, response, text):
    return client.post(URL, {"token": token_from(response), "text": text, "language": "en"})


def test_skip_gives_the_task_to_someone_else_and_hands_the_next_one(client, demo):
    for _ in range(3):
        make_segment()
    page = arrive(client)
    assert "Skip this task" in page.content.decode()
    page = client.get(describe(client, page, "A boy is kicking a ball.")["Location"])
    held = Assignment.objects.get(status=Assignment.Status.ASSIGNED)
    skipped = client.post(URL, {"token": token_from(page), "skip": "1"})
    assert skipped.status_code == 302
    held.refresh_from_db()
    assert held.status == Assignment.Status.RETURNED
    # Its place is free for someone else at once.
    assert Hit.objects.get(pk=held.hit_id).assignments.filter(status="assigned").count() == 0
    after = client.get(skipped["Location"]).content.decode()
    # The count of tasks done is not lost, and the next task is another segment.
    assert "Task 2 of 3 · 1 done" in after
    current = Assignment.objects.get(status=Assignment.Status.ASSIGNED)
    assert current.hit.item_id != held.hit.item_id
    assert WorkSession.objects.get().state == WorkSession.State.OPEN


def test_skipping_the_last_task_left_ends_the_session_with_what_was_done(client, demo):
    make_segment()
    make_segment()
    page = arrive(client)
    page = client.get(describe(client, page, "A girl is singing.")["Location"])
    skipped = client.post(URL, {"token": token_from(page), "skip": "1"})
    assert "your session is complete" in client.get(skipped["Location"]).content.decode()
    assert Description.objects.count() == 1


def test_the_video_error_advice_names_the_skip_the_session_page_has(client, demo):
    make_segment()
    page = arrive(client).content.decode()
    assert "skip this task with the page's Skip button" in page
    assert "Skip this task</button>" in page


def test_the_demo_session_ends_with_the_demos_completion_code(client, demo):
    demo.PLATFORM_DEMO_SESSION_TASKS = 1
    make_segment()
    done = describe(client, arrive(client), "A woman is cutting an onion.").content.decode()
    assert "your session is complete" in done
    assert 'id="completion-code"><strong>DEMO-COMPLETE</strong>' in done
    assert "Demo mode" in done


# Campaigns on the Prolific stand-in.


@pytest.fixture
def prolific(prolific_api, settings):
    settings.PLATFORM_PUBLIC_URL = "https://paracrowd.example.org"
    platforms.install("prolific", prolific_api.connector())
    yield prolific_api
    platforms.install("prolific", None)


def published(*, segments=3, consent_text="", **options):
    for _ in range(segments):
        make_segment(targets=(3, 3))
    draft = crowd.campaign_create(
        name="Descriptions",
        platform="prolific",
        kind=HitType.Kind.DESCRIPTION,
        tier=Tier.ONE,
        size=segments,
        lifetime=timedelta(days=7),
        **options,
    )
    Campaign.objects.filter(pk=draft.pk).update(consent_text=consent_text)
    return crowd.campaign_publish(campaign=Campaign.objects.get(pk=draft.pk))


def visit(client, prolific, campaign, participant=None):
    participant, session = prolific.participant_joins(campaign.external_id, participant)
    query = {"PROLIFIC_PID": participant, "STUDY_ID": campaign.external_id, "SESSION_ID": session}
    return participant, client.get(URL, query)


def test_a_campaigns_consent_page_comes_once_before_the_first_task(prolific, client):
    campaign = published(consent_text="You will describe videos.\n\nWe keep <b>no</b> names.")
    _, page = visit(client, prolific, campaign)
    text = page.content.decode()
    assert "Before you start" in text and "You will describe videos." in text
    assert "&lt;b&gt;no&lt;/b&gt;" in text  # staff's text is shown as written, not as markup
    assert "This session pays" in text
    assert not Assignment.objects.exists()
    consent = text.split('name="consent" value="', 1)[1].split('"', 1)[0]
    agreed = client.post(page.request["PATH_INFO"], {"consent": consent})
    assert agreed.status_code == 302
    task = client.get(agreed["Location"]).content.decode()
    assert "Task 1 of" in task and "Before you start" not in task
    assert WorkSession.objects.get().consented_at is not None
    # A reload goes on with the task, not the page again.
    assert "Before you start" not in client.get(agreed["Location"]).content.decode()


def test_a_forged_consent_changes_nothing(prolific, client):
    campaign = published(consent_text="You will describe videos.")
    visit(client, prolific, campaign)
    refused = client.post(URL, {"consent": "forged"})
    assert refused.status_code == 403
    assert WorkSession.objects.get().consented_at is None
    assert not Assignment.objects.exists()


def test_without_a_consent_text_the_session_starts_with_its_first_task(prolific, client):
    _, page = visit(client, prolific, published())
    assert "Task 1 of" in page.content.decode()


def test_the_study_has_a_failed_attention_check_code_and_takes_a_participant_back(prolific):
    campaign = published(tasks_per_session=2)
    (created,) = prolific.sent("POST", "/api/v1/studies/")
    codes = {code["code_type"]: code for code in created.json["completion_codes"]}
    assert codes["COMPLETED"]["code"] == campaign.completion_code
    failed = codes["FAILED_ATTENTION_CHECK"]
    assert failed["code"] == campaign.failed_check_code != campaign.completion_code
    assert failed["actions"] == [{"action": "MANUALLY_REVIEW"}]
    # Enough sessions for PLATFORM_TASKS_PER_PARTICIPANT tasks: 120 in sessions of 2.
    assert created.json["submissions_config"] == {"max_submissions_per_participant": 60}


def test_a_participant_comes_back_for_a_second_session_and_gets_other_segments(prolific, client):
    campaign = published(segments=4, tasks_per_session=2)
    participant, page = visit(client, prolific, campaign)
    for text in ("A man is slicing bread.", "A woman is pouring tea."):
        done = describe(client, page, text)
        if done["Location"].startswith("/"):
            page = client.get(done["Location"])
    _, again = visit(client, prolific, campaign, participant)
    assert "Task 1 of 2" in again.content.decode()
    items = list(Assignment.objects.values_list("hit__item_id", flat=True))
    assert len(items) == 3 == len(set(items))
    assert WorkSession.objects.count() == 2


def test_a_participant_stopped_by_the_quality_rules_goes_back_with_the_failed_check_code(
    prolific, client
):
    campaign = published(tasks_per_session=3)
    participant, page = visit(client, prolific, campaign)
    describe(client, page, "A man is slicing a tomato.")
    QualityRule.objects.create(check_kind="gold", warn_after=1, stop_after=1, window=5)
    worker = Worker.objects.get(external_id=participant)
    crowd.quality_check_record(worker=worker, kind="gold", source="t:1", passed=False)
    session = WorkSession.objects.get()
    ended = client.get(
        URL,
        {
            "PROLIFIC_PID": participant,
            "STUDY_ID": campaign.external_id,
            "SESSION_ID": session.external_id,
        },
    ).content.decode()
    assert "Your session has ended" in ended
    assert f"?cc={campaign.failed_check_code}" in ended
    assert campaign.failed_check_code in ended and campaign.completion_code not in ended
    session.refresh_from_db()
    assert session.failed_check and session.state == WorkSession.State.FINISHED


def test_staff_set_a_campaigns_consent_text_in_the_admin(client):
    make_segment(targets=(3, 3))
    campaign = crowd.campaign_create(
        name="Descriptions",
        platform="studylink",
        kind=HitType.Kind.DESCRIPTION,
        tier=Tier.ONE,
        size=1,
        lifetime=timedelta(days=7),
    )
    staff = make_staff()
    staff.is_superuser = True
    staff.save()
    client.force_login(staff)
    address = reverse("admin:crowd_campaign_change", args=[campaign.pk])
    assert 'name="consent_text"' in client.get(address).content.decode()
    form = {"name": "Descriptions", "consent_text": "We keep no names."}
    # The events inline (read-only) still posts its management form.
    form.update({"events-TOTAL_FORMS": 0, "events-INITIAL_FORMS": 0, "events-MAX_NUM_FORMS": 0})
    saved = client.post(address, form)
    assert saved.status_code == 302
    campaign.refresh_from_db()
    assert campaign.consent_text == "We keep no names."


def test_the_session_end_page_counts_once_and_offers_to_copy_the_code(client, demo):
    demo.PLATFORM_DEMO_SESSION_TASKS = 2
    make_segment()
    make_segment()
    page = arrive(client)
    page = client.get(describe(client, page, "A girl is singing.")["Location"])
    done = describe(client, page, "A man is rowing a boat.").content.decode()
    # What it did, said once: not "Task 2 of 2 · 1 done" above "You did 2 tasks".
    assert "You did 2 tasks" in done
    assert 'id="session-progress"' not in done and "Skip this task" not in done
    assert 'data-copy="completion-code"' in done and "js/copy-code.js" in done
