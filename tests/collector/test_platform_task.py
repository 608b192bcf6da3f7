"""Workers arriving from a crowd platform in the Mechanical Turk ExternalQuestion style."""

import pytest
from django.urls import reverse

from collector.models import Description
from crowd.entrance import PREVIEW_ASSIGNMENT_ID
from crowd.models import Assignment, Worker
from tests.factories import make_segment

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("platform_demo", "mturk_framing")]

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


@pytest.mark.parametrize(
    "bad",
    [
        {"workerId": "A" * 300},
        {"assignmentId": "3" * 100},
        {"hitId": "H" * 100},
        {"workerId": "A1WORKER\x00"},
        {"assignmentId": "3ASSIGN<script>"},
        {"hitId": "3 HIT"},
    ],
)
def test_a_malformed_platform_id_is_refused_with_a_message_and_nothing_is_stored(client, bad):
    make_segment()
    response = accept(client, **bad)
    page = response.content.decode()
    assert response.status_code == 400 and page.count("<h1>") == 1
    if any("\x00" in value for value in bad.values()):
        # The site's edge refuses a NUL before the arrival is read, naming the parameter.
        assert "The parameter workerId holds characters that are not text" in page
    else:
        assert "letters, digits, - or _" in page and "Please return the HIT." in page
    assert not Worker.objects.exists() and not Assignment.objects.exists()


def test_reloading_the_page_gives_the_same_task(client):
    make_segment()
    make_segment()
    first, again = accept(client), accept(client)
    assert first.status_code == again.status_code == 200
    assignment = Assignment.objects.get()
    # The same claims (worker and assignment), signed a moment apart.
    assert token_from(first).split(":")[0] == token_from(again).split(":")[0]
    assert assignment.external_assignment_id == "3ASSIGN"


def test_reloading_after_submitting_says_so_and_offers_the_platform_form(client):
    make_segment()
    make_segment()
    token = token_from(accept(client))
    client.post(
        URL, {"token": token, "turkSubmitTo": SANDBOX, "text": "A cat naps.", "language": "en"}
    )
    response = accept(client)
    page = response.content.decode()
    assert "You already submitted this task" in page
    assert f'action="{SANDBOX}/mturk/externalSubmit"' in page
    assert Assignment.objects.count() == 1 and Description.objects.count() == 1


def test_a_second_platform_assignment_of_one_worker_gets_a_second_task(client):
    make_segment()
    make_segment()
    accept(client, assignment_id="3ASSIGN")
    accept(client, assignment_id="3OTHER")
    assignments = Assignment.objects.order_by("id")
    assert [a.external_assignment_id for a in assignments] == ["3ASSIGN", "3OTHER"]
    assert assignments[0].hit_id != assignments[1].hit_id


def test_the_same_platform_assignment_under_another_worker_is_refused(client):
    make_segment()
    make_segment()
    accept(client, worker_id="A1WORKER")
    response = accept(client, worker_id="A2INTRUDER")
    assert response.status_code == 403
    assert "another worker" in response.content.decode()
    assert list(Worker.objects.values_list("external_id", flat=True)) == ["A1WORKER"]
    assert Assignment.objects.count() == 1


def test_the_done_page_thanks_once_and_sends_the_assignment_to_the_platform(client):
    make_segment()
    token = token_from(accept(client))
    response = client.post(
        URL, {"token": token, "turkSubmitTo": SANDBOX, "text": "A cat naps.", "language": "en"}
    )
    page = response.content.decode()
    assignment = Assignment.objects.get()
    assert Description.objects.get().assignment == assignment
    assert page.count("saved") == 1
    assert f'name="paracrowd_assignment" value="{assignment.pk}"' in page
    assert "js/platform-submit.js" in page
    assert "Finish the HIT</button>" in page  # for browsers without scripts


def test_an_address_bringing_too_many_new_workers_is_refused_for_the_hour(client, settings):
    settings.PLATFORM_ARRIVALS_PER_HOUR = 2
    make_segment()
    accept(client, worker_id="A1", assignment_id="3A1")
    accept(client, worker_id="A2", assignment_id="3A2")
    refused = accept(client, worker_id="A3", assignment_id="3A3")
    assert refused.status_code == 429
    assert "Too many new workers" in refused.content.decode()
    assert sorted(Worker.objects.values_list("external_id", flat=True)) == ["A1", "A2"]


def test_the_arrival_limit_spares_known_workers_and_other_addresses(client, settings):
    settings.PLATFORM_ARRIVALS_PER_HOUR = 1
    make_segment()
    make_segment()
    accept(client, worker_id="A1", assignment_id="3A1")
    assert accept(client, worker_id="A1", assignment_id="3A2").status_code == 200
    elsewhere = client.get(
        URL,
        {"workerId": "A2", "assignmentId": "3A3", "hitId": "3HIT", "turkSubmitTo": SANDBOX},
        REMOTE_ADDR="10.0.0.2",
    )
    assert elsewhere.status_code == 200
    assert Worker.objects.count() == 2


def test_the_task_address_opened_without_parameters_speaks_of_no_hit(client):
    make_segment()
    page = client.get(URL).content.decode()
    assert "open the task from the study link of your crowd platform" in page
    assert "HIT" not in page.replace("data-", "")
