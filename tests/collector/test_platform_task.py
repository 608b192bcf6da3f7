"""Workers arriving from a crowd platform in the Mechanical Turk ExternalQuestion style."""

import pytest
from django.urls import reverse

from collector.models import Description
from collector.views import PREVIEW_ASSIGNMENT_ID
from crowd.models import Assignment, Worker
from tests.factories import make_segment

pytestmark = pytest.mark.django_db

URL = reverse("collector:platform_describe")
SANDBOX = "https://workersandbox.mturk.com"


def accept(client, worker_id="A1WORKER", assignment_id="3ASSIGN", **extra):
    params = {"workerId": worker_id, "assignmentId": assignment_id, "hitId": "3HIT", **extra}
    return client.get(URL, {"turkSubmitTo": SANDBOX, **params})


def token_from(response) -> str:
    page = response.content.decode()
    return page.split('name="token" value="', 1)[1].split('"', 1)[0]


def test_preview_shows_the_task_with_the_form_disabled(client):
    make_segment()
    response = client.get(URL, {"assignmentId": PREVIEW_ASSIGNMENT_ID, "hitId": "3HIT"})
    page = response.content.decode()
    assert response.status_code == 200
    assert "This is a preview" in page and "<fieldset disabled>" in page
    assert not Assignment.objects.exists() and not Worker.objects.exists()


def test_only_the_platform_page_may_be_framed_and_only_by_the_platform(client):
    make_segment()
    framed = client.get(URL, {"assignmentId": PREVIEW_ASSIGNMENT_ID})
    assert "X-Frame-Options" not in framed
    assert SANDBOX in framed["Content-Security-Policy"]
    assert client.get(reverse("login"))["X-Frame-Options"] == "DENY"


def test_an_accepted_hit_creates_the_worker_and_their_assignment(client):
    make_segment()
    response = accept(client)
    assert response.status_code == 200
    assignment = Assignment.objects.get()
    assert assignment.worker.external_id == "A1WORKER"
    assert (assignment.external_assignment_id, assignment.external_hit_id) == ("3ASSIGN", "3HIT")


def test_a_platform_worker_submits_with_the_signed_token_and_returns_to_the_platform(client):
    make_segment()
    token = token_from(accept(client))
    response = client.post(
        URL,
        {"token": token, "turkSubmitTo": SANDBOX, "text": "A man rides a horse.", "language": "en"},
    )
    page = response.content.decode()
    assert Description.objects.get().worker.external_id == "A1WORKER"
    assert f'action="{SANDBOX}/mturk/externalSubmit"' in page
    assert 'name="assignmentId" value="3ASSIGN"' in page


def test_a_forged_token_stores_nothing(client):
    make_segment()
    accept(client)
    response = client.post(URL, {"token": "forged", "text": "A man rides.", "language": "en"})
    assert response.status_code == 403
    assert not Description.objects.exists()


def test_an_unknown_submit_address_is_refused(client):
    make_segment()
    response = accept(client, turkSubmitTo="https://evil.example")
    assert response.status_code == 403
    assert not Assignment.objects.exists()


def test_bad_input_from_a_platform_worker_is_explained_on_the_framed_page(client):
    make_segment()
    token = token_from(accept(client))
    response = client.post(
        URL, {"token": token, "turkSubmitTo": SANDBOX, "text": "", "language": "en"}
    )
    assert "Write one sentence describing the main action." in response.content.decode()
    assert "X-Frame-Options" not in response
    assert not Description.objects.exists()
