"""Workers arriving from a crowd platform: one local assignment per platform assignment."""

import threading
from datetime import timedelta

import pytest
from django.db import IntegrityError, connection
from django.utils import timezone

from crowd import services as crowd
from crowd.models import ArrivalWindow, Assignment, Tier, Worker
from tests.factories import make_segment, make_worker

pytestmark = pytest.mark.django_db


def arrive(worker_id, assignment_id="3ASSIGN", address="192.0.2.1"):
    return crowd.platform_arrival(
        platform=Worker.Platform.MTURK,
        external_worker_id=worker_id,
        address=address,
        tier=Tier.ONE,
        external_assignment_id=assignment_id,
        external_hit_id="3HIT",
    )


def arrive_together(worker_ids):
    results, errors = [], []
    barrier = threading.Barrier(len(worker_ids))

    def run(worker_id):
        try:
            barrier.wait()
            results.append(arrive(worker_id))
        except Exception as error:  # inspected by the caller
            errors.append(error)
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(w,)) for w in worker_ids]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return results, errors


def test_the_database_refuses_two_local_assignments_for_one_platform_assignment():
    make_segment()
    make_segment()
    crowd.assignment_claim(worker=make_worker(), tier=Tier.ONE, external_assignment_id="3X")
    with pytest.raises(IntegrityError):
        crowd.assignment_claim(worker=make_worker(), tier=Tier.ONE, external_assignment_id="3X")


def test_a_reload_by_a_blocked_worker_still_gives_back_their_task():
    make_segment()
    first = arrive("A1WORKER")
    crowd.worker_block(worker=first.worker, blocked_by=None, reason="test")
    assert arrive("A1WORKER").pk == first.pk


@pytest.mark.django_db(transaction=True)
def test_one_worker_arriving_twice_at_once_gets_one_assignment():
    make_segment()
    make_segment()
    results, errors = arrive_together(["A1WORKER", "A1WORKER"])
    assert errors == []
    assert len({a.pk for a in results}) == 1
    assert Assignment.objects.count() == 1 and Worker.objects.count() == 1


@pytest.mark.django_db(transaction=True)
def test_two_workers_arriving_at_once_with_one_assignment_id_end_in_one_assignment():
    make_segment()
    make_segment()
    results, errors = arrive_together(["A1WORKER", "A2WORKER"])
    assert len(results) == 1 and len(errors) == 1
    assert isinstance(errors[0], crowd.WorkRefused)
    assert Assignment.objects.count() == 1
    # The refused arrival stored nothing, not even its worker.
    assert Worker.objects.get() == results[0].worker


def test_counts_of_past_hours_are_forgotten():
    now = timezone.now()
    ArrivalWindow.objects.create(address="192.0.2.1", hour=now - timedelta(hours=2), count=5)
    make_segment()
    arrive("A1WORKER")
    assert crowd.arrival_windows_forget() == 1
    assert ArrivalWindow.objects.get().count == 1
