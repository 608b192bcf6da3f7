"""Ratings analysed from the research page and the API: a Celery job computes Table 4 and
Figure 4; the page shows them, refuses bad files naming the line, and lets staff store the
fitted combined score."""

import csv
import io

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse
from rest_framework.test import APIClient

from paracrowd_metrics.ratings_analysis import AnalysisOptions
from paracrowd_metrics.testing import simulated_ratings
from research import services
from research.correlation import correlation_parameters
from research.models import CorrelationReport
from scoring.models import CombinedSetting
from scoring.services import combined_parameters
from tests.conftest import wait_for
from tests.factories import make_researcher, make_staff, make_worker


def ratings_csv(count=40, change=None) -> str:
    out = io.StringIO()
    columns = ["source", "candidate", "semantic", "dissimilarity", "overall", "judge"]
    writer = csv.DictWriter(out, fieldnames=[*columns, "references"])
    writer.writeheader()
    for n, record in enumerate(simulated_ratings(count=count, references=8)):
        row = {
            "source": record.source,
            "candidate": record.candidate,
            **record.ratings,
            "judge": record.judge,
            "references": " ||| ".join(record.references),
        }
        writer.writerow(change(n, row) if change else row)
    return out.getvalue()


OPTIONS = {"draws": "2", "bootstrap": "50", "folds": "3", "seed": "1", "references": "1,2,all"}


def upload(client, text, name="ratings.csv", **options):
    data = {**OPTIONS, "with_source": "on", "ratings": SimpleUploadedFile(name, text.encode())}
    return client.post(reverse("research:correlations"), data | options)


@pytest.mark.django_db
def test_workers_are_refused_and_visitors_sent_to_log_in(client):
    assert client.get(reverse("research:correlations")).status_code == 302
    client.force_login(make_worker().user)
    assert client.get(reverse("research:correlations")).status_code == 403
    assert upload(client, ratings_csv()).status_code == 403
    assert not CorrelationReport.objects.exists()


@pytest.mark.django_db
@pytest.mark.parametrize(
    "text, message",
    [
        (
            ratings_csv(change=lambda n, r: r | {"overall": "seven"} if n == 5 else r),
            "ratings.csv:7: overall",
        ),
        (
            ratings_csv(change=lambda n, r: r | {"references": ""} if n == 3 else r),
            "ratings.csv:5: no references and no cluster",
        ),
        ("source,candidate,overall\na,b,2\n", "missing columns: references or cluster"),
        (ratings_csv(count=2), "2 rated pairs; at least 3"),
    ],
)
def test_a_bad_file_is_refused_naming_the_line_and_nothing_is_stored(client, text, message):
    client.force_login(make_researcher())
    response = upload(client, text)
    assert response.status_code == 400
    assert message in response.content.decode()
    assert not CorrelationReport.objects.exists()


@pytest.mark.django_db
def test_bad_options_are_shown_on_their_fields(client):
    client.force_login(make_researcher())
    response = upload(client, ratings_csv(), references="0,all", draws="500")
    page = response.content.decode()
    assert response.status_code == 400
    assert 'id="field-draws"' in page and "invalid" in page
    assert not CorrelationReport.objects.exists()


def test_an_uploaded_file_is_analysed_by_a_celery_worker_and_shown(client, live_worker):
    user = make_researcher()
    client.force_login(user)
    response = upload(client, ratings_csv())
    report = CorrelationReport.objects.get()
    assert response.status_code == 302 and response["Location"].endswith(f"/{report.pk}/")

    wait_for(lambda: not CorrelationReport.objects.get().is_pending, seconds=120)
    report.refresh_from_db()
    assert report.state == "done", report.error
    assert list(report.result["by_references"]) == ["1", "2", "all"]
    assert "by_references_with_source" in report.result
    page = client.get(response["Location"]).content.decode()
    assert page.count("<h1") == 1
    for text in ["Judge A vs. B", "PINC where BLEU &gt; 60", "out of fold", "<svg", "polyline"]:
        assert text in page
    assert "read from the data" in page  # the page states no scale: it says it guessed one
    assert "semantic, with the source" in page
    # Only staff may change the site's combined score.
    assert "site's combined score</button>" not in page
    store = reverse("research:correlation_store_combined", args=[report.pk])
    assert client.post(store).status_code == 403
    assert not CombinedSetting.objects.exists()


@pytest.mark.django_db
def test_staff_store_the_fitted_centre_and_slope_as_the_sites(client):
    owner = make_researcher()
    report = CorrelationReport.objects.create(
        requested_by=owner,
        name="r.csv",
        ratings_csv=ratings_csv(),
        parameters=correlation_parameters(
            text=ratings_csv(),
            name="r.csv",
            options=AnalysisOptions(draws=2, resamples=50, folds=3),
            dimension=None,
            meteor=False,
        ),
    )
    # The job as a worker runs it, in this process.
    assert services.correlation_report_run(report_id=report.pk)
    report.refresh_from_db()
    client.force_login(make_staff())
    page = client.get(reverse("research:correlation", args=[report.pk])).content.decode()
    assert "site's combined score</button>" in page
    response = client.post(reverse("research:correlation_store_combined", args=[report.pk]))
    assert response.status_code == 302
    fit = report.result["combined"]["overall"]
    assert combined_parameters() == (fit["centre"], fit["slope"])
    assert CombinedSetting.objects.get().dimension == "overall"


@pytest.mark.django_db
def test_a_researcher_sees_only_their_own_analyses(client):
    mine, theirs = make_researcher(), make_researcher()
    report = CorrelationReport.objects.create(
        requested_by=theirs, name="theirs.csv", ratings_csv="x", parameters={}
    )
    client.force_login(mine)
    assert client.get(reverse("research:correlation", args=[report.pk])).status_code == 404
    assert "theirs.csv" not in client.get(reverse("research:correlations")).content.decode()
    api = APIClient()
    api.force_authenticate(mine)
    assert api.get(reverse("research-api:correlation", args=[report.pk])).status_code == 404


@pytest.mark.django_db
def test_the_api_accepts_the_job_with_202_and_gives_the_result_when_done():
    api = APIClient()
    api.force_authenticate(make_researcher())
    body = {"ratings_csv": ratings_csv(), "draws": 2, "bootstrap": 50, "folds": 3, "meteor": False}
    response = api.post(reverse("research-api:correlations"), body, format="json")
    assert response.status_code == 202, response.content
    job = response.json()
    assert response["Location"] == job["url"] and job["state"] == "queued"
    assert job["result"] is None
    services.correlation_report_run(report_id=job["id"])
    done = api.get(job["url"]).json()
    assert done["state"] == "done"
    assert set(done["result"]["by_references"]["all"]) >= {"bleu", "pinc", "combined"}
    listed = api.get(reverse("research-api:correlations")).json()
    assert [row["id"] for row in listed["results"]] == [job["id"]]


@pytest.mark.django_db
def test_the_api_refuses_bad_files_and_strangers():
    api = APIClient()
    assert api.post(reverse("research-api:correlations"), {}, format="json").status_code in (
        401,
        403,
    )
    api.force_authenticate(make_worker().user)
    assert api.get(reverse("research-api:correlations")).status_code == 403
    api.force_authenticate(make_researcher())
    bad = ratings_csv(change=lambda n, r: r | {"semantic": "good"} if n == 0 else r)
    response = api.post(reverse("research-api:correlations"), {"ratings_csv": bad}, format="json")
    assert response.status_code == 400
    assert "ratings.csv:2: semantic 'good' is not a number" in response.json()["ratings_csv"][0]
    response = api.post(
        reverse("research-api:correlations"),
        {"ratings_csv": ratings_csv(), "references": "1,x"},
        format="json",
    )
    assert response.status_code == 400 and "references" in response.json()
    assert not CorrelationReport.objects.exists()


@pytest.mark.django_db
def test_staff_are_not_offered_to_store_a_fit_that_failed(client):
    # Six candidates that differ in one word: BLEU and PINC hardly vary, and no centre fits.
    ratings = "source,candidate,rating,references\n" + "".join(
        f"a man sings,a man sings {n},{1 + n % 4},a man is singing ||| someone sings\n"
        for n in range(6)
    )
    report = CorrelationReport.objects.create(
        requested_by=make_researcher(),
        name="flat.csv",
        ratings_csv=ratings,
        parameters=correlation_parameters(
            text=ratings,
            name="flat.csv",
            options=AnalysisOptions(draws=2, resamples=20, folds=3),
            dimension=None,
            meteor=False,
        ),
    )
    assert services.correlation_report_run(report_id=report.pk)
    client.force_login(make_staff())
    page = client.get(reverse("research:correlation", args=[report.pk])).content.decode()
    # The button could only answer "Not stored": the page says why instead.
    assert "site's combined score</button>" not in page
    assert "No centre and slope could be fitted to rating" in page
