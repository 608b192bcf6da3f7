"""Every statistic a page shows carries its sample size, and below one shared minimum a
warning to read it as anecdote: the corpus page's comparison, a rating batch's agreement and
judges' reliabilities, the agreement between annotators."""

import pytest
from django.template.loader import render_to_string
from django.urls import reverse

from crowd import services as crowd
from crowd.models import HitType, Tier
from paracrowd.sample_size import MINIMUM, small_sample_warning
from research.ratings.services import rating_submit
from research.system_scoring import FEW_PAIRS
from scoring.models import ParaphraseComparisonReport
from tests.factories import make_researcher, make_staff, make_worker
from tests.research.ratings import make_batch

ANECDOTE = "read as anecdote"


def test_the_warning_starts_below_the_one_minimum():
    assert small_sample_warning(MINIMUM - 1, "pairs") == "fewer than 30 pairs: read as anecdote"
    assert small_sample_warning(MINIMUM, "pairs") is None
    # The system comparison's small-sample warning follows the same rule.
    assert FEW_PAIRS == MINIMUM


def comparison_page(client, sentences: int) -> str:
    ParaphraseComparisonReport.objects.create(
        language="en",
        state=ParaphraseComparisonReport.State.DONE,
        result={
            "signature": "pinc",
            "sentences": sentences,
            "paraphrases": sentences,
            "descriptions": sentences,
            "direct_pinc": 70.0,
            "described_pinc": 78.0,
            "difference": {"difference": -8.0, "low": -9.0, "high": -7.0, "p_value": 0.001},
            "bootstrap_samples": 1000,
            "seed": 1,
        },
    )
    client.force_login(make_staff())
    html = client.get(reverse("scoring:corpus") + "?language=en").content.decode()
    return html.split('id="comparison-difference"')[1].split("</p>")[0]


@pytest.mark.django_db
def test_a_comparison_over_three_sentences_is_marked_as_anecdote(client):
    paragraph = comparison_page(client, 3)
    assert "(n = 3)" in paragraph
    assert "fewer than 30 sentences: read as anecdote" in paragraph


@pytest.mark.django_db
def test_a_comparison_over_enough_sentences_shows_its_size_without_warning(client):
    paragraph = comparison_page(client, 30)
    assert "(n = 30)" in paragraph and ANECDOTE not in paragraph


def rate_all(worker):
    """``worker`` rates every item offered to them, item n as (n % 4 + 1) on every dimension."""
    while assignment := crowd.assignment_claim(
        worker=worker, tier=Tier.ONE, kind=HitType.Kind.RATING
    ):
        value = int(assignment.hit.item.ratingitem.candidate.split()[-1]) % 4 + 1
        rating_submit(
            assignment_id=assignment.pk,
            worker=worker,
            values={"semantic": value, "dissimilarity": value, "overall": value},
        )


def batch_tables(client, items: int, judges: int) -> tuple[str, str]:
    batch = make_batch(
        pairs=[("A man plays.", f"candidate {n}") for n in range(items)], judges=judges
    )
    for _ in range(judges):
        rate_all(make_worker())
    client.force_login(make_researcher())
    page = client.get(reverse("research:rating_batch", args=[batch.pk])).content.decode()
    summary = page.split('id="rating-summary"')[1].split("</table>")[0]
    reliability = page.split('id="judge-reliability"')[1].split("</table>")[0]
    return summary, reliability


@pytest.mark.django_db
def test_a_batch_rated_twice_per_judge_marks_its_agreement_and_reliabilities(client):
    summary, reliability = batch_tables(client, items=2, judges=2)
    # Two items, two judges: two ordered pairs of judgements each, and two ratings a judge.
    assert "(n = 4) <strong" in summary and "fewer than 30 pairs of judgements" in summary
    assert "fewer than 30 items: read as anecdote" in summary
    assert "(n = 2)" in reliability and "fewer than 30 ratings: read as anecdote" in reliability


@pytest.mark.django_db
def test_a_batch_with_enough_ratings_shows_its_sizes_without_warning(client):
    summary, reliability = batch_tables(client, items=MINIMUM, judges=2)
    assert "(n = 60)" in summary and "(n = 30)" in summary and ANECDOTE not in summary
    assert "(n = 30)" in reliability and ANECDOTE not in reliability


def agreement_row(items: int) -> dict:
    return {"label": "corpus", "items": items}


def test_agreement_over_few_pairs_is_marked_and_over_many_is_not():
    few = render_to_string(
        "annotations/agreement_rows.html", {"title": "Corpus", "rows": [agreement_row(3)]}
    )
    assert "(n = 3)" in few and "fewer than 30 pairs: read as anecdote" in few
    many = render_to_string(
        "annotations/agreement_rows.html", {"title": "Corpus", "rows": [agreement_row(120)]}
    )
    assert "(n = 120)" in many and ANECDOTE not in many
