"""The collection overview: a report row computed by a Celery worker (by beat, or when staff
ask), which the page shows with its computation time and age."""

from datetime import timedelta

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from paracrowd.wording import counted
from review.models import OverviewReport
from review.reports import Period
from review.services import overview_report_compute, overview_report_request
from review.tasks import compute_overview, refresh_overview
from tests.conftest import wait_for
from tests.factories import make_submitted_description, make_worker


@pytest.fixture
def staff(client, admin_user):
    client.force_login(admin_user)
    return admin_user


def describe(n: int) -> None:
    worker = make_worker()
    for i in range(n):
        make_submitted_description(worker, f"A man throws ball number {i}.")


@pytest.mark.django_db
def test_an_overview_never_computed_says_so_and_is_queued(client, staff):
    page = client.get(reverse("review:overview")).content.decode()
    assert "Not computed yet" in page and page.count("<h1") == 1
    report = OverviewReport.objects.get()
    assert report.state == OverviewReport.State.QUEUED
    assert (report.since, report.until) == (None, None)


@pytest.mark.django_db
def test_computing_the_overview_twice_computes_it_once():
    describe(2)
    report_id = refresh_overview()
    assert compute_overview(report_id)
    report = OverviewReport.objects.get()
    assert report.state == OverviewReport.State.DONE and report.seconds is not None
    assert report.result["activity"]["totals"]["descriptions"] == 2
    assert not compute_overview(report_id)
    assert OverviewReport.objects.get().computed_at == report.computed_at


@pytest.mark.django_db
def test_an_overview_claimed_by_one_worker_is_not_computed_by_another(claim_holder):
    report = overview_report_request(period=Period())
    OverviewReport.objects.filter(pk=report.pk).update(
        state=OverviewReport.State.RUNNING, started_at=timezone.now()
    )
    claim_holder(OverviewReport, report.pk)
    assert not overview_report_compute(report_id=report.pk)
    assert OverviewReport.objects.get().result is None
    assert refresh_overview() == report.pk
    assert OverviewReport.objects.get().state == OverviewReport.State.RUNNING


@pytest.mark.django_db
def test_each_period_has_its_own_report():
    today = timezone.localdate()
    week = Period(today - timedelta(days=6), today)
    assert overview_report_request(period=week).pk == overview_report_request(period=week).pk
    assert overview_report_request(period=Period()).pk != overview_report_request(period=week).pk
    assert OverviewReport.objects.count() == 2


@pytest.mark.django_db
@pytest.mark.parametrize("descriptions", [1, 15])
def test_the_overview_takes_the_same_queries_however_many_descriptions(
    client, staff, django_assert_num_queries, descriptions
):
    describe(descriptions)
    compute_overview(refresh_overview())
    client.get(reverse("review:overview"))  # the session, once
    with django_assert_num_queries(2):  # the user (the session is in the cache), the report
        page = client.get(reverse("review:overview")).content.decode()
    assert f"{counted(descriptions, 'description')} and" in page and "Computed" in page


@pytest.mark.django_db
def test_staff_ask_for_a_period_and_the_page_keeps_the_last_figures_meanwhile(client, staff):
    describe(1)
    compute_overview(refresh_overview())
    response = client.post(reverse("review:overview_refresh"))
    assert response.status_code == 302
    page = client.get(reverse("review:overview")).content.decode()
    assert 'id="overview-pending"' in page and "1 description and" in page
    today = timezone.localdate().isoformat()
    response = client.post(reverse("review:overview_refresh"), {"since": today, "until": today})
    assert response["Location"].endswith(f"?since={today}&until={today}")
    assert OverviewReport.objects.filter(since=timezone.localdate()).exists()


@pytest.mark.django_db
def test_a_period_that_ends_before_it_starts_is_refused(client, staff):
    response = client.post(
        reverse("review:overview_refresh"), {"since": "2024-02-02", "until": "2024-02-01"}
    )
    assert response.status_code == 302
    assert not OverviewReport.objects.exists()


@pytest.mark.django_db
def test_workers_cannot_ask_for_the_overview(client):
    client.force_login(make_worker().user)
    response = client.post(reverse("review:overview_refresh"))
    assert response.status_code == 403
    assert not OverviewReport.objects.exists()


@pytest.mark.django_db
def test_asking_for_the_overview_needs_the_csrf_token_and_a_post(admin_user):
    client = Client(enforce_csrf_checks=True)
    client.force_login(admin_user)
    assert client.post(reverse("review:overview_refresh")).status_code == 403
    assert client.get(reverse("review:overview_refresh")).status_code == 405
    assert not OverviewReport.objects.exists()


def test_the_overview_asked_for_on_the_page_is_computed_by_a_worker(live_worker, admin_user):
    describe(3)
    client = Client()
    client.force_login(admin_user)
    client.post(reverse("review:overview_refresh"))
    wait_for(lambda: OverviewReport.objects.filter(state="done").exists())
    page = client.get(reverse("review:overview")).content.decode()
    assert "3 descriptions and" in page and 'id="overview-pending"' not in page
