"""The judges of a pair combined by their mean or by the Dawid–Skene estimate, as the
research page and the API ask for it: the choice is checked before anything is stored,
kept with the report, and the result shows each judge's reliability."""

import pytest
from django.urls import reverse
from rest_framework.test import APIClient

from paracrowd_metrics.rating_consensus import METHODS
from paracrowd_metrics.ratings_analysis import AnalysisOptions
from research import services
from research.correlation import CONSENSUS_LABELS, correlation_parameters
from research.models import CorrelationReport
from tests.conftest import wait_for
from tests.factories import make_researcher
from tests.research.test_correlation_reports import ratings_csv, upload

QUICK = {"draws": 2, "bootstrap": 50, "folds": 3, "meteor": False}
# A judge's name is whatever the file says: shown escaped.
MARKED_UP = "<b>Ann</b>"


def judge_marked_up(n, row):
    return row | {"judge": MARKED_UP} if row["judge"] == "A" else row


def without_judges(n, row):
    return row | {"judge": ""}


def continuous(n, row):
    # A different overall rating on each of the 80 rows: a continuous scale, not categories.
    return row | {"overall": f"{1 + n * 3 / 80:.4f}"}


def post(api, **body):
    return api.post(reverse("research-api:correlations"), QUICK | body, format="json")


def test_the_api_weights_judges_by_reliability_and_the_page_shows_it(client, live_worker):
    user = make_researcher()
    api = APIClient()
    api.force_authenticate(user)
    response = post(api, ratings_csv=ratings_csv(change=judge_marked_up), consensus="dawid-skene")
    assert response.status_code == 202, response.content
    assert response.json()["consensus"] == "dawid-skene"

    wait_for(lambda: not CorrelationReport.objects.get().is_pending, seconds=120)
    done = api.get(response["Location"]).json()
    assert done["state"] == "done", done["error"]
    assert done["consensus"] == done["parameters"]["consensus"] == "dawid-skene"
    assert done["result"]["consensus"] == "dawid-skene"
    reliability = done["result"]["judge_reliability"]
    assert {row["judge"] for row in reliability} == {MARKED_UP, "B"}
    for row in reliability:
        assert row["ratings"] == 40
        assert set(row["reliability"]) == {"semantic", "dissimilarity", "overall"}
        assert all(0 < value < 1 for value in row["reliability"].values())

    client.force_login(user)
    page = client.get(reverse("research:correlation", args=[done["id"]])).content.decode()
    assert "combined by Dawid–Skene, each judge weighted by their reliability" in page
    assert 'id="reliability"' in page and "Judges' reliability</h2>" in page
    assert "&lt;b&gt;Ann&lt;/b&gt;" in page and MARKED_UP not in page
    overall = next(row for row in reliability if row["judge"] == "B")["reliability"]["overall"]
    assert f"<td>{overall:.3f}</td>" in page


@pytest.mark.django_db
def test_a_consensus_the_api_does_not_know_answers_400_naming_the_choices():
    api = APIClient()
    api.force_authenticate(make_researcher())
    response = post(api, ratings_csv=ratings_csv(), consensus="median")
    assert response.status_code == 400
    assert response.json()["consensus"] == [
        '"median" is not a consensus; choose mean or dawid-skene.'
    ]
    assert not CorrelationReport.objects.exists()


@pytest.mark.django_db
@pytest.mark.parametrize(
    "change, message",
    [
        (without_judges, "ratings.csv:2: no judge named; weighting judges by their reliability"),
        (
            continuous,
            "overall: 80 different rating values; Dawid–Skene weighs judges over at most 21",
        ),
    ],
)
def test_ratings_dawid_skene_cannot_weigh_are_refused_on_the_consensus(change, message):
    api = APIClient()
    api.force_authenticate(make_researcher())
    text = ratings_csv(change=change)
    response = post(api, ratings_csv=text, consensus="dawid-skene")
    assert response.status_code == 400
    assert message in response.json()["consensus"][0]
    assert not CorrelationReport.objects.exists()
    # Their mean is another matter.
    assert post(api, ratings_csv=text).status_code == 202


def test_the_page_names_every_consensus_the_analysis_knows():
    assert tuple(CONSENSUS_LABELS) == METHODS


@pytest.mark.django_db
def test_the_page_offers_the_consensus_and_shows_a_refusal_on_its_field(client):
    client.force_login(make_researcher())
    page = client.get(reverse("research:correlations")).content.decode()
    assert '<label for="id_consensus">' in page
    assert '<option value="mean" selected>their mean</option>' in page
    assert '<option value="dawid-skene">' in page

    response = upload(client, ratings_csv(change=without_judges), consensus="dawid-skene")
    page = response.content.decode()
    assert response.status_code == 400
    assert 'id="field-consensus"' in page and "no judge named" in page
    response = upload(client, ratings_csv(), consensus="median")
    assert response.status_code == 400
    assert "median is not one of the available choices" in response.content.decode()
    assert not CorrelationReport.objects.exists()


@pytest.mark.django_db
def test_a_report_asked_for_before_the_choice_averaged_its_judges(client):
    user = make_researcher()
    parameters = correlation_parameters(
        text=ratings_csv(),
        name="r.csv",
        options=AnalysisOptions(draws=2, resamples=50, folds=3),
        dimension=None,
        meteor=False,
    )
    assert parameters.pop("consensus") == "mean"
    report = CorrelationReport.objects.create(
        requested_by=user, name="r.csv", ratings_csv=ratings_csv(), parameters=parameters
    )
    assert services.correlation_report_run(report_id=report.pk)
    report.refresh_from_db()
    assert report.result["consensus"] == "mean" and "judge_reliability" not in report.result
    client.force_login(user)
    page = client.get(reverse("research:correlation", args=[report.pk])).content.decode()
    assert "A pair's judges combined by their mean." in page
    assert 'id="reliability"' not in page
    api = APIClient()
    api.force_authenticate(user)
    assert api.get(reverse("research-api:correlation", args=[report.pk])).json()["consensus"] == (
        "mean"
    )
