"""Staff review of alignments before pay: flagged by low agreement, accepted or rejected."""

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from annotations import review, services
from annotations.models import Alignment, SentencePair
from annotations.tasks import pay_alignments
from crowd import services as crowd
from crowd.models import Assignment, AuditEntry, Hit, HitType, LedgerEntry, Tier
from tests.factories import make_worker

pytestmark = pytest.mark.django_db

TOKENS_A = ["A", "man", "plays", "a", "guitar", "."]
TOKENS_B = ["A", "guy", "strums", "a", "guitar", "."]
GOOD = "0-0 1-1 2-2 3-3 4-4 5-5"
BAD = "0-5 5-0"


@pytest.fixture
def pair():
    (pair,) = services.pairs_store(
        [
            SentencePair(
                origin=SentencePair.Origin.IMPORT,
                import_key="review:1",
                tokens_a=TOKENS_A,
                tokens_b=TOKENS_B,
            )
        ],
        open_hits=True,
    )
    Alignment.objects.create(pair=pair, annotator="gold", links=GOOD)
    return pair


def submit(links):
    worker = make_worker()
    assignment = crowd.assignment_claim(worker=worker, tier=Tier.ONE, kind=HitType.Kind.ALIGNMENT)
    alignment, _ = services.alignment_submit(
        assignment_id=assignment.pk, worker=worker, links=links
    )
    return alignment


def test_an_alignment_far_from_the_others_is_flagged_and_listed_first(pair):
    good, bad = submit(GOOD), submit(BAD)

    queue = review.alignment_review_page()[1]

    assert [item.alignment for item in queue] == [bad, good]
    assert queue[0].flagged and queue[0].agreement_f1 == 0.0
    # The good one matches the gold annotation (F1 1) and not the bad one (F1 0).
    assert not queue[1].flagged and queue[1].agreement_f1 == pytest.approx(0.5)
    assert queue[1].others == 2


def test_accepting_pays_once_and_is_audit_logged(pair, admin_user):
    alignment = submit(GOOD)

    assert review.alignments_review(
        alignment_ids=[alignment.pk], accept=True, reviewer=admin_user, reason=""
    ).changed == [alignment.pk]
    assert (
        review.alignments_review(
            alignment_ids=[alignment.pk], accept=True, reviewer=admin_user, reason=""
        ).changed
        == []
    )
    entry = LedgerEntry.objects.get(assignment=alignment.assignment)
    assert entry.created_by == admin_user and entry.reason == "Accepted in review."
    assert AuditEntry.objects.get(action="accept").details == {"alignments": [alignment.pk]}
    assert review.alignment_review_page()[1] == []


def test_rejecting_needs_a_reason_reopens_the_slot_and_pays_nothing(pair, admin_user):
    alignment = submit(BAD)

    with pytest.raises(crowd.WorkRefused, match="Give a reason"):
        review.alignments_review(
            alignment_ids=[alignment.pk], accept=False, reviewer=admin_user, reason=" "
        )
    assert review.alignments_review(
        alignment_ids=[alignment.pk],
        accept=False,
        reviewer=admin_user,
        reason="Links reversed.",
    ).changed == [alignment.pk]
    alignment.assignment.refresh_from_db()
    assert alignment.assignment.status == Assignment.Status.REJECTED
    assert not LedgerEntry.objects.exists()
    assert AuditEntry.objects.get(action="reject").reason == "Links reversed."


def test_unreviewed_alignments_are_paid_after_the_delay_unless_flagged(pair):
    good, bad = submit(GOOD), submit(BAD)
    later = timezone.now() + timedelta(days=4)

    assert review.alignments_auto_pay() == 0  # submitted just now
    assert review.alignments_auto_pay(now=later) == 1
    assert review.alignments_auto_pay(now=later) == 0
    assert LedgerEntry.objects.get().assignment == good.assignment
    assert [item.alignment for item in review.alignment_review_page()[1]] == [bad]
    assert pay_alignments() == 0  # the periodic task: nothing is due now


def test_staff_review_on_the_page_and_workers_cannot_see_it(client, pair, admin_user):
    bad = submit(BAD)
    client.force_login(bad.worker.user)
    assert client.get(reverse("review_pages:alignments")).status_code == 403

    client.force_login(admin_user)
    page = client.get(reverse("review_pages:alignments")).content.decode()
    assert f"Alignment {bad.pk} by local-{bad.worker_id}" in page and "flagged" in page
    # Named as in the agreement tables; who the worker is, is one link away.
    assert bad.worker.user.username not in page
    assert f'href="{reverse("review:worker", args=[bad.worker_id])}"' in page
    response = client.post(
        reverse("review_pages:alignments"),
        {"alignment": bad.pk, "decision": "rejected", "reason": ""},
    )
    assert response.status_code == 400
    assert "Give a reason to reject; the worker sees it." in response.content.decode()
    response = client.post(
        reverse("review_pages:alignments"),
        {"alignment": bad.pk, "decision": "rejected", "reason": "<b>Reversed</b>"},
        follow=True,
    )
    assert "1 rejected." in response.content.decode()
    assert "No alignment is waiting for review." in response.content.decode()
    assert AuditEntry.objects.get(action="reject").reason == "<b>Reversed</b>"


def three_annotators_per_pair(pair):
    Hit.objects.filter(item_id=pair.item_id).update(max_assignments=3)


def test_the_review_page_lists_alignments_a_page_at_a_time(client, pair, admin_user, monkeypatch):
    monkeypatch.setattr(review, "PAGE_SIZE", 2)
    three_annotators_per_pair(pair)
    first, second, third = submit(GOOD), submit(GOOD), submit(GOOD)
    client.force_login(admin_user)
    url = reverse("review_pages:alignments")
    page = client.get(url).content.decode()
    assert "3 alignments waiting." in page and "Page 1 of 2" in page
    assert f'id="tick-{first.pk}"' in page and f'id="tick-{third.pk}"' not in page
    page = client.get(url, {"page": 2}).content.decode()
    assert f'id="tick-{third.pk}"' in page and f'id="tick-{second.pk}"' not in page


def test_staff_accept_the_ticked_alignments_together(client, pair, admin_user):
    three_annotators_per_pair(pair)
    good, other, left = submit(GOOD), submit(GOOD), submit(GOOD)
    client.force_login(admin_user)
    response = client.post(
        reverse("review_pages:alignments"),
        {"alignment": [good.pk, other.pk], "decision": "accepted", "reason": ""},
        follow=True,
    )
    assert "2 accepted." in response.content.decode()
    assert LedgerEntry.objects.filter(assignment__alignment__in=[good, other]).count() == 2
    assert [item.alignment for item in review.alignment_review_page()[1]] == [left]


def test_nothing_ticked_is_refused_with_the_reason(client, pair, admin_user):
    submit(GOOD)
    client.force_login(admin_user)
    response = client.post(
        reverse("review_pages:alignments"), {"decision": "accepted", "reason": ""}
    )
    assert response.status_code == 400
    assert "Tick at least one alignment." in response.content.decode()
    assert not LedgerEntry.objects.exists()
