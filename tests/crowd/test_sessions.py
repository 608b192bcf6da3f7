"""Work sessions: a platform visit of up to K tasks, resumable, finished with the platform's
code; arrivals checked before any task is handed out."""

import pytest
from django.core import signing
from django.urls import reverse

from collector.models import Description
from crowd import services
from crowd.models import Assignment, Worker, WorkSession
from tests.factories import make_segment

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


def task_of(response) -> int:
    """The assignment a task page's signed token names (the signature itself carries the
    time, so two pages of one task differ there)."""
    return signing.loads(token_from(response), salt="crowd.entrance.description")["assignment"]


def token_from(response) -> str:
    page = response.content.decode()
    return page.split('name="token" value="', 1)[1].split('"', 1)[0]


def describe(client, response, text):
    return client.post(URL, {"token": token_from(response), "text": text, "language": "en"})


def test_an_arrival_opens_a_session_and_shows_its_progress(client, demo):
    make_segment()
    make_segment()
    response = arrive(client)
    assert response.status_code == 200
    assert "Task 1 of 3" in response.content.decode()
    session = WorkSession.objects.get()
    assert (session.external_id, session.listing_id, session.task_limit) == (SESSION, STUDY, 3)
    assert Assignment.objects.get().session == session


def test_a_reload_resumes_the_same_task_and_the_same_session(client, demo):
    make_segment()
    make_segment()
    first = arrive(client)
    again = arrive(client)
    assert task_of(first) == task_of(again)
    assert WorkSession.objects.count() == 1 and Assignment.objects.count() == 1


def test_a_submission_leads_to_the_next_task_until_the_session_is_done(client, demo):
    for _ in range(4):
        make_segment()
    response = arrive(client)
    for n in range(1, 3):
        after = describe(client, response, f"A man is riding horse number {n}.")
        assert after.status_code == 302
        response = client.get(after["Location"])
        assert f"Task {n + 1} of 3" in response.content.decode()
    done = describe(client, response, "A man is riding the last horse.")
    assert done.status_code == 200
    assert "your session is complete" in done.content.decode()
    assert Description.objects.count() == 3
    assert WorkSession.objects.get().state == WorkSession.State.FINISHED
    # A reload after the end shows the end again and hands nothing out.
    assert "your session is complete" in arrive(client).content.decode()
    assert Assignment.objects.count() == 3


def test_no_item_is_given_twice_in_a_session(client, demo):
    make_segment()
    make_segment()
    response = arrive(client)
    response = client.get(describe(client, response, "A cat is jumping onto a table.")["Location"])
    describe(client, response, "A dog is chasing a ball.")
    items = Assignment.objects.values_list("hit__item_id", flat=True)
    assert len(set(items)) == 2
    # Nothing is left for this worker: the session ends with what was done.
    assert "your session is complete" in arrive(client).content.decode()


def test_finishing_early_is_refused_before_the_minimum(client, demo):
    make_segment()
    make_segment()
    response = arrive(client)
    refused = client.post(URL, {"token": token_from(response), "finish": "1"})
    assert refused.status_code == 403
    assert "at least 1 task before" in refused.content.decode()
    assert WorkSession.objects.get().state == WorkSession.State.OPEN


def test_finishing_early_after_the_minimum_gives_the_task_in_hand_back(client, demo):
    for _ in range(3):
        make_segment()
    response = arrive(client)
    response = client.get(describe(client, response, "A girl is playing a flute.")["Location"])
    assert "Finish my session now" in response.content.decode()
    finished = client.post(URL, {"token": token_from(response), "finish": "1"})
    assert "your session is complete" in finished.content.decode()
    statuses = sorted(Assignment.objects.values_list("status", flat=True))
    assert statuses == [Assignment.Status.RETURNED, Assignment.Status.SUBMITTED]


def test_the_same_visit_id_under_another_participant_is_refused(client, demo):
    make_segment()
    arrive(client)
    response = arrive(client, pid="d" * 24)
    assert response.status_code == 403
    assert Worker.objects.count() == 1


def test_a_later_visit_by_the_same_participant_is_the_same_worker(client, demo):
    for _ in range(2):
        make_segment()
    arrive(client)
    arrive(client, session="e" * 24)
    assert Worker.objects.count() == 1
    assert WorkSession.objects.count() == 2


def test_the_demo_says_it_is_a_demo(client, demo):
    make_segment()
    assert "Demo mode" in arrive(client).content.decode()


def test_without_a_connector_or_demo_mode_arrivals_are_refused(client, settings):
    settings.PLATFORM_DEMO = False
    make_segment()
    response = arrive(client)
    assert response.status_code == 403
    assert "not connected to Prolific" in response.content.decode()
    assert not Worker.objects.exists() and not WorkSession.objects.exists()


def test_an_abandoned_session_gives_its_task_back_and_leaves_its_work_unconfirmed(client, demo):
    make_segment()
    make_segment()
    response = arrive(client)
    client.get(describe(client, response, "A boy is kicking a ball.")["Location"])
    session = WorkSession.objects.get()
    assert services.session_abandon(session=session, platform_status="returned")
    statuses = sorted(Assignment.objects.values_list("status", flat=True))
    assert statuses == [Assignment.Status.RETURNED, Assignment.Status.UNVERIFIED]
    assert not services.session_abandon(session=session, platform_status="returned")
