"""Direct paraphrases get their PINC from a real Celery worker (and from the sweep when Redis
was down), and the corpus page compares them with the segment's other descriptions on figures
worked out by hand."""

import pytest
from django.urls import reverse

import paracrowd_metrics as metrics
from collector import services
from collector.models import Paraphrase
from crowd.models import Tier
from scoring.models import ParaphraseComparisonReport
from scoring.paraphrases import (
    direct_versus_described,
    paraphrase_comparison_compute,
    paraphrase_comparison_request,
    paraphrases_score,
    paraphrases_unscored,
)
from scoring.tasks import sweep_unscored
from tests.conftest import broker_unreachable, running_worker, wait_for
from tests.factories import (
    make_description,
    make_paraphrase,
    make_paraphrase_source,
    make_segment,
    make_staff,
    make_worker,
)
from tests.pages import task_shown

SENTENCE = "A man cooks."
# PINC against SENTENCE, by hand (13a tokens, lowercased; orders 1-4 the candidate has):
# "Someone prepares food." shares only "." of 4 unigrams: (3/4 + 1 + 1 + 1) / 4 = 93.75.
# "A chef cooks." shares a, cooks, . and the bigram "cooks .": (1/4 + 2/3 + 1 + 1) / 4.
# "A man cooks dinner." shares 4 of 5 unigrams, 2 of 4 bigrams, 1 of 3 trigrams:
# (1/5 + 2/4 + 2/3 + 1) / 4.  "Food is being prepared." shares ".": (4/5 + 1 + 1 + 1) / 4.
DIRECT = {"Someone prepares food.": 93.75, "A chef cooks.": (0.25 + 2 / 3 + 2) / 4 * 100}
DESCRIBED = {
    "A man cooks dinner.": (0.2 + 0.5 + 2 / 3 + 1) / 4 * 100,
    "Food is being prepared.": 95.0,
}


def test_the_hand_worked_figures_are_what_pinc_computes():
    for text, expected in {**DIRECT, **DESCRIBED}.items():
        assert metrics.pinc(SENTENCE, text) == pytest.approx(expected, abs=1e-9)


def comparison_corpus():
    """One segment whose Tier-2 description is the sentence paraphrased; its other members,
    a French one, a rejected one; two direct paraphrases and a rejected third; an uploaded
    sentence with a paraphrase of its own (no segment: not compared)."""
    segment = make_segment()
    make_description(segment, SENTENCE, tier=Tier.TWO)
    for text in DESCRIBED:
        make_description(segment, text, tier=Tier.ONE)
    make_description(segment, "Un homme cuisine.", language="fr", tier=Tier.ONE)
    make_description(segment, "A cat.", status="rejected", tier=Tier.ONE)
    source = services.paraphrase_sources_from_corpus(count=1, tier2_only=True).sources[0]
    assert source.text == SENTENCE
    for text in DIRECT:
        make_paraphrase(make_worker(), source, text)
    rejected = make_paraphrase(make_worker(tier=Tier.TWO), source, "Nothing.", tier=Tier.TWO)
    services.paraphrases_review(
        paraphrase_ids=[rejected.pk], status="rejected", reviewed_by=None, reason="Not it."
    )
    uploaded = make_paraphrase_source("A woman sings.")
    make_paraphrase(make_worker(), uploaded, "Someone performs a song.")
    return source


@pytest.mark.django_db
def test_the_comparison_takes_direct_paraphrases_and_the_other_descriptions_of_the_segment():
    comparison_corpus()
    result = direct_versus_described(language="en")
    direct = sum(DIRECT.values()) / 2
    described = sum(DESCRIBED.values()) / 2
    assert (result["sentences"], result["paraphrases"], result["descriptions"]) == (1, 2, 2)
    assert result["direct_pinc"] == pytest.approx(direct, abs=1e-9)
    assert result["described_pinc"] == pytest.approx(described, abs=1e-9)
    difference = result["difference"]
    # One sentence: every resample is that sentence, so the interval is the difference itself.
    assert difference["difference"] == pytest.approx(direct - described, abs=1e-9)
    assert difference["low"] == pytest.approx(direct - described, abs=1e-9)
    assert difference["high"] == pytest.approx(direct - described, abs=1e-9)
    assert difference["p_value"] == pytest.approx(1 / 1001)
    assert direct_versus_described(language="fr")["sentences"] == 0


@pytest.mark.django_db
def test_a_sentence_with_no_other_description_takes_no_part():
    segment = make_segment()
    make_description(segment, SENTENCE)
    source = services.paraphrase_sources_from_corpus(count=1).sources[0]
    make_paraphrase(make_worker(), source, "Someone prepares food.")
    result = direct_versus_described(language="en")
    assert (result["sentences"], result["direct_pinc"], result["difference"]) == (0, None, None)


@pytest.mark.django_db
def test_scoring_a_paraphrase_stores_its_pinc_once_and_again_gives_the_same():
    source = make_paraphrase_source(SENTENCE)
    paraphrase = make_paraphrase(make_worker(), source, "A chef cooks.")
    assert paraphrases_unscored(limit=10) == [paraphrase.pk]
    assert paraphrases_score(paraphrase_ids=[paraphrase.pk]) == 1
    paraphrase.refresh_from_db()
    assert paraphrase.pinc == pytest.approx(DIRECT["A chef cooks."], abs=1e-9)
    assert paraphrase.pinc_signature.startswith("metric:pinc|nsrc:1|case:lc|tok:13a|order:4")
    first = (paraphrase.pinc, paraphrase.pinc_signature)
    paraphrases_score(paraphrase_ids=[paraphrase.pk])
    paraphrase.refresh_from_db()
    assert (paraphrase.pinc, paraphrase.pinc_signature) == first
    assert paraphrases_unscored(limit=10) == []


def test_a_paraphrase_submitted_on_the_page_is_scored_by_a_celery_worker(client, live_worker):
    make_paraphrase_source(SENTENCE)
    worker = make_worker()
    client.force_login(worker.user)
    page = task_shown(client.post(reverse("crowd:task_next"), {"kind": "paraphrase", "tier": "1"}))
    response = client.post(page, {"text": "Someone prepares food.", "language": "en"})
    assert response.status_code == 302
    wait_for(lambda: Paraphrase.objects.filter(pinc__isnull=False).exists())
    assert Paraphrase.objects.get().pinc == pytest.approx(93.75, abs=1e-9)
    dashboard = client.get(reverse("collector:dashboard")).content.decode()
    assert "PINC 93.8" in dashboard


def test_with_redis_down_the_paraphrase_is_kept_and_the_sweep_scores_it(client, transactional_db):
    make_paraphrase_source(SENTENCE)
    worker = make_worker()
    client.force_login(worker.user)
    with broker_unreachable():
        page = task_shown(
            client.post(reverse("crowd:task_next"), {"kind": "paraphrase", "tier": "1"})
        )
        response = client.post(page, {"text": "A chef cooks.", "language": "en"}, follow=True)
    assert "Your paraphrase was saved" in response.content.decode()
    paraphrase = Paraphrase.objects.get()
    assert paraphrases_unscored(limit=10) == [paraphrase.pk]
    with running_worker():
        assert sweep_unscored() == 1
        wait_for(lambda: Paraphrase.objects.filter(pinc__isnull=False).exists())
    assert paraphrases_unscored(limit=10) == []


@pytest.mark.django_db
def test_the_comparison_report_is_computed_once():
    comparison_corpus()
    report = paraphrase_comparison_request(language="en")
    assert report.state == ParaphraseComparisonReport.State.QUEUED
    assert paraphrase_comparison_compute(report_id=report.pk)
    assert not paraphrase_comparison_compute(report_id=report.pk)
    report.refresh_from_db()
    assert report.state == ParaphraseComparisonReport.State.DONE
    assert report.result["sentences"] == 1


def test_staff_ask_for_the_comparison_and_the_corpus_page_shows_it(client, live_worker):
    comparison_corpus()
    client.force_login(make_staff())
    page = reverse("scoring:corpus") + "?language=en"
    assert "No comparison computed yet for en." in client.get(page).content.decode()
    response = client.post(reverse("scoring:paraphrase_comparison"), {"language": "en"})
    assert response.status_code == 302
    wait_for(
        lambda: ParaphraseComparisonReport.objects.filter(
            state=ParaphraseComparisonReport.State.DONE
        ).exists()
    )
    html = client.get(page).content.decode()
    assert f'<td id="direct-pinc">{sum(DIRECT.values()) / 2:.2f}</td>' in html
    assert f'<td id="described-pinc">{sum(DESCRIBED.values()) / 2:.2f}</td>' in html
    assert '<td id="direct-count">2</td>' in html and '<td id="described-count">2</td>' in html
    assert "95% interval" in html


@pytest.mark.django_db
def test_only_staff_and_researchers_see_or_ask_for_the_comparison(client):
    client.force_login(make_worker().user)
    response = client.post(reverse("scoring:paraphrase_comparison"), {"language": "en"})
    assert response.status_code == 403
    assert not ParaphraseComparisonReport.objects.exists()
