"""What a participant meets in a work session: Skip on every task, a campaign's consent and
instructions page before the first task, and a completion code at every end (the demo's own,
and Prolific's failed-attention-check code for a participant the quality rules stopped)."""

import pytest
from django.urls import reverse

from collector.models import Description
from crowd.models import Assignment, Hit, WorkSession
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
