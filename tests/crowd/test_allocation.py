"""Handing out description work: who gets which segment, and what the database guarantees."""

import threading
from datetime import timedelta

import pytest
from django.db import IntegrityError, connection
from django.db.models import Count
from django.utils import timezone

from collector import services
from crowd import services as crowd
from crowd.models import Assignment, Hit, HitType, Tier
from crowd.services.allocation import session_claim
from tests.factories import make_segment, make_worker

pytestmark = pytest.mark.django_db


def test_it_prefers_the_segment_with_fewest_descriptions():
    busy, quiet = make_segment(), make_segment()
    Hit.objects.filter(item__segment=busy, tier=Tier.ONE).update(submitted_count=3)
    assignment = crowd.assignment_claim(worker=make_worker(), tier=Tier.ONE)
    assert assignment.hit.item.segment == quiet


def test_it_gives_back_the_assignment_a_worker_already_holds():
    make_segment(), make_segment()
    worker = make_worker()
    first = crowd.assignment_claim(worker=worker, tier=Tier.ONE)
    assert crowd.assignment_claim(worker=worker, tier=Tier.ONE) == first


def test_it_never_offers_a_segment_the_worker_described_in_that_tier():
    segment = make_segment()
    worker = make_worker()
    assignment = crowd.assignment_claim(worker=worker, tier=Tier.ONE)
    services.description_submit(
        assignment_id=assignment.pk, worker=worker, text="A cat sleeps.", language="en"
    )
    assert crowd.assignment_claim(worker=worker, tier=Tier.ONE) is None
    assert segment.hits.get(tier=Tier.ONE).submitted_count == 1


def test_it_never_offers_a_segment_the_worker_had_in_the_other_tier():
    # A worker promoted to Tier 2 does not describe again what they described in Tier 1.
    described, other = make_segment(), make_segment()
    worker = make_worker(tier=Tier.TWO)
    one = crowd.assignment_claim(worker=worker, tier=Tier.ONE)
    services.description_submit(
        assignment_id=one.pk, worker=worker, text="A cat sleeps.", language="en"
    )
    two = crowd.assignment_claim(worker=worker, tier=Tier.TWO)
    assert {one.hit.item.segment, two.hit.item.segment} == {described, other}
    assert two.hit.item.segment != one.hit.item.segment
    # What they hold in Tier 2 is not handed out to them in Tier 1 either.
    assert crowd.assignment_claim(worker=worker, tier=Tier.ONE) is None
    # Nothing is left that this worker has not had in one tier or the other.
    services.description_submit(
        assignment_id=two.pk, worker=worker, text="A dog runs.", language="en"
    )
    assert crowd.assignment_claim(worker=worker, tier=Tier.TWO) is None


@pytest.mark.django_db(transaction=True)
def test_one_worker_claiming_in_both_tiers_at_once_gets_the_segment_once():
    make_segment()
    worker = make_worker(tier=Tier.TWO)
    claimed, errors = [], []

    def claim(tier, barrier):
        try:
            barrier.wait()
            claimed.append(session_claim(worker=worker, tier=tier, kind="description"))
        except Exception as error:  # surfaced by the assertion below
            errors.append(error)
        finally:
            connection.close()

    for _ in range(3):
        barrier = threading.Barrier(4)
        tiers = (Tier.ONE, Tier.TWO, Tier.ONE, Tier.TWO)
        threads = [threading.Thread(target=claim, args=(tier, barrier)) for tier in tiers]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()

    assert errors == []
    assert len([assignment for assignment in claimed if assignment]) == 1
    assert Assignment.objects.filter(worker=worker).count() == 1


def test_it_refuses_tier_two_work_to_a_tier_one_worker():
    make_segment()
    with pytest.raises(crowd.WorkRefused, match="Tier-2"):
        crowd.assignment_claim(worker=make_worker(), tier=Tier.TWO)


def test_it_reserves_room_for_live_assignments():
    make_segment(targets=(1, 1))
    assert crowd.assignment_claim(worker=make_worker(), tier=Tier.ONE) is not None
    assert crowd.assignment_claim(worker=make_worker(), tier=Tier.ONE) is None


def test_an_expired_assignment_frees_its_room_but_is_kept():
    make_segment(targets=(1, 1))
    late = crowd.assignment_claim(worker=make_worker(), tier=Tier.ONE)
    Assignment.objects.filter(pk=late.pk).update(expires_at=timezone.now() - timedelta(seconds=1))
    assert crowd.assignments_expire() == 1
    assert crowd.assignment_claim(worker=make_worker(), tier=Tier.ONE) is not None
    late.refresh_from_db()
    assert late.status == Assignment.Status.EXPIRED


def test_a_late_submission_is_accepted_while_the_segment_is_under_target():
    make_segment()
    worker = make_worker()
    late = crowd.assignment_claim(worker=worker, tier=Tier.ONE)
    Assignment.objects.filter(pk=late.pk).update(expires_at=timezone.now() - timedelta(hours=1))
    crowd.assignments_expire()
    description, created = services.description_submit(
        assignment_id=late.pk, worker=worker, text="A man sings.", language="en"
    )
    assert created and description.assignment.status == Assignment.Status.SUBMITTED


def test_a_late_submission_is_refused_once_the_segment_is_full():
    segment = make_segment(targets=(1, 1))
    slow, quick = make_worker(), make_worker()
    late = crowd.assignment_claim(worker=slow, tier=Tier.ONE)
    Assignment.objects.filter(pk=late.pk).update(expires_at=timezone.now() - timedelta(hours=1))
    crowd.assignments_expire()
    taken = crowd.assignment_claim(worker=quick, tier=Tier.ONE)
    services.description_submit(
        assignment_id=taken.pk, worker=quick, text="A man sings.", language="en"
    )
    with pytest.raises(crowd.WorkRefused, match="all the submissions it needs"):
        services.description_submit(
            assignment_id=late.pk, worker=slow, text="A man is singing.", language="en"
        )
    assert segment.descriptions.count() == 1


def test_submitting_the_same_assignment_twice_stores_one_description():
    segment = make_segment()
    worker = make_worker()
    assignment = crowd.assignment_claim(worker=worker, tier=Tier.ONE)
    first, created = services.description_submit(
        assignment_id=assignment.pk, worker=worker, text="A dog runs.", language="en"
    )
    again, created_again = services.description_submit(
        assignment_id=assignment.pk, worker=worker, text="A dog runs.", language="en"
    )
    assert (created, created_again) == (True, False)
    assert first == again
    assert segment.descriptions.count() == 1
    assert segment.hits.get(tier=Tier.ONE).submitted_count == 1


def test_a_skipped_segment_cannot_be_submitted_or_offered_again():
    make_segment()
    worker = make_worker()
    assignment = crowd.assignment_claim(worker=worker, tier=Tier.ONE)
    crowd.assignment_return(assignment_id=assignment.pk, worker=worker)
    with pytest.raises(crowd.WorkRefused):
        services.description_submit(
            assignment_id=assignment.pk, worker=worker, text="A dog runs.", language="en"
        )
    assert crowd.assignment_claim(worker=worker, tier=Tier.ONE) is None


def test_charlie_cannot_submit_alices_assignment():
    make_segment()
    alice, charlie = make_worker(), make_worker()
    assignment = crowd.assignment_claim(worker=alice, tier=Tier.ONE)
    with pytest.raises(crowd.WorkRefused, match="no such task"):
        services.description_submit(
            assignment_id=assignment.pk, worker=charlie, text="A dog runs.", language="en"
        )


def test_the_database_refuses_a_second_assignment_for_the_same_worker_and_hit():
    make_segment()
    worker = make_worker()
    assignment = crowd.assignment_claim(worker=worker, tier=Tier.ONE)
    with pytest.raises(IntegrityError):
        Assignment.objects.create(hit=assignment.hit, worker=worker, expires_at=timezone.now())


def test_the_database_refuses_a_hit_over_its_target():
    segment = make_segment(targets=(1, 1))
    with pytest.raises(IntegrityError):
        Hit.objects.filter(item__segment=segment).update(submitted_count=2)


@pytest.mark.django_db(transaction=True)
def test_fifty_workers_claiming_at_once_get_no_duplicate_and_no_over_target_segment():
    # 30 places (10 segments × 3) for 50 workers, claimed in two rounds at the same instant.
    for _ in range(10):
        make_segment(targets=(3, 3))
    workers = [make_worker() for _ in range(50)]
    results, errors = [], []

    def claim_and_submit(worker, barrier):
        try:
            barrier.wait()
            assignment = crowd.assignment_claim(worker=worker, tier=Tier.ONE)
            results.append(assignment)
            if assignment:
                services.description_submit(
                    assignment_id=assignment.pk, worker=worker, text="A cat naps.", language="en"
                )
        except Exception as error:  # surfaced by the assertion below
            errors.append(error)
        finally:
            connection.close()

    for _ in range(2):
        barrier = threading.Barrier(len(workers))
        threads = [threading.Thread(target=claim_and_submit, args=(w, barrier)) for w in workers]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()

    assert errors == []
    assert sum(1 for a in results if a) == 30
    assert not Assignment.objects.values("worker", "hit").annotate(n=Count("id")).filter(n__gt=1)
    for hit in Hit.objects.filter(tier=Tier.ONE):
        stored = hit.item.segment.descriptions.filter(tier=Tier.ONE).count()
        assert hit.submitted_count == stored == hit.max_assignments


@pytest.mark.django_db(transaction=True)
def test_a_worker_clicking_next_task_many_times_at_once_holds_one_assignment():
    for _ in range(5):
        make_segment()
    worker = make_worker()
    barrier = threading.Barrier(8)
    claimed, errors = [], []

    def claim():
        try:
            barrier.wait()
            claimed.append(crowd.assignment_claim(worker=worker, tier=Tier.ONE))
        except Exception as error:  # surfaced by the assertion below
            errors.append(error)
        finally:
            connection.close()

    threads = [threading.Thread(target=claim) for _ in range(barrier.parties)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert errors == []
    assert len({assignment.pk for assignment in claimed}) == 1
    assert Assignment.objects.filter(worker=worker).count() == 1


def test_the_hit_types_are_seeded_and_read_in_one_query(django_assert_num_queries):
    HitType.objects.all().delete()
    HitType.objects.seed()
    with django_assert_num_queries(1):
        by_kind = HitType.objects.by_kind()
    assert sorted(by_kind) == sorted(HitType.Kind.values)
    with django_assert_num_queries(1):
        assert HitType.objects.for_kind(HitType.Kind.DESCRIPTION).pay_cents(Tier.TWO) == 5


def test_seeding_never_changes_a_hit_type_an_admin_edited():
    HitType.objects.filter(kind=HitType.Kind.DESCRIPTION).update(pay_tier1_cents=3)
    HitType.objects.seed()
    assert HitType.objects.for_kind(HitType.Kind.DESCRIPTION).pay_tier1_cents == 3
