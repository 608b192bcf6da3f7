"""An expired task is offered again to the worker who let it expire, as the same assignment,
with every guarantee of the claim kept (crowd/migrations/0008_reopen_expired_assignments)."""

import threading
from datetime import timedelta

import pytest
from django.db import connection
from django.utils import timezone

from collector import services
from crowd import services as crowd
from crowd.models import Assignment, Hit, Tier
from tests.factories import make_segment, make_worker

pytestmark = pytest.mark.django_db


def _expire(assignment, *, sweep=True):
    Assignment.objects.filter(pk=assignment.pk).update(
        expires_at=timezone.now() - timedelta(minutes=1)
    )
    if sweep:
        crowd.assignments_expire()


@pytest.mark.parametrize("sweep", [True, False], ids=["marked expired", "deadline passed"])
def test_an_expired_task_is_offered_again_as_the_same_assignment(sweep):
    segment = make_segment()
    worker = make_worker()
    first = crowd.assignment_claim(worker=worker, tier=Tier.ONE)
    _expire(first, sweep=sweep)
    assert Hit.objects.open_to(worker).filter(item__segment=segment, tier=Tier.ONE).exists()

    again = crowd.assignment_claim(worker=worker, tier=Tier.ONE)

    assert again.pk == first.pk
    assert again.status == Assignment.Status.ASSIGNED
    assert again.expires_at > timezone.now()
    assert Assignment.objects.filter(worker=worker).count() == 1
    description, created = services.description_submit(
        assignment_id=again.pk, worker=worker, text="A cat sleeps.", language="en"
    )
    assert created and segment.hits.get(tier=Tier.ONE).submitted_count == 1


def test_a_task_expired_while_others_filled_the_segment_is_not_offered_again():
    make_segment(targets=(1, 1))
    slow, quick = make_worker(), make_worker()
    late = crowd.assignment_claim(worker=slow, tier=Tier.ONE)
    _expire(late)
    taken = crowd.assignment_claim(worker=quick, tier=Tier.ONE)
    assert crowd.assignment_claim(worker=slow, tier=Tier.ONE) is None  # held by quick
    services.description_submit(
        assignment_id=taken.pk, worker=quick, text="A man sings.", language="en"
    )
    assert crowd.assignment_claim(worker=slow, tier=Tier.ONE) is None  # full
    assert not Hit.objects.open_to(slow).filter(tier=Tier.ONE).exists()
    late.refresh_from_db()
    assert late.status == Assignment.Status.EXPIRED


@pytest.mark.parametrize("done", ["submitted", "rejected", "returned"])
def test_submitted_rejected_or_skipped_work_is_never_reopened(done):
    make_segment()
    worker = make_worker()
    assignment = crowd.assignment_claim(worker=worker, tier=Tier.ONE)
    if done == "returned":
        crowd.assignment_return(assignment_id=assignment.pk, worker=worker)
    else:
        services.description_submit(
            assignment_id=assignment.pk, worker=worker, text="A dog runs.", language="en"
        )
        if done == "rejected":
            crowd.assignment_reject(assignment_ids=[assignment.pk])
    Assignment.objects.filter(pk=assignment.pk).update(
        expires_at=timezone.now() - timedelta(minutes=1)
    )

    assert crowd.assignment_claim(worker=worker, tier=Tier.ONE) is None
    assert not Hit.objects.open_to(worker).filter(tier=Tier.ONE).exists()
    assignment.refresh_from_db()
    assert assignment.status == done


def test_a_platform_assignment_that_expired_stays_as_the_platform_knows_it():
    make_segment()
    worker = make_worker()
    platform = crowd.assignment_claim(
        worker=worker, tier=Tier.ONE, external_assignment_id="ASSIGNMENT-1"
    )
    _expire(platform)
    assert crowd.assignment_claim(worker=worker, tier=Tier.ONE) is None
    platform.refresh_from_db()
    assert (platform.status, platform.external_assignment_id) == ("expired", "ASSIGNMENT-1")


def test_the_held_tasks_are_the_open_ones_soonest_deadline_first():
    make_segment(), make_segment()
    worker = make_worker(tier=Tier.TWO)
    one = crowd.assignment_claim(worker=worker, tier=Tier.ONE)
    two = crowd.assignment_claim(worker=worker, tier=Tier.TWO)
    Assignment.objects.filter(pk=two.pk).update(expires_at=one.expires_at - timedelta(minutes=1))
    assert list(crowd.assignments_held(worker=worker)) == [two, one]
    _expire(two, sweep=False)
    assert list(crowd.assignments_held(worker=worker, kind="description")) == [one]


@pytest.mark.django_db(transaction=True)
def test_a_reopening_racing_a_rival_and_a_late_submission_never_doubles_or_overfills():
    # One place; its first holder let it expire. At the same instant the holder asks again
    # (twice), submits late, and two rivals ask: one submission at most, one live holder at most
    # (a late submission may still land beside a rival's live hold, as before: the rival then
    # finds the place full).
    segment = make_segment(targets=(1, 1))
    slow, rivals = make_worker(), [make_worker(), make_worker()]
    late = crowd.assignment_claim(worker=slow, tier=Tier.ONE)
    _expire(late)
    barrier = threading.Barrier(5)
    claimed, errors = [], []

    def run(action):
        try:
            barrier.wait()
            action()
        except crowd.WorkRefused:
            pass  # the late submission lost to a rival that filled the place
        except Exception as error:  # surfaced by the assertion below
            errors.append(error)
        finally:
            connection.close()

    def claim(worker):
        return lambda: claimed.append(crowd.assignment_claim(worker=worker, tier=Tier.ONE))

    def submit_late():
        services.description_submit(
            assignment_id=late.pk, worker=slow, text="A man sings.", language="en"
        )

    actions = [claim(slow), claim(slow), submit_late, *(claim(r) for r in rivals)]
    threads = [threading.Thread(target=run, args=(a,)) for a in actions]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert errors == []
    hit = segment.hits.get(tier=Tier.ONE)
    assert hit.submitted_count == segment.descriptions.count() <= 1
    live = Assignment.objects.filter(
        hit=hit, status=Assignment.Status.ASSIGNED, expires_at__gt=timezone.now()
    )
    assert live.count() <= 1
    assert Assignment.objects.filter(worker=slow).count() == 1
