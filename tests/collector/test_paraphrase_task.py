"""The direct-paraphrasing task: claiming (two workers per sentence per tier, never more, and
never the same sentence twice for one worker), the page, submitting once, refusals, the
dashboard and the platform entrance."""

import pytest
from django.db import IntegrityError, transaction
from django.urls import reverse

from collector import services
from collector.models import Paraphrase
from crowd import services as crowd
from crowd.entrance import PREVIEW_ASSIGNMENT_ID
from crowd.models import Assignment, HitType, Tier
from tests.factories import make_paraphrase, make_paraphrase_source, make_worker
from tests.pages import task_shown

pytestmark = pytest.mark.django_db

SENTENCE = "A man is slicing a tomato."
PARAPHRASE = "Someone cuts a tomato into slices."
PLATFORM_URL = reverse("collector:platform_paraphrase")
SANDBOX = "https://workersandbox.mturk.com"


def claim(worker, tier=Tier.ONE):
    return crowd.assignment_claim(worker=worker, tier=tier, kind=HitType.Kind.PARAPHRASE)


def take_task(client, worker, tier=Tier.ONE):
    client.force_login(worker.user)
    return task_shown(
        client.post(reverse("crowd:task_next"), {"kind": "paraphrase", "tier": str(tier)})
    )


def test_two_workers_paraphrase_a_sentence_in_each_tier_and_a_third_finds_nothing():
    source = make_paraphrase_source(SENTENCE)
    for n in range(2):
        make_paraphrase(make_worker(), source, f"Someone cuts tomato number {n} into slices.")
    assert claim(make_worker()) is None
    tier_two = [make_worker(tier=Tier.TWO) for _ in range(3)]
    for n, worker in enumerate(tier_two[:2]):
        make_paraphrase(worker, source, f"A tomato gets sliced, take {n}.", tier=Tier.TWO)
    assert claim(tier_two[2], Tier.TWO) is None
    assert sorted(source.paraphrases.values_list("tier", flat=True)) == [1, 1, 2, 2]
    assert sorted(source.hits.values_list("tier", "submitted_count")) == [(1, 2), (2, 2)]


def test_a_worker_who_paraphrased_a_sentence_in_one_tier_is_not_given_it_in_the_other():
    source = make_paraphrase_source(SENTENCE)
    worker = make_worker(tier=Tier.TWO)
    make_paraphrase(worker, source, PARAPHRASE)
    assert claim(worker, Tier.TWO) is None
    other = make_paraphrase_source("A dog catches a ball.")
    assert claim(worker, Tier.TWO).hit.item_id == other.item_id


def test_a_worker_holding_a_sentence_in_one_tier_is_refused_it_in_the_other():
    source = make_paraphrase_source(SENTENCE)
    worker = make_worker(tier=Tier.TWO)
    first = claim(worker, Tier.ONE)
    assert claim(worker, Tier.TWO) is None
    services.paraphrase_submit(
        assignment_id=first.pk, worker=worker, text=PARAPHRASE, language="en"
    )
    assert source.paraphrases.count() == 1


def test_the_database_refuses_a_second_paraphrase_of_a_sentence_by_one_worker():
    source = make_paraphrase_source(SENTENCE)
    worker = make_worker(tier=Tier.TWO)
    paraphrase = make_paraphrase(worker, source, PARAPHRASE)
    tier_two_hit = source.hits.get(tier=Tier.TWO)
    assignment = Assignment.objects.create(
        hit=tier_two_hit, worker=worker, expires_at=paraphrase.assignment.expires_at
    )
    with pytest.raises(services.WorkRefused, match="already paraphrased"):
        services.paraphrase_submit(
            assignment_id=assignment.pk, worker=worker, text="A tomato is cut up.", language="en"
        )
    with pytest.raises(IntegrityError), transaction.atomic():
        Paraphrase.objects.create(
            source=source, assignment=assignment, worker=worker, tier=2, text="x", language="en"
        )
    assert source.paraphrases.count() == 1


def test_submitting_twice_stores_one_paraphrase():
    source = make_paraphrase_source(SENTENCE)
    worker = make_worker()
    assignment = claim(worker)
    first, created = services.paraphrase_submit(
        assignment_id=assignment.pk, worker=worker, text=PARAPHRASE, language="en"
    )
    again, created_again = services.paraphrase_submit(
        assignment_id=assignment.pk, worker=worker, text="Other words.", language="en"
    )
    assert (created, created_again, again.pk) == (True, False, first.pk)
    assert source.paraphrases.get().text == PARAPHRASE


def test_a_worker_paraphrases_on_the_page_and_goes_back_to_the_dashboard(client):
    make_paraphrase_source(SENTENCE)
    worker = make_worker()
    page = take_task(client, worker)
    response = client.get(page)
    html = response.content.decode()
    assert SENTENCE in html and "Write the same meaning in your own words" in html
    response = client.post(page, {"text": PARAPHRASE, "language": "en"})
    assert response.status_code == 302 and response["Location"] == reverse("collector:dashboard")
    paraphrase = Paraphrase.objects.get()
    assert (paraphrase.worker, paraphrase.text, paraphrase.tier) == (worker, PARAPHRASE, 1)
    assert paraphrase.status == Paraphrase.Status.PENDING and paraphrase.time_spent is not None
    reopened = client.get(page).content.decode()
    assert "You submitted this task" in reopened and PARAPHRASE in reopened


@pytest.mark.parametrize(
    "text, message",
    [
        (SENTENCE, "This is the sentence you were given"),
        ("a man is slicing a TOMATO", "This is the sentence you were given"),
        ("So a man is slicing a tomato.", "This is almost the sentence you were given"),
        ("", "Write the sentence again, with the same meaning, in your own words."),
        ("A man cuts. He is happy.", "Write exactly one sentence"),
    ],
)
def test_a_copy_a_near_copy_or_a_bad_sentence_is_refused_and_nothing_is_stored(
    client, text, message
):
    make_paraphrase_source(SENTENCE)
    page = take_task(client, make_worker())
    response = client.post(page, {"text": text, "language": "en"})
    assert response.status_code == 200
    assert message in response.content.decode()
    assert not Paraphrase.objects.exists()
    assert Assignment.objects.get().status == Assignment.Status.ASSIGNED


def test_a_paraphrase_in_another_language_is_refused(client):
    make_paraphrase_source(SENTENCE)
    page = take_task(client, make_worker())
    response = client.post(page, {"text": "Un homme coupe une tomate.", "language": "fr"})
    assert "Write in the language of the sentence you were given (en)." in response.content.decode()
    assert not Paraphrase.objects.exists()


def test_the_service_refuses_a_copy_whoever_calls_it():
    make_paraphrase_source(SENTENCE)
    worker = make_worker()
    assignment = claim(worker)
    with pytest.raises(services.WorkRefused, match="sentence you were given"):
        services.paraphrase_submit(
            assignment_id=assignment.pk, worker=worker, text=SENTENCE, language="en"
        )
    assert not Paraphrase.objects.exists()


def test_another_workers_paraphrasing_task_answers_404(client):
    make_paraphrase_source(SENTENCE)
    page = take_task(client, make_worker())
    client.force_login(make_worker().user)
    assert client.get(page).status_code == 404
    assert client.post(page, {"text": PARAPHRASE, "language": "en"}).status_code == 404
    assert not Paraphrase.objects.exists()


def test_a_tier_one_worker_cannot_take_tier_two_paraphrasing(client):
    make_paraphrase_source(SENTENCE)
    worker = make_worker()
    client.force_login(worker.user)
    response = client.post(reverse("crowd:task_next"), {"kind": "paraphrase", "tier": "2"})
    assert response["Location"] == reverse("collector:dashboard")
    assert not Assignment.objects.exists()


def test_the_dashboard_offers_paraphrasing_and_counts_it_with_the_text_escaped(client):
    source = make_paraphrase_source(SENTENCE)
    make_paraphrase_source("A dog catches a ball.")
    worker = make_worker()
    make_paraphrase(worker, source, 'Someone cuts a "tomato" <3 & slices it.')
    client.force_login(worker.user)
    html = client.get(reverse("collector:dashboard")).content.decode()
    assert "Paraphrase a sentence · Tier 1" in html
    assert '<dd id="count-paraphrased">1</dd>' in html
    assert "Someone cuts a &quot;tomato&quot; &lt;3 &amp; slices it." in html
    assert "<3 & slices" not in html


def test_with_nothing_left_the_dashboard_offers_no_paraphrasing(client):
    worker = make_worker()
    client.force_login(worker.user)
    assert (
        "Paraphrase a sentence" not in client.get(reverse("collector:dashboard")).content.decode()
    )


def accept(client, worker_id="A1WORKER", assignment_id="3ASSIGN"):
    params = {"workerId": worker_id, "assignmentId": assignment_id, "hitId": "3HIT"}
    return client.get(PLATFORM_URL, {"turkSubmitTo": SANDBOX, **params})


def token_from(response) -> str:
    return response.content.decode().split('name="token" value="', 1)[1].split('"', 1)[0]


def test_the_platform_preview_shows_a_sentence_with_the_form_disabled(client):
    make_paraphrase_source(SENTENCE)
    response = client.get(PLATFORM_URL, {"assignmentId": PREVIEW_ASSIGNMENT_ID})
    html = response.content.decode()
    assert response.status_code == 200
    assert SENTENCE in html and "This is a preview" in html and "<fieldset disabled>" in html
    assert not Assignment.objects.exists()


@pytest.mark.usefixtures("platform_demo")
@pytest.mark.usefixtures("mturk_framing")
def test_a_platform_worker_paraphrases_with_the_signed_token_and_returns_to_the_platform(client):
    make_paraphrase_source(SENTENCE)
    token = token_from(accept(client))
    copy = client.post(
        PLATFORM_URL, {"token": token, "turkSubmitTo": SANDBOX, "text": SENTENCE, "language": "en"}
    )
    assert "This is the sentence you were given" in copy.content.decode()
    assert not Paraphrase.objects.exists()
    response = client.post(
        PLATFORM_URL,
        {"token": token, "turkSubmitTo": SANDBOX, "text": PARAPHRASE, "language": "en"},
    )
    html = response.content.decode()
    paraphrase = Paraphrase.objects.get()
    assert paraphrase.worker.external_id == "A1WORKER"
    assert paraphrase.assignment.verified_at is None  # the platform confirms it later
    assert f'action="{SANDBOX}/mturk/externalSubmit"' in html


@pytest.mark.usefixtures("platform_demo")
def test_a_forged_platform_token_stores_nothing(client):
    make_paraphrase_source(SENTENCE)
    accept(client)
    response = client.post(PLATFORM_URL, {"token": "forged", "text": PARAPHRASE, "language": "en"})
    assert response.status_code == 403
    assert not Paraphrase.objects.exists()


def test_the_platform_entrance_is_registered_for_paraphrasing():
    from crowd.platforms import ENTRANCES, entrance_url

    assert ENTRANCES[HitType.Kind.PARAPHRASE] == "collector:platform_paraphrase"
    assert entrance_url(HitType.Kind.PARAPHRASE).endswith("/external/paraphrase/")


def test_a_sentence_from_the_corpus_is_shown_escaped(client):
    from tests.factories import make_description, make_segment

    segment = make_segment()
    make_description(segment, 'A cat <script>alert("x")</script> & a dog play.')
    services.paraphrase_sources_from_corpus(count=1)
    page = take_task(client, make_worker())
    html = client.get(page).content.decode()
    assert "A cat &lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; a dog play." in html
    assert '<script>alert("x")' not in html
