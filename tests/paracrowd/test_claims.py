"""A computation's claim lasts as long as its worker: a report left running by a worker that
died is taken over by the next task at once; one a live worker holds is left to it."""

import pytest
from django.db import connection
from django.utils import timezone

from annotations import agreement_store
from annotations.models import AgreementReport
from review.models import OverviewReport
from review.services import overview_report_compute
from tests.conftest import wait_for

pytestmark = pytest.mark.django_db(transaction=True)


def backend_alive(pid: int) -> bool:
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM pg_stat_activity WHERE pid = %s", [pid])
        return cursor.fetchone()[0] > 0


def test_a_report_whose_worker_died_is_taken_over_at_once():
    report = OverviewReport.objects.create(state="running", started_at=timezone.now())
    assert overview_report_compute(report_id=report.pk)
    report.refresh_from_db()
    assert report.state == "done" and report.result is not None


def test_a_report_a_live_worker_holds_is_left_to_it(claim_holder):
    report = OverviewReport.objects.create(state="running", started_at=timezone.now())
    claim_holder(OverviewReport, report.pk)
    assert not overview_report_compute(report_id=report.pk)
    assert OverviewReport.objects.get(pk=report.pk).state == "running"


def test_the_claim_is_free_again_once_its_worker_is_gone(claim_holder):
    report = OverviewReport.objects.create(state="running", started_at=timezone.now())
    worker = claim_holder(OverviewReport, report.pk)
    backend = worker.get_backend_pid()
    worker.close()  # the worker dies: its connection, and the lock, go with it
    wait_for(lambda: not backend_alive(backend))  # PostgreSQL ends the backend a moment later
    assert overview_report_compute(report_id=report.pk)


def test_a_done_report_is_not_computed_again():
    report = OverviewReport.objects.create(state="done", result={"kept": True})
    assert not overview_report_compute(report_id=report.pk)
    assert OverviewReport.objects.get(pk=report.pk).result == {"kept": True}


def test_an_agreement_recomputation_left_by_a_dead_worker_is_retaken():
    AgreementReport.objects.create(pk=1, refreshing_since=timezone.now())
    assert agreement_store.agreement_recompute()
    assert AgreementReport.objects.get(pk=1).refreshing_since is None


def test_an_agreement_recomputation_a_live_worker_runs_is_left_to_it(claim_holder):
    AgreementReport.objects.create(pk=1, refreshing_since=timezone.now())
    claim_holder(AgreementReport, 1)
    assert not agreement_store.agreement_recompute()
