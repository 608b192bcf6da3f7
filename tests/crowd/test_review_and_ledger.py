"""Reviewing work (singly, in bulk, automatically) and the payments ledger it feeds."""

from datetime import timedelta

import pytest
from django.db import IntegrityError
from django.utils import timezone

from annotations import services as annotation_services
from annotations.models import SentencePair
from collector import services
from collector.models import Description
from crowd import services as crowd
from crowd.models import Assignment, AuditEntry, HitType, LedgerEntry, Tier, Worker
from tests.factories import make_segment, make_submitted_description, make_worker

pytestmark = pytest.mark.django_db


@pytest.fixture
def alice():
    return make_worker(username="alice")


def review(descriptions, status, by, reason="Reviewed."):
    return services.descriptions_review(
        description_ids=[d.pk for d in descriptions], status=status, reviewed_by=by, reason=reason
    )


def test_accepting_a_description_pays_its_tier_once(alice, admin_user):
    one = make_submitted_description(alice, "A man is playing a guitar.")
    crowd.qualification_grant(worker=alice, tier=Tier.TWO, granted_by=None, reason="test")
    two = make_submitted_description(alice, "A woman slices a tomato.", tier=Tier.TWO)
    outcome = review([one, two], "accepted", admin_user, "Good.")
    assert sorted(outcome.changed) == sorted([one.pk, two.pk])
    again = review([one, two], "accepted", admin_user, "Good.")
    assert again.changed == [] and len(again.unchanged) == 2
    entries = LedgerEntry.objects.earnings().filter(worker=alice).order_by("tier")
    assert [(e.tier, e.amount_cents, e.kind) for e in entries] == [(1, 1, "task"), (2, 5, "task")]
    assert entries[0].source == f"assignment:{one.assignment_id}"


def test_rejecting_keeps_the_description_marked_with_the_reason_the_worker_sees(alice, admin_user):
    description = make_submitted_description(alice, "nice video")
    review([description], "rejected", admin_user, "Describe the action in a full sentence.")
    description.refresh_from_db()
    assert description.status == "rejected"
    assert description.review_reason == "Describe the action in a full sentence."
    assert (description.reviewed_by, description.reviewed_at is not None) == (admin_user, True)
    assert not LedgerEntry.objects.earnings().exists()


def test_a_rejection_can_be_overturned_and_is_then_paid(alice, admin_user):
    description = make_submitted_description(alice, "A cat sleeps.")
    review([description], "rejected", admin_user, "Too short.")
    review([description], "accepted", admin_user, "On second look it is fine.")
    assert LedgerEntry.objects.earnings().get(worker=alice).amount_cents == 1


def test_accepted_work_is_final(alice, admin_user):
    description = make_submitted_description(alice, "A cat sleeps.")
    review([description], "accepted", admin_user)
    outcome = review([description], "rejected", admin_user, "Changed my mind.")
    assert outcome.unchanged == [description.pk]
    description.refresh_from_db()
    assert description.status == "accepted"


def test_rejected_work_leaves_the_ledger_and_paid_work_is_never_taken_back(alice, admin_user):
    paid = make_submitted_description(alice, "A cat sleeps.")
    review([paid], "accepted", admin_user)
    review([paid], "rejected", admin_user, "Changed my mind.")
    spam = make_submitted_description(alice, "buy cheap watches")
    review([spam], "rejected", admin_user, "Spam.")
    entries = LedgerEntry.objects.earnings().filter(worker=alice)
    assert [entry.assignment_id for entry in entries] == [paid.assignment_id]


def test_rejecting_marks_the_assignment_and_reopens_the_hit_for_another_worker(alice, admin_user):
    segment = make_segment(targets=(1, 1))
    assignment = crowd.assignment_claim(worker=alice, tier=Tier.ONE)
    spam, _ = services.description_submit(
        assignment_id=assignment.pk, worker=alice, text="buy cheap watches", language="en"
    )
    bob = make_worker()
    assert crowd.assignment_claim(worker=bob, tier=Tier.ONE) is None  # the segment is full

    review([spam], "rejected", admin_user, "Spam.")

    assignment.refresh_from_db()
    assert assignment.status == Assignment.Status.REJECTED
    assert segment.hits.get(tier=Tier.ONE).submitted_count == 0
    assert crowd.assignment_claim(worker=bob, tier=Tier.ONE).hit.item.segment == segment


def test_an_overturned_rejection_counts_again_without_passing_the_target(alice, admin_user):
    segment = make_segment(targets=(1, 1))
    first = crowd.assignment_claim(worker=alice, tier=Tier.ONE)
    spam, _ = services.description_submit(
        assignment_id=first.pk, worker=alice, text="A cat sleeps.", language="en"
    )
    review([spam], "rejected", admin_user, "Looked like spam.")
    bob = make_worker()
    second = crowd.assignment_claim(worker=bob, tier=Tier.ONE)
    services.description_submit(
        assignment_id=second.pk, worker=bob, text="A cat is asleep.", language="en"
    )

    review([spam], "accepted", admin_user, "It was fine after all.")

    first.refresh_from_db()
    hit = segment.hits.get(tier=Tier.ONE)
    assert first.status == Assignment.Status.SUBMITTED
    assert (hit.submitted_count, hit.max_assignments) == (1, 1)
    assert segment.descriptions.exclude(status="rejected").count() == 2
    assert LedgerEntry.objects.earnings().filter(assignment=first).exists()


def test_a_review_needs_a_reason(alice, admin_user):
    description = make_submitted_description(alice, "A cat sleeps.")
    with pytest.raises(crowd.WorkRefused, match="reason"):
        review([description], "rejected", admin_user, "  ")
    description.refresh_from_db()
    assert description.status == "pending"


def test_a_bulk_review_writes_one_audit_entry_per_worker(alice, admin_user):
    bob = make_worker()
    mine = [make_submitted_description(alice, f"A man throws ball number {n}.") for n in range(3)]
    his = make_submitted_description(bob, "A boy kicks a ball.")
    review([*mine, his], "rejected", admin_user, "Off topic.")
    entries = AuditEntry.objects.filter(action="reject").order_by("worker_id")
    assert [(e.worker, e.actor, e.reason) for e in entries] == [
        (alice, admin_user, "Off topic."),
        (bob, admin_user, "Off topic."),
    ]
    assert sorted(entries[0].details["descriptions"]) == sorted(d.pk for d in mine)


def test_the_database_refuses_a_pending_description_marked_reviewed(alice):
    description = make_submitted_description(alice, "A cat sleeps.")
    with pytest.raises(IntegrityError):
        Description.objects.filter(pk=description.pk).update(reviewed_at=timezone.now())


def test_work_left_unreviewed_is_accepted_and_paid_after_the_delay(alice, admin_user):
    hit_type = HitType.objects.for_kind(HitType.Kind.DESCRIPTION)
    hit_type.auto_accept_after = timedelta(days=2)
    hit_type.save()
    old = make_submitted_description(alice, "A man is playing a guitar.")
    new = make_submitted_description(alice, "A woman slices a tomato.")
    rejected = make_submitted_description(alice, "nice video")
    review([rejected], "rejected", admin_user, "Not a sentence.")
    Description.objects.filter(pk__in=[old.pk, rejected.pk]).update(
        created_at=timezone.now() - timedelta(days=3)
    )
    assert services.descriptions_auto_accept() == 1
    assert services.descriptions_auto_accept() == 0
    old.refresh_from_db(), new.refresh_from_db(), rejected.refresh_from_db()
    assert (old.status, new.status, rejected.status) == ("accepted", "pending", "rejected")
    assert old.reviewed_by is None
    assert old.review_reason == "Accepted automatically after 2 days without review."
    assert LedgerEntry.objects.earnings().get().assignment_id == old.assignment_id
    assert AuditEntry.objects.get(action="accept").actor is None


def test_imported_descriptions_are_never_accepted_automatically_nor_paid(alice):
    description = make_submitted_description(alice, "A cat sleeps.")
    Description.objects.filter(pk=description.pk).update(
        assignment=None, created_at=timezone.now() - timedelta(days=30)
    )
    assert services.descriptions_auto_accept() == 0


def test_a_credit_is_stored_once_per_source(alice):
    first, created = crowd.ledger_credit(
        worker=alice, amount_cents=25, kind="bonus", reason="Great work.", source="bonus:abc"
    )
    again, created_again = crowd.ledger_credit(
        worker=alice, amount_cents=25, kind="bonus", reason="Great work.", source="bonus:abc"
    )
    assert (created, created_again, first.pk) == (True, False, again.pk)
    assert LedgerEntry.objects.earnings().count() == 1


@pytest.mark.parametrize("amount", [0, -5, 1.5, "10", True])
def test_a_credit_must_be_a_positive_whole_number_of_cents(alice, amount):
    with pytest.raises(crowd.WorkRefused, match="whole number of cents"):
        crowd.ledger_credit(
            worker=alice, amount_cents=amount, kind="bonus", reason="x", source="bonus:x"
        )


def test_the_database_refuses_a_credit_of_nothing(alice):
    with pytest.raises(IntegrityError):
        LedgerEntry.objects.create(
            worker=alice, amount_cents=0, kind="bonus", reason="x", source="bonus:zero"
        )


def test_a_bonus_form_sent_twice_pays_once_and_is_audited(alice, admin_user):
    for _ in range(2):
        crowd.bonus_pay(
            worker=alice,
            amount_cents=50,
            reason="Helpful comments.",
            paid_by=admin_user,
            token="t1",
        )
    assert LedgerEntry.objects.earnings().get().amount_cents == 50
    entry = AuditEntry.objects.get(action="bonus")
    assert (entry.worker, entry.details["amount_cents"]) == (alice, 50)


def test_a_payout_marks_what_is_unpaid_as_paid(alice, admin_user):
    crowd.bonus_pay(worker=alice, amount_cents=50, reason="r", paid_by=admin_user, token="a")
    crowd.bonus_pay(worker=alice, amount_cents=7, reason="r", paid_by=admin_user, token="b")
    payout = crowd.payout_record(through=timezone.now(), paid_by=admin_user, reason="Week 1.")
    assert payout.total_cents == 57 and payout.entries.count() == 2
    assert crowd.payout_record(through=timezone.now(), paid_by=admin_user, reason="x") is None
    assert AuditEntry.objects.get(action="payout").details["total_cents"] == 57


@pytest.fixture
def alignment(alice):
    """Alice's submitted alignment of a pair drawn from a two-description cluster."""
    for text in ["A man is playing a guitar.", "Someone strums a guitar."]:
        make_submitted_description(make_worker(), text)
    # Put both descriptions in one cluster so that a pair can be drawn from them.
    first, second = Description.objects.order_by("pk")
    Description.objects.filter(pk=second.pk).update(segment=first.segment)
    annotation_services.pairs_sample(per_cluster=1, seed=0)
    assert SentencePair.objects.count() == 1
    assignment = crowd.assignment_claim(worker=alice, tier=Tier.ONE, kind=HitType.Kind.ALIGNMENT)
    annotation_services.alignment_submit(assignment_id=assignment.pk, worker=alice, links="0-0")
    assignment.refresh_from_db()
    return assignment


def test_an_alignment_is_paid_through_the_same_ledger(alice, alignment):
    paid = crowd.ledger_pay_assignments(assignments=[alignment], reason="Accepted.")
    assert paid == 1
    assert crowd.ledger_pay_assignments(assignments=[alignment], reason="Accepted.") == 0
    entry = LedgerEntry.objects.earnings().get(worker=alice)
    assert entry.amount_cents == HitType.objects.for_kind(HitType.Kind.ALIGNMENT).pay_tier1_cents


def test_alignments_are_paid_automatically_after_the_delay_once(alice, alignment):
    kind = HitType.Kind.ALIGNMENT
    assert crowd.assignments_auto_pay(kind=kind) == 0  # submitted just now
    later = timezone.now() + timedelta(days=4)
    assert crowd.assignments_auto_pay(kind=kind, now=later) == 1
    assert crowd.assignments_auto_pay(kind=kind, now=later) == 0
    assert LedgerEntry.objects.earnings().get().assignment == alignment


def test_the_platform_fee_is_charged_on_platform_work_only(alice, admin_user, settings):
    settings.PLATFORM_FEE_PERCENT, settings.PLATFORM_FEE_MINIMUM_CENTS = 20, 1
    bob = make_worker(username="bob")
    Worker.objects.filter(pk=bob.pk).update(platform=Worker.Platform.MTURK)
    for worker in (alice, bob):
        crowd.bonus_pay(
            worker=worker, amount_cents=250, reason="r", paid_by=admin_user, token=str(worker.pk)
        )
    fees = dict(
        LedgerEntry.objects.annotate(fee=crowd.ledger_fee()).values_list(
            "worker__user__username", "fee"
        )
    )
    assert fees == {"alice": 0, "bob": 50}
    assert crowd.fee_on(250, platform=Worker.Platform.LOCAL) == 0
    assert crowd.fee_on(250, platform=Worker.Platform.PROLIFIC) == 50
