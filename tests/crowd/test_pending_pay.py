"""A worker's pay awaiting review covers every kind of work they submitted, at what the ledger
credits once it is accepted, and the dashboard reads it in a fixed number of queries."""

import pytest
from django.db.models import Sum
from django.urls import reverse

from annotations import services as annotation_services
from annotations.models import SentencePair
from crowd import services as crowd
from crowd.models import Assignment, HitType, LedgerEntry, Tier
from crowd.selectors import worker_pending_pay
from crowd.services.ledger import ledger_pay_assignments
from tests.collector.test_query_counts import DASHBOARD_QUERIES
from tests.factories import (
    make_paraphrase,
    make_paraphrase_source,
    make_proposal,
    make_submitted_description,
    make_worker,
)
from tests.research.ratings import make_batch, rate_next

pytestmark = pytest.mark.django_db

KINDS = [kind for kind, _ in HitType.Kind.choices]


def do_every_kind_of_work(worker, size):
    """``size`` submitted tasks of every kind, none reviewed yet."""
    for n in range(size):
        make_submitted_description(worker, f"A man plays guitar number {n}.")
        make_proposal(worker=worker)
        source = make_paraphrase_source(f"A man is slicing tomato number {n}.")
        make_paraphrase(worker, source, f"Someone cuts up tomato number {n}.")
    annotation_services.pairs_store(
        [
            SentencePair(
                origin=SentencePair.Origin.IMPORT,
                import_key=f"pending:{n}",
                tokens_a=["A", "man", "plays", str(n)],
                tokens_b=["A", "guy", "plays", str(n)],
            )
            for n in range(size)
        ],
        open_hits=True,
    )
    for _ in range(size):
        assignment = crowd.assignment_claim(worker=worker, tier=1, kind=HitType.Kind.ALIGNMENT)
        annotation_services.alignment_submit(
            assignment_id=assignment.pk, worker=worker, links="0-0 1-1 2-2"
        )
    make_batch(pairs=[(f"A dog runs {n}.", f"A dog is running {n}.") for n in range(size)])
    for _ in range(size):
        assert rate_next(worker) is not None


def pay_per_task():
    hit_types = HitType.objects.by_kind()
    return sum(hit_types[kind].pay_cents(Tier.ONE) for kind in KINDS)


def test_pending_pay_counts_alignments_and_ratings_too():
    worker = make_worker()
    do_every_kind_of_work(worker, 1)
    kinds = set(
        worker.assignments.filter(status=Assignment.Status.SUBMITTED).values_list(
            "hit__hit_type__kind", flat=True
        )
    )
    assert kinds == set(KINDS)
    assert worker_pending_pay(worker=worker) == {Tier.ONE: pay_per_task()}


def test_pending_pay_is_what_the_ledger_credits_once_the_work_is_accepted():
    worker = make_worker()
    do_every_kind_of_work(worker, 2)
    pending = worker_pending_pay(worker=worker)
    assert pending[Tier.ONE] > 0

    submitted = worker.assignments.filter(status=Assignment.Status.SUBMITTED)
    ledger_pay_assignments(assignments=submitted.select_related("hit__hit_type"), reason="Good.")

    credited = {
        row["tier"]: row["cents"]
        for row in LedgerEntry.objects.filter(worker=worker)
        .values("tier")
        .annotate(cents=Sum("amount_cents"))
    }
    assert credited == pending
    assert worker_pending_pay(worker=worker) == {}


def test_rejected_work_awaits_nothing():
    worker = make_worker()
    do_every_kind_of_work(worker, 1)
    crowd.assignment_reject(
        assignment_ids=list(worker.assignments.values_list("pk", flat=True)), reason="No."
    )
    assert worker_pending_pay(worker=worker) == {}


@pytest.mark.parametrize("size", [1, 5])
def test_the_dashboard_shows_pay_awaiting_review_for_every_kind_in_fixed_queries(
    client, django_assert_num_queries, size
):
    worker = make_worker()
    do_every_kind_of_work(worker, size)
    client.force_login(worker.user)
    # One more than for a worker with descriptions and proposals alone, whatever the size.
    with django_assert_num_queries(DASHBOARD_QUERIES + 1):
        page = client.get(reverse("collector:dashboard"))
    cents = pay_per_task() * size
    assert f'<td id="pending-tier1">${cents // 100}.{cents % 100:02d}</td>' in page.text
