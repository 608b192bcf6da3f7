"""The description task through its pages: what a worker can do, and what bad input gets."""

import re
from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from collector import services
from collector.models import Description
from crowd import services as crowd
from crowd.models import Assignment, Tier
from tests.factories import make_segment, make_worker
from tests.pages import task_shown

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
        ({"text": "🐿️🌰😋"}, "this has no letters"),
        ({"text": "<script>alert(1)</script>"}, "without HTML or other markup"),
        ({"text": "A cat <b>jumps</b> onto a table."}, "without HTML or other markup"),
        ({"text": "describe the main action in one sentence"}, "repeats the task"),
        ({"text": "Watch the segment and describe its main action in 1 sentence"}, "repeats"),
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


def test_markup_is_refused_and_shown_back_escaped(client, task):
    text = '<script>alert("x")</script> A cat <b>jumps</b> on a table'
    page = submit(client, task, text=text).content.decode()
    assert "without HTML or other markup" in page and not Description.objects.exists()
    assert "<script>alert" not in page and "&lt;script&gt;alert(&quot;x&quot;)" in page


def test_markup_that_reached_the_corpus_another_way_is_shown_escaped(client, alice, task):
    """Imported corpora and older rows were never checked by the form."""
    text = '<script>alert("x")</script> A cat <b>jumps</b> on a table'
    services.description_submit(assignment_id=task.pk, worker=alice, text=text, language="en")
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
    make_segment()
    worker = make_worker(tier=Tier.TWO)
    client.force_login(worker.user)
    page = client.get(reverse("collector:dashboard")).content.decode()
    assert "Tier 1 · $0.01 each" in page and "Tier 2 · $0.05 each" in page


def test_skip_gives_the_segment_back_and_opens_the_next_one(client, alice, task):
    make_segment()
    response = client.post(reverse("crowd:skip", args=[task.pk]))
    task.refresh_from_db()
    assert task.status == Assignment.Status.RETURNED
    following = Assignment.objects.get(worker=alice, status=Assignment.Status.ASSIGNED)
    assert following.hit.item_id != task.hit.item_id
    assert task_shown(response) == reverse("collector:describe", args=[following.pk])


def test_skipping_the_last_segment_says_none_is_left(client, task):
    response = client.post(reverse("crowd:skip", args=[task.pk]), follow=True)
    assert response.redirect_chain[-1][0] == reverse("collector:dashboard")
    assert "There are no Tier-1 segments to describe left for you" in response.content.decode()


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


def test_the_dashboard_says_when_work_is_not_scored_yet_or_rejected(
    client, alice, task, admin_user
):
    submit(client, task)
    dashboard = client.get(reverse("collector:dashboard")).content.decode()
    assert "not scored yet" in dashboard and "BLEU  against" not in dashboard
    services.descriptions_review(
        description_ids=[Description.objects.get().pk],
        status="rejected",
        reviewed_by=admin_user,
        reason="Not the main action.",
    )
    dashboard = client.get(reverse("collector:dashboard")).content.decode()
    assert "Rejected: Not the main action." in dashboard
    assert "not scored yet" not in dashboard and "· PINC" not in dashboard


def test_ordinary_sentences_with_symbols_and_comparisons_pass(client, task):
    response = submit(client, task, text="A man sets the oven to 200° & waits (it's < 1 minute).")
    assert response.status_code == 302 and Description.objects.exists()


def test_the_instructions_refused_as_a_description_are_the_ones_the_page_shows(client, task):
    from collector.validators import INSTRUCTIONS

    page = " ".join(
        re.sub(
            r"<[^>]+>",
            "",
            client.get(reverse("collector:describe", args=[task.pk])).content.decode(),
        ).split()
    )
    for sentence in INSTRUCTIONS:
        assert sentence in page


def test_a_reopened_submitted_task_shows_what_was_sent_and_no_timer(client, task):
    submit(client, task, text="A woman is slicing some onions.")
    page = client.get(reverse("collector:describe", args=[task.pk])).content.decode()
    assert "You submitted this task on" in page and "A woman is slicing some onions." in page
    assert 'id="deadline"' not in page and 'id="description-form"' not in page


def test_a_new_worker_is_shown_how_it_works_and_the_path_to_tier_two(client, alice):
    page = client.get(reverse("collector:dashboard")).content.decode()
    assert 'id="welcome"' in page and "A woman is slicing an onion." in page
    assert 'id="path-to-tier-two"' in page and "written 0 descriptions" in page


def test_the_welcome_goes_once_work_is_in_and_tier_two_needs_no_path(client, alice, task):
    submit(client, task)
    page = client.get(reverse("collector:dashboard")).content.decode()
    assert 'id="welcome"' not in page and "written 1 description, 0 accepted" in page
    client.force_login(make_worker(tier=Tier.TWO).user)
    assert (
        'id="path-to-tier-two"' not in client.get(reverse("collector:dashboard")).content.decode()
    )


def test_the_dashboard_disables_the_button_and_says_why_when_no_segment_is_left(client, alice):
    page = client.get(reverse("collector:dashboard")).content.decode()
    assert re.search(
        r'<button type="button" class="secondary" disabled'
        r' aria-describedby="nothing-to-describe-1">Describe a video · Tier 1</button>',
        page,
    )
    assert "No Tier-1 segment is waiting for a description from you" in page
    make_segment()
    page = client.get(reverse("collector:dashboard")).content.decode()
    assert 'id="nothing-to-describe-1"' not in page
    assert '<button type="submit">Describe a video · Tier 1' in page


def test_a_segment_described_in_tier_two_leaves_no_tier_one_button(client):
    worker = make_worker(tier=Tier.TWO)
    make_segment()
    assignment = crowd.assignment_claim(worker=worker, tier=Tier.TWO)
    services.description_submit(
        assignment_id=assignment.pk, worker=worker, text="A man slices bread.", language="en"
    )
    assert crowd.assignment_claim(worker=worker, tier=Tier.ONE) is None
    client.force_login(worker.user)
    page = client.get(reverse("collector:dashboard")).content.decode()
    assert 'id="nothing-to-describe-1"' in page and 'id="nothing-to-describe-2"' in page


def test_a_gold_segment_is_offered_once_the_rest_is_described(client, alice):
    segment = make_segment()
    crowd.gold_item_create(
        item=segment.item, answer={"references": []}, source="t", created_by=None
    )
    page = client.get(reverse("collector:dashboard")).content.decode()
    assert '<button type="submit">Describe a video · Tier 1' in page
    assert crowd.assignment_claim(worker=alice, tier=Tier.ONE).hit.item_id == segment.item_id
