"""The reference curve: asked for by staff on the corpus page, computed by a Celery worker,
kept as a report row that the page shows with its computation time."""

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from scoring.models import ReferenceCurveReport
from scoring.services import reference_curve_compute, reference_curve_request, segments_score
from tests.conftest import wait_for
from tests.factories import make_description, make_segment, make_worker

PARAMETERS = {"language": "en", "clusters": "10", "per_cluster": "3", "seed": "7"}


def make_clusters(n: int) -> None:
    segments = []
    for i in range(n):
        segment = make_segment()
        for text in ["A man plays a guitar.", f"A man strums guitar {i}.", "Someone plays music."]:
            make_description(segment, text)
        segments.append(segment.pk)
    segments_score(segment_ids=segments)


def ask(**parameters) -> ReferenceCurveReport:
    return reference_curve_request(
        **{"language": "en", "clusters": 10, "per_cluster": 3, "seed": 7, **parameters}
    )


@pytest.fixture
def staff(client, admin_user):
    client.force_login(admin_user)
    return admin_user


@pytest.mark.django_db
def test_computing_a_report_twice_computes_it_once():
    make_clusters(3)
    report = ask()
    assert report.state == ReferenceCurveReport.State.QUEUED
    assert reference_curve_compute(report_id=report.pk)
    report.refresh_from_db()
    assert report.state == ReferenceCurveReport.State.DONE
    assert [point["references"] for point in report.result] == ["1", "2", "4", "8", "16", "all"]
    assert report.result[0]["sentences"] == 9 and report.seconds is not None
    assert not reference_curve_compute(report_id=report.pk)
    again = ReferenceCurveReport.objects.get()
    assert (again.computed_at, again.result) == (report.computed_at, report.result)


@pytest.mark.django_db
def test_a_report_claimed_by_one_worker_is_not_computed_by_another(claim_holder):
    make_clusters(2)
    report = ask()
    ReferenceCurveReport.objects.filter(pk=report.pk).update(
        state=ReferenceCurveReport.State.RUNNING, started_at=timezone.now()
    )
    claim_holder(ReferenceCurveReport, report.pk)
    assert not reference_curve_compute(report_id=report.pk)
    assert ReferenceCurveReport.objects.get().result is None
    # Asking again leaves the running computation alone.
    assert ask().state == ReferenceCurveReport.State.RUNNING


@pytest.mark.django_db
def test_a_claim_whose_worker_is_gone_is_taken_over_at_once():
    make_clusters(2)
    report = ask()
    ReferenceCurveReport.objects.filter(pk=report.pk).update(
        state=ReferenceCurveReport.State.RUNNING, started_at=timezone.now()
    )
    assert reference_curve_compute(report_id=report.pk)
    assert ReferenceCurveReport.objects.get().state == ReferenceCurveReport.State.DONE


@pytest.mark.django_db
def test_asking_again_for_a_computed_curve_queues_it_and_keeps_the_last_result(client, staff):
    make_clusters(2)
    report = ask()
    reference_curve_compute(report_id=report.pk)
    response = client.post(reverse("scoring:reference_curve"), PARAMETERS)
    assert response.status_code == 302
    report = ReferenceCurveReport.objects.get()
    assert report.state == ReferenceCurveReport.State.QUEUED and report.result
    page = client.get(reverse("scoring:corpus")).content.decode()
    assert 'id="curve-pending"' in page and 'id="curve-computed"' in page


@pytest.mark.django_db
def test_a_failed_computation_says_why_on_the_page(client, staff):
    report = ask(language="xx")
    ReferenceCurveReport.objects.filter(pk=report.pk).update(
        state=ReferenceCurveReport.State.FAILED, error="ValueError: no clusters"
    )
    page = client.get(reverse("scoring:corpus"), {"language": "xx"}).content.decode()
    assert "ValueError: no clusters" in page


@pytest.mark.django_db
@pytest.mark.parametrize("clusters", [2, 12])
def test_the_corpus_page_takes_the_same_queries_however_large_the_corpus(
    client, staff, django_assert_num_queries, clusters
):
    make_clusters(clusters)
    report = ask(clusters=clusters)
    reference_curve_compute(report_id=report.pk)
    client.get(reverse("scoring:corpus"))  # the session, once
    # The user (the session is read from the cache), the report, the comparison of direct
    # paraphrases, the summary's three counts and the distributions' counts: none of them grows
    # with the corpus, and no BLEU is computed.
    with django_assert_num_queries(10):
        response = client.get(reverse("scoring:corpus"))
    assert f"Sample of {clusters} clusters" in response.content.decode()


@pytest.mark.django_db
def test_workers_cannot_ask_for_a_curve(client):
    client.force_login(make_worker().user)
    response = client.post(reverse("scoring:reference_curve"), PARAMETERS)
    assert response.status_code == 403
    assert not ReferenceCurveReport.objects.exists()


@pytest.mark.django_db
def test_asking_for_a_curve_needs_the_csrf_token_and_a_post(admin_user):
    client = Client(enforce_csrf_checks=True)
    client.force_login(admin_user)
    assert client.post(reverse("scoring:reference_curve"), PARAMETERS).status_code == 403
    assert client.get(reverse("scoring:reference_curve")).status_code == 405
    assert not ReferenceCurveReport.objects.exists()


def test_a_curve_asked_for_on_the_page_is_computed_by_a_worker(live_worker, admin_user):
    make_clusters(3)
    client = Client()
    client.force_login(admin_user)
    client.post(reverse("scoring:reference_curve"), PARAMETERS)
    wait_for(lambda: ReferenceCurveReport.objects.filter(state="done").exists())
    page = client.get(reverse("scoring:corpus")).content.decode()
    assert "Sample of 10 clusters, 3 descriptions each, seed 7" in page
    assert 'id="curve-pending"' not in page
