"""One task of the worker loop (next task answered with the task page, submit) takes a fixed,
small number of round trips to the database: a burst of crowd workers is bound by them."""

import pytest
from django.urls import reverse

from collector.models import Description
from crowd.models import Assignment
from tests.factories import make_segment, make_submitted_description, make_worker
from tests.pages import task_shown

# Real transactions, as in production: the test's savepoints would count as queries.
pytestmark = pytest.mark.django_db(transaction=True)

# Per request: the user with their worker profile and groups (the session is read from the
# cache). Next task: the claim, one call of the database's claim function, then the page: the
# assignment with its HIT, HIT type and segment. Submit: begin, the assignment and its HIT
# locked, the description, the count and the status in one statement, commit.
NEXT_TASK_QUERIES = 3
SUBMIT_QUERIES = 6
WORKER_LOOP_QUERIES = NEXT_TASK_QUERIES + SUBMIT_QUERIES


def one_task(client) -> int:
    """What a worker's browser does for one task; the id of the assignment it was given."""
    page = task_shown(client.post(reverse("crowd:task_next"), {"tier": "1", "kind": "description"}))
    # Submitted with the page's second button: save, then back to the dashboard.
    response = client.post(
        page, {"text": "A woman is slicing some tomatoes.", "language": "en", "then": "dashboard"}
    )
    assert response.status_code == 302
    assert response["Location"] == reverse("collector:dashboard")
    return int(page.rstrip("/").rsplit("/", 1)[1])


@pytest.mark.parametrize("done_before", [1, 5])
def test_next_task_page_and_submit_take_a_fixed_number_of_queries(
    client, django_assert_num_queries, done_before
):
    worker = make_worker()
    for number in range(done_before):
        make_submitted_description(worker, f"A man plays guitar number {number}.")
    make_segment()
    make_segment()
    client.force_login(worker.user)
    with django_assert_num_queries(WORKER_LOOP_QUERIES):
        assignment_id = one_task(client)
    assignment = Assignment.objects.get(pk=assignment_id)
    assert assignment.status == Assignment.Status.SUBMITTED
    assert Description.objects.filter(assignment=assignment).count() == 1


def test_submit_and_next_costs_no_more_than_submitting_and_asking_for_the_next_task(
    client, django_assert_num_queries
):
    # Submit-and-next: the submit's own queries, then the next task's claim and page in the
    # same request, with the user loaded once.
    worker = make_worker()
    make_segment()
    make_segment()
    client.force_login(worker.user)
    page = task_shown(client.post(reverse("crowd:task_next"), {"tier": "1", "kind": "description"}))
    with django_assert_num_queries(WORKER_LOOP_QUERIES - 1):
        response = client.post(page, {"text": "A woman is slicing tomatoes.", "language": "en"})
    following = task_shown(response)
    assert following.startswith("/describe/") and following != page
    assert Assignment.objects.get(pk=int(page.rstrip("/").rsplit("/", 1)[1])).status == "submitted"
