"""The worker's pages take a fixed number of queries, however much the worker has done."""

import pytest
from django.urls import reverse

from crowd import services as crowd
from crowd.models import Tier
from tests.factories import make_proposal, make_segment, make_submitted_description, make_worker

pytestmark = pytest.mark.django_db

# One of them for the quality notice, one for the open tasks to continue (whatever their number),
# two for the pay awaiting review (crowd.selectors.worker_pending_pay).
DASHBOARD_QUERIES = 19
# The user (with their worker profile and groups) and the assignment (with its HIT, HIT type
# and segment); the session is read from the cache.
DESCRIBE_QUERIES = 2


def do_more_work(worker, *, descriptions, proposals):
    for n in range(descriptions):
        make_submitted_description(worker, f"A man plays guitar number {n}.")
    for _ in range(proposals):
        make_proposal(worker=worker)


@pytest.mark.parametrize("size", [1, 10])
def test_the_dashboard_takes_the_same_queries_for_a_little_work_as_for_a_lot(
    client, django_assert_num_queries, size
):
    worker = make_worker(tier=Tier.TWO)
    do_more_work(worker, descriptions=size, proposals=size)
    client.force_login(worker.user)
    with django_assert_num_queries(DASHBOARD_QUERIES):
        assert client.get(reverse("collector:dashboard")).status_code == 200


@pytest.mark.parametrize("size", [1, 10])
def test_the_description_task_takes_the_same_queries_for_a_small_corpus_as_a_large_one(
    client, django_assert_num_queries, size
):
    worker = make_worker()
    do_more_work(worker, descriptions=size, proposals=0)
    for _ in range(size):
        make_segment()
    assignment = crowd.assignment_claim(worker=worker, tier=Tier.ONE)
    client.force_login(worker.user)
    with django_assert_num_queries(DESCRIBE_QUERIES):
        assert client.get(reverse("collector:describe", args=[assignment.pk])).status_code == 200
