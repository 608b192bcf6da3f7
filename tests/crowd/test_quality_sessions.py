"""A worker stopped by the quality rule in the middle of a platform session is told why, and
what they did still completes the session; never an error page."""

import pytest

from crowd import services
from crowd.models import QualityRule, Worker, WorkSession
from tests.crowd.test_sessions import PID, arrive, describe
from tests.factories import make_segment

pytestmark = pytest.mark.django_db


@pytest.fixture
def demo(settings):
    settings.PLATFORM_DEMO = True
    settings.PLATFORM_DEMO_SESSION_TASKS = 3
    return settings


def _stop(worker):
    QualityRule.objects.create(check_kind="gold", warn_after=1, stop_after=1, window=5)
    services.quality_check_record(worker=worker, kind="gold", source="t:1", passed=False)


def test_a_worker_stopped_mid_session_is_told_why_and_the_session_completes(client, demo):
    for _ in range(3):
        make_segment()
    describe(client, arrive(client), "A man is slicing a tomato.")
    _stop(Worker.objects.get(external_id=PID))
    response = arrive(client)
    assert response.status_code == 200
    page = response.content.decode()
    assert services.quality.STOP_MESSAGE in page
    assert "You did 1 task" in page
    assert WorkSession.objects.get().state == WorkSession.State.FINISHED


def test_a_worker_stopped_before_any_task_is_told_why_and_the_session_ends(client, demo):
    for _ in range(3):
        make_segment()
    arrive(client)
    worker = Worker.objects.get(external_id=PID)
    services.assignment_return(assignment_id=worker.assignments.get().pk, worker=worker)
    _stop(worker)
    response = arrive(client)
    assert response.status_code == 200
    page = response.content.decode()
    assert services.quality.STOP_MESSAGE in page and "Your session has ended" in page
    assert WorkSession.objects.get().failed_check
