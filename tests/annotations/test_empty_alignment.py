"""An alignment with no link is refused unless the worker confirms that nothing corresponds,
and is never paid automatically without a second annotator's agreement."""

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from annotations import review, services
from annotations.models import Alignment, SentencePair
from crowd import services as crowd
from crowd.models import Assignment, HitType, LedgerEntry, Tier
from tests.factories import make_worker

pytestmark = pytest.mark.django_db


@pytest.fixture
def pair():
    (pair,) = services.pairs_store(
        [
            SentencePair(
                origin=SentencePair.Origin.IMPORT,
                import_key="empty:1",
                tokens_a=["Rain", "fell", "."],
                tokens_b=["Markets", "closed", "higher"],
            )
        ],
        open_hits=True,
    )
    return pair


def claim(worker):
    return crowd.assignment_claim(worker=worker, tier=Tier.ONE, kind=HitType.Kind.ALIGNMENT)


def submit_empty(worker=None):
    worker = worker or make_worker()
    alignment, _ = services.alignment_submit(
        assignment_id=claim(worker).pk, worker=worker, links="", nothing_corresponds=True
    )
    return alignment


def test_no_link_without_the_confirmation_is_refused_and_nothing_is_stored(pair):
    worker = make_worker()
    assignment = claim(worker)
    with pytest.raises(crowd.WorkRefused, match="Your alignment has no link"):
        services.alignment_submit(assignment_id=assignment.pk, worker=worker, links="  ")
    with pytest.raises(crowd.WorkRefused, match="untick it, or clear the links"):
        services.alignment_submit(
            assignment_id=assignment.pk, worker=worker, links="0-0", nothing_corresponds=True
        )
    assignment.refresh_from_db()
    assert assignment.status == Assignment.Status.ASSIGNED
    assert not Alignment.objects.exists()


def test_a_confirmed_empty_alignment_alone_waits_for_a_person(pair):
    alone = submit_empty()
    later = timezone.now() + timedelta(days=4)

    assert review.alignments_auto_pay(now=later) == 0
    (item,) = review.alignment_review_page()[1]
    assert item.alignment == alone and item.flagged and item.unlinked_alone
    assert not LedgerEntry.objects.exists()


def test_two_annotators_leaving_the_pair_unlinked_are_paid_automatically(pair):
    first, second = submit_empty(), submit_empty()
    later = timezone.now() + timedelta(days=4)

    assert not any(item.flagged for item in review.alignment_review_page()[1])
    assert review.alignments_auto_pay(now=later) == 2
    assert {e.assignment for e in LedgerEntry.objects.all()} == {
        first.assignment,
        second.assignment,
    }


def test_the_task_page_refuses_an_empty_grid_with_a_clear_message(client, pair):
    worker = make_worker()
    assignment = claim(worker)
    client.force_login(worker.user)
    page = reverse("annotations:align", args=[assignment.pk])

    response = client.post(page, {"links": ""})

    assert response.status_code == 400
    text = response.content.decode()
    assert "Your alignment has no link" in text and "Thank you" not in text
    assert not Alignment.objects.exists()
    response = client.post(page, {"links": "", "nothing_corresponds": "on", "then": "dashboard"})
    assert response.status_code == 302
    assert Alignment.objects.get().links == ""
