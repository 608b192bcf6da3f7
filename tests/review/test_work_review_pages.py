"""The review pages of paraphrases and alignments live in the review app, at their old
addresses, staff-only, and decide through the one review service."""

import pytest
from django.urls import reverse

from collector.models import Paraphrase
from crowd.models import LedgerEntry
from tests.factories import make_paraphrase, make_paraphrase_source, make_staff, make_worker

pytestmark = pytest.mark.django_db


def test_the_pages_keep_their_addresses():
    assert reverse("review_pages:paraphrases") == "/paraphrase/review/"
    assert reverse("review_pages:alignments") == "/align/review/"


@pytest.mark.parametrize("name", ["review_pages:paraphrases", "review_pages:alignments"])
def test_a_worker_is_refused(client, name):
    client.force_login(make_worker().user)
    response = client.get(reverse(name))
    assert response.status_code == 403


def test_staff_overturn_a_rejected_paraphrase_with_a_reason_and_it_is_paid(client):
    paraphrase = make_paraphrase(make_worker(), make_paraphrase_source(), "A guy cuts a tomato.")
    client.force_login(make_staff())
    url = reverse("review_pages:paraphrases")
    post = {"paraphrase": paraphrase.pk, "decision": "reject", "reason": "Too close."}
    client.post(url, post)
    refused = client.post(url, {**post, "decision": "overturn", "reason": ""}, follow=True)
    assert "Give a reason for overturning the rejection" in refused.content.decode()
    page = client.post(url, {**post, "decision": "overturn", "reason": "Fine."}, follow=True)
    assert f"Paraphrase {paraphrase.pk} accepted and paid" in page.content.decode()
    paraphrase.refresh_from_db()
    assert paraphrase.status == Paraphrase.Status.ACCEPTED
    assert LedgerEntry.objects.get().assignment_id == paraphrase.assignment_id


def test_an_unknown_decision_changes_nothing(client):
    paraphrase = make_paraphrase(make_worker(), make_paraphrase_source(), "A guy cuts a tomato.")
    client.force_login(make_staff())
    url = reverse("review_pages:paraphrases")
    page = client.post(url, {"paraphrase": paraphrase.pk, "decision": "pay"}, follow=True)
    assert "Choose a paraphrase to review." in page.content.decode()
    paraphrase.refresh_from_db()
    assert paraphrase.status == "pending"
