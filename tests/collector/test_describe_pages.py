"""The description task through its pages: what a worker can do, and what bad input gets."""

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from collector.models import Description
from crowd import services as crowd
from crowd.models import Assignment, Tier
from tests.factories import make_segment, make_worker

pytestmark = pytest.mark.django_db


@pytest.fixture
def alice(client):
    worker = make_worker(username="alice")
    client.force_login(worker.user)
    return worker


@pytest.fixture
def task(alice):
    make_segment()
    return crowd.assignment_claim(worker=alice, tier=Tier.ONE)


def submit(client, assignment, **fields):
    data = {"text": "A woman is slicing some tomatoes.", "language": "en", **fields}
    return client.post(reverse("collector:describe", args=[assignment.pk]), data)


def test_next_task_claims_a_segment_and_opens_it(client, alice):
    segment = make_segment(start=3, end=9)
    response = client.post(reverse("crowd:task_next"), {"tier": "1"}, follow=True)
    assert response.status_code == 200
    page = response.content.decode()
    assert 'data-start="3.00"' in page and 'data-end="9.00"' in page
    assert Assignment.objects.get(worker=alice).hit.item.segment == segment


def test_next_task_refuses_a_get(client, alice):
    assert client.get(reverse("crowd:task_next")).status_code == 405


def test_it_stores_a_description_and_counts_it_on_the_dashboard(client, alice, task):
    response = submit(client, task)
    assert response.status_code == 302
    description = Description.objects.get()
    assert (description.worker, description.tier, description.status) == (alice, 1, "pending")
    assert description.time_spent is not None
    dashboard = client.get(reverse("collector:dashboard")).content.decode()
    assert '<dd id="count-submitted">1</dd>' in dashboard


@pytest.mark.parametrize(
    "text, language",
    [
        ("एक आदमी गिटार बजा रहा है।", "hi"),
        ("一个男人在弹吉他。", "zh-hans"),
        ("رجل يعزف على الغيتار.", "ar"),
    ],
)
def test_it_round_trips_unicode_exactly(client, task, text, language):
    submit(client, task, text=text, language=language)
    assert Description.objects.get().text == text
    assert text in client.get(reverse("collector:dashboard")).content.decode()


def test_it_accepts_a_language_typed_in(client, task):
    submit(client, task, language="other", other_language="Swiss German")
    assert Description.objects.get().language == "Swiss German"


@pytest.mark.parametrize(
    "fields, message",
    [
        ({"text": ""}, "Write one sentence describing the main action."),
        ({"text": "   "}, "Write one sentence describing the main action."),
        ({"text": "A man runs. A dog follows him."}, "exactly one sentence"),
        ({"text": "一个男人在弹吉他。狗在跑。"}, "exactly one sentence"),
        ({"text": "A man\nA dog"}, "exactly one sentence"),
        ({"text": "x" * 10_000}, "at most 300 characters (you wrote 10000)"),
        ({"text": "Watch https://example.org/v now"}, "do not include links"),
        ({"language": ""}, "Say which language you wrote in."),
        ({"language": "klingon-ish"}, "Select a valid choice"),
        ({"language": "other", "other_language": ""}, "Type the name of the language"),
        ({"language": "other", "other_language": "<b>x</b>"}, "Name the language in letters"),
    ],
)
def test_bad_input_gets_a_clear_message_and_stores_nothing(client, task, fields, message):
    response = submit(client, task, **fields)
    assert response.status_code == 200
    assert message in response.content.decode()
    assert not Description.objects.exists()
    task.refresh_from_db()
    assert task.status == Assignment.Status.ASSIGNED


def test_html_is_stored_as_typed_and_shown_escaped(client, task):
    text = '<script>alert("x")</script> A cat <b>jumps</b> on a table'
    submit(client, task, text=text)
    assert Description.objects.get().text == text
    dashboard = client.get(reverse("collector:dashboard")).content.decode()
    assert "<script>alert" not in dashboard and "<b>jumps</b>" not in dashboard
    assert "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;" in dashboard


def test_an_unknown_assignment_is_not_found(client, alice):
    assert client.get(reverse("collector:describe", args=[999_999])).status_code == 404


def test_charlie_cannot_open_or_submit_alices_task(client, task):
    charlie = make_worker(username="charlie")
    client.force_login(charlie.user)
    assert client.get(reverse("collector:describe", args=[task.pk])).status_code == 404
    assert submit(client, task).status_code == 404
    assert not Description.objects.exists()


def test_an_expired_assignment_can_still_be_submitted(client, task):
    Assignment.objects.filter(pk=task.pk).update(expires_at=timezone.now() - timedelta(hours=1))
    crowd.assignments_expire()
    assert submit(client, task).status_code == 302
    assert Description.objects.count() == 1


def test_the_same_assignment_submitted_twice_is_stored_once(client, task):
    submit(client, task)
    response = submit(client, task)
    assert response.status_code == 302
    assert Description.objects.count() == 1


def test_a_tier_one_worker_cannot_take_tier_two_work(client, alice):
    make_segment()
    response = client.post(reverse("crowd:task_next"), {"tier": "2"}, follow=True)
    assert "You do not hold the Tier-2 qualification." in response.content.decode()
    assert not Assignment.objects.exists()


def test_a_tier_two_worker_sees_both_tiers_and_tier_two_pay(client):
    worker = make_worker(tier=Tier.TWO)
    client.force_login(worker.user)
    page = client.get(reverse("collector:dashboard")).content.decode()
    assert "Tier 1 · $0.01 each" in page and "Tier 2 · $0.05 each" in page


def test_skip_gives_the_segment_back(client, task):
    client.post(reverse("crowd:skip", args=[task.pk]))
    task.refresh_from_db()
    assert task.status == Assignment.Status.RETURNED


def test_worker_pages_need_a_login(client):
    response = client.get(reverse("collector:dashboard"))
    assert response.status_code == 302 and reverse("login") in response["Location"]


def test_an_account_without_a_worker_profile_is_refused(client, django_user_model):
    client.force_login(django_user_model.objects.create_user("researcher"))
    assert client.get(reverse("collector:dashboard")).status_code == 403


def test_sign_up_creates_a_tier_one_worker_and_logs_them_in(client):
    response = client.post(
        reverse("signup"),
        {
            "username": "newbie",
            "password1": "a long safe passphrase",
            "password2": "a long safe passphrase",
        },
        follow=True,
    )
    assert "You are in <strong>Tier 1</strong>" in response.content.decode()


def test_every_page_has_exactly_one_h1(client, task):
    pages = [
        reverse("collector:dashboard"),
        reverse("collector:describe", args=[task.pk]),
        reverse("signup"),
    ]
    for url in pages:
        assert client.get(url).content.decode().count("<h1") == 1, url
    client.logout()
    for url in [reverse("home"), reverse("login")]:
        assert client.get(url).content.decode().count("<h1") == 1, url
