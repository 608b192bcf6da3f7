"""Staff review of direct paraphrases: accepting pays through the ledger once, rejecting
reopens the slot with a reason the worker sees, unreviewed work is accepted after the delay,
and only staff may decide."""

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from collector import services
from collector.models import Paraphrase
from crowd.models import Assignment, AuditEntry, LedgerEntry, Tier
from tests.factories import (
    make_paraphrase,
    make_paraphrase_source,
    make_staff,
    make_worker,
)

pytestmark = pytest.mark.django_db

SENTENCE = "A man is slicing a tomato."
# The user (the session is read from the cache) and the paraphrases waiting, with their sentence.
REVIEW_PAGE_QUERIES = 2


def paraphrased(text="Someone cuts a tomato into slices.", *, tier=Tier.ONE):
    source = make_paraphrase_source(SENTENCE)
    worker = make_worker(tier=tier)
    return make_paraphrase(worker, source, text, tier=tier)


def decide(client, paraphrase, decision, reason=""):
    return client.post(
        reverse("review_pages:paraphrases"),
        {"paraphrase": paraphrase.pk, "decision": decision, "reason": reason},
        follow=True,
    )


def test_staff_accept_a_paraphrase_and_the_worker_is_paid_once_at_their_tier(client):
    paraphrase = paraphrased(tier=Tier.TWO)
    staff = make_staff()
    client.force_login(staff)
    response = decide(client, paraphrase, "accept")
    assert f"Paraphrase {paraphrase.pk} accepted and paid." in response.content.decode()
    paraphrase.refresh_from_db()
    assert (paraphrase.status, paraphrase.reviewed_by) == (Paraphrase.Status.ACCEPTED, staff)
    entry = LedgerEntry.objects.get()
    assert (entry.worker_id, entry.amount_cents, entry.tier) == (paraphrase.worker_id, 5, 2)
    assert AuditEntry.objects.get(action=AuditEntry.Action.ACCEPT).details == {
        "paraphrases": [paraphrase.pk]
    }
    again = decide(client, paraphrase, "reject", "Changed my mind.")
    assert "Already decided; unchanged." in again.content.decode()
    assert LedgerEntry.objects.count() == 1
    paraphrase.refresh_from_db()
    assert paraphrase.status == Paraphrase.Status.ACCEPTED


def test_a_rejection_needs_a_reason_reopens_the_slot_and_the_worker_reads_why(client):
    paraphrase = paraphrased()
    client.force_login(make_staff())
    refused = decide(client, paraphrase, "reject")
    assert "Give a reason; the worker sees it." in refused.content.decode()
    assert Paraphrase.objects.get().status == Paraphrase.Status.PENDING
    decide(client, paraphrase, "reject", "Does not say what the sentence says.")
    paraphrase.refresh_from_db()
    assert paraphrase.status == Paraphrase.Status.REJECTED
    assert paraphrase.assignment.status == Assignment.Status.REJECTED
    assert paraphrase.assignment.hit.submitted_count == 0
    assert not LedgerEntry.objects.exists()
    client.force_login(paraphrase.worker.user)
    dashboard = client.get(reverse("collector:dashboard")).content.decode()
    assert "Rejected: Does not say what the sentence says." in dashboard


def test_an_overturned_rejection_is_accepted_and_paid():
    paraphrase = paraphrased()
    staff = make_staff()
    services.paraphrases_review(
        paraphrase_ids=[paraphrase.pk], status="rejected", reviewed_by=staff, reason="Too close."
    )
    outcome = services.paraphrases_review(
        paraphrase_ids=[paraphrase.pk],
        status="accepted",
        reviewed_by=staff,
        reason="On reflection.",
    )
    assert outcome.changed == [paraphrase.pk]
    paraphrase.refresh_from_db()
    assert paraphrase.assignment.status == Assignment.Status.SUBMITTED
    assert paraphrase.assignment.hit.submitted_count == 1
    assert LedgerEntry.objects.get().amount_cents == 1


def test_unreviewed_paraphrases_are_accepted_and_paid_after_the_delay_once():
    paraphrase = paraphrased()
    assert services.paraphrases_auto_accept() == 0
    later = timezone.now() + timedelta(days=4)
    assert services.paraphrases_auto_accept(now=later) == 1
    assert services.paraphrases_auto_accept(now=later) == 0
    paraphrase.refresh_from_db()
    assert paraphrase.status == Paraphrase.Status.ACCEPTED and paraphrase.reviewed_by is None
    assert LedgerEntry.objects.get().source == f"assignment:{paraphrase.assignment_id}"


def test_platform_work_the_platform_has_not_confirmed_is_never_accepted():
    paraphrase = paraphrased()
    Assignment.objects.filter(pk=paraphrase.assignment_id).update(verified_at=None)
    outcome = services.paraphrases_review(
        paraphrase_ids=[paraphrase.pk], status="accepted", reviewed_by=make_staff(), reason="ok"
    )
    assert outcome.unverified == [paraphrase.pk]
    assert services.paraphrases_auto_accept(now=timezone.now() + timedelta(days=30)) == 0
    assert not LedgerEntry.objects.exists()


def test_the_review_page_lists_waiting_paraphrases_with_their_sentence_escaped(client):
    paraphrased('Someone cuts a "tomato" <3 & slices it.')
    client.force_login(make_staff())
    html = client.get(reverse("review_pages:paraphrases")).content.decode()
    assert SENTENCE in html
    assert "Someone cuts a &quot;tomato&quot; &lt;3 &amp; slices it." in html
    assert "<3 & slices" not in html
    assert html.count("<h1>") == 1


def test_workers_may_neither_see_nor_decide_reviews(client):
    paraphrase = paraphrased()
    client.force_login(paraphrase.worker.user)
    page = client.get(reverse("review_pages:paraphrases"))
    assert page.status_code == 403
    decide(client, paraphrase, "accept")
    assert Paraphrase.objects.get().status == Paraphrase.Status.PENDING
    assert not LedgerEntry.objects.exists()


@pytest.mark.parametrize("waiting", [1, 6])
def test_the_review_page_takes_the_same_queries_however_many_wait(
    client, django_assert_num_queries, waiting
):
    for n in range(waiting):
        source = make_paraphrase_source(f"A man is slicing tomato number {n}.")
        make_paraphrase(make_worker(), source, f"Someone cuts up tomato {n}.")
    client.force_login(make_staff())
    with django_assert_num_queries(REVIEW_PAGE_QUERIES):
        assert client.get(reverse("review_pages:paraphrases")).status_code == 200


def test_the_paraphrase_review_gives_the_time_spent_in_whole_seconds(client):
    from datetime import timedelta

    from collector.models import Paraphrase
    from tests.factories import make_paraphrase, make_paraphrase_source, make_staff, make_worker

    source = make_paraphrase_source("A man is slicing a tomato.")
    written = make_paraphrase(make_worker(), source, "Someone is cutting a tomato into slices.")
    Paraphrase.objects.filter(pk=written.pk).update(
        time_spent=timedelta(seconds=13.694413), status=Paraphrase.Status.PENDING
    )
    client.force_login(make_staff())
    page = client.get(reverse("review_pages:paraphrases")).content.decode()
    assert "written in 14 s" in page and "0:00:13" not in page
