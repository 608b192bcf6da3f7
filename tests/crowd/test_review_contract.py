"""The one review contract, for every kind of submitted work: descriptions, paraphrases,
alignments, ratings and segment proposals are accepted, rejected, overturned and accepted
automatically by the same services, under the same rules."""

from dataclasses import dataclass
from datetime import timedelta

import pytest
from django.utils import timezone

from annotations import services as annotation_services
from annotations.models import Alignment, SentencePair
from collector.models import Description, Paraphrase, Segment, SegmentProposal
from crowd import services as crowd
from crowd.models import Assignment, AuditEntry, HitType, LedgerEntry, Reviewed
from research.models import Rating
from tests.factories import (
    make_paraphrase,
    make_paraphrase_source,
    make_proposal,
    make_segment,
    make_staff,
    make_submitted_description,
    make_worker,
)
from tests.research.ratings import make_batch, rate_next

pytestmark = pytest.mark.django_db


def a_description():
    return make_submitted_description(make_worker(), "A man is playing a guitar.")


def a_paraphrase():
    return make_paraphrase(make_worker(), make_paraphrase_source(), "A guy cuts up a tomato.")


def an_alignment():
    (pair,) = annotation_services.pairs_store(
        [
            SentencePair(
                origin=SentencePair.Origin.IMPORT,
                import_key="contract:1",
                tokens_a=["A", "man", "plays"],
                tokens_b=["A", "guy", "plays"],
            )
        ],
        open_hits=True,
    )
    worker = make_worker()
    assignment = crowd.assignment_claim(worker=worker, tier=1, kind=HitType.Kind.ALIGNMENT)
    alignment, _ = annotation_services.alignment_submit(
        assignment_id=assignment.pk, worker=worker, links="0-0 1-1 2-2"
    )
    assert alignment.pair == pair
    return alignment


def a_rating():
    make_batch(pairs=[("A man plays a guitar.", "Someone strums a guitar.")], judges=1)
    return rate_next(make_worker())


def a_proposal():
    return make_proposal()


@dataclass(frozen=True)
class Kind:
    model: type[Reviewed]
    make: object
    hit_kind: str

    def accepting(self, item) -> dict:
        """What accepting writes besides the decision: an accepted proposal is a segment."""
        if self.model is SegmentProposal:
            span = {"youtube_id": item.youtube_id, "start": item.start, "end": item.end}
            segment = Segment.objects.filter(**span).first() or make_segment(**span)
            return {"segment": segment, "pay_cents": 5}
        return {}

    def rejecting(self) -> dict:
        return {"pay_cents": 0} if self.model is SegmentProposal else {}


KINDS = [
    Kind(Description, a_description, HitType.Kind.DESCRIPTION),
    Kind(Paraphrase, a_paraphrase, HitType.Kind.PARAPHRASE),
    Kind(Alignment, an_alignment, HitType.Kind.ALIGNMENT),
    Kind(Rating, a_rating, HitType.Kind.RATING),
    Kind(SegmentProposal, a_proposal, HitType.Kind.VIDEO_COLLECTION),
]


@pytest.fixture(params=KINDS, ids=lambda kind: kind.model.__name__)
def kind(request):
    return request.param


@pytest.fixture
def staff():
    return make_staff(username="ada")


def accept(kind, item, staff, reason=""):
    return crowd.work_accept(
        items=[item], reviewer=staff, reason=reason, changes=kind.accepting(item)
    )


def reject(kind, item, staff, reason="Not what was asked."):
    return crowd.work_reject(items=[item], reviewer=staff, reason=reason, changes=kind.rejecting())


def test_every_kind_of_work_follows_the_contract(kind):
    assert issubclass(kind.model, Reviewed)
    assert kind.model.Status.values == ["pending", "accepted", "rejected"]
    item = kind.make()
    assert item.status == "pending"
    assert list(kind.model.objects.pending()) == [item]
    assert not kind.model.objects.accepted().exists()


def test_accepting_pays_once_and_records_who_and_when(kind, staff):
    item = kind.make()
    outcome = accept(kind, item, staff)
    assert outcome.changed == [item.pk]
    again = accept(kind, item, staff)
    assert (again.changed, again.unchanged) == ([], [item.pk])
    item.refresh_from_db()
    assert (item.status, item.reviewed_by, item.review_reason) == ("accepted", staff, "")
    assert item.reviewed_at is not None
    entry = LedgerEntry.objects.get()
    assert (entry.assignment_id, entry.created_by) == (item.assignment_id, staff)
    audit = AuditEntry.objects.get()
    assert (audit.action, audit.actor, audit.worker_id) == ("accept", staff, item.worker_id)
    assert audit.details == {kind.model.review_noun: [item.pk]}


def test_rejecting_needs_a_reason_and_frees_the_slot(kind, staff):
    item = kind.make()
    hit = item.assignment.hit
    submitted = type(hit).objects.get(pk=hit.pk).submitted_count
    with pytest.raises(crowd.WorkRefused, match="Give a reason"):
        reject(kind, item, staff, reason="  ")
    item.refresh_from_db()
    assert item.status == "pending"

    assert reject(kind, item, staff).changed == [item.pk]

    item.refresh_from_db()
    assert (item.status, item.review_reason) == ("rejected", "Not what was asked.")
    assert item.assignment.status == Assignment.Status.REJECTED
    assert type(hit).objects.get(pk=hit.pk).submitted_count == submitted - 1
    assert not LedgerEntry.objects.exists()
    assert AuditEntry.objects.get().action == "reject"


def test_overturning_a_rejection_needs_a_reason_and_pays(kind, staff):
    item = kind.make()
    reject(kind, item, staff)
    with pytest.raises(crowd.WorkRefused, match="Give a reason"):
        crowd.work_overturn(items=[item], reviewer=staff, reason="")
    # Accepting is for pending work: a rejection is overturned, not accepted.
    assert accept(kind, item, staff).unchanged == [item.pk]

    outcome = crowd.work_overturn(
        items=[item], reviewer=staff, reason="Fine after all.", changes=kind.accepting(item)
    )

    assert outcome.changed == [item.pk]
    item.refresh_from_db()
    assert (item.status, item.review_reason) == ("accepted", "Fine after all.")
    assert item.assignment.status == Assignment.Status.SUBMITTED
    assert LedgerEntry.objects.get().assignment_id == item.assignment_id
    overturned = AuditEntry.objects.get(action="accept")
    assert overturned.details == {kind.model.review_noun: [item.pk], "overturned": True}


def test_an_acceptance_is_final(kind, staff):
    item = kind.make()
    accept(kind, item, staff)
    assert reject(kind, item, staff).unchanged == [item.pk]
    overturn = crowd.work_overturn(items=[item], reviewer=staff, reason="Changed my mind.")
    assert overturn.unchanged == [item.pk]
    item.refresh_from_db()
    assert item.status == "accepted"
    assert LedgerEntry.objects.count() == 1 and AuditEntry.objects.count() == 1


def test_a_second_decision_changes_nothing(kind, staff):
    item = kind.make()
    reject(kind, item, staff, reason="First.")
    assert reject(kind, item, staff, reason="Second.").unchanged == [item.pk]
    item.refresh_from_db()
    assert item.review_reason == "First."
    assert AuditEntry.objects.count() == 1


def test_work_a_platform_has_not_confirmed_is_never_accepted(kind, staff):
    item = kind.make()
    Assignment.objects.filter(pk=item.assignment_id).update(verified_at=None)
    assert accept(kind, item, staff).unverified == [item.pk]
    item.refresh_from_db()
    assert item.status == "pending" and not LedgerEntry.objects.exists()


def test_work_nobody_reviewed_is_accepted_after_the_delay(kind):
    item = kind.make()
    delay = HitType.objects.for_kind(kind.hit_kind).auto_accept_after
    kind.model.objects.filter(pk=item.pk).update(created_at=timezone.now() - delay)
    accepted = crowd.work_auto_accept(kind.model, kind=kind.hit_kind)
    assert crowd.work_auto_accept(kind.model, kind=kind.hit_kind) == 0
    item.refresh_from_db()
    if kind.model is SegmentProposal:
        # A proposal enters the corpus only once a person has watched it.
        assert (accepted, item.status) == (0, "pending")
        return
    assert (accepted, item.status, item.reviewed_by) == (1, "accepted", None)
    assert item.review_reason.startswith("Accepted automatically after")
    assert LedgerEntry.objects.get().assignment_id == item.assignment_id


def test_work_is_not_accepted_automatically_before_the_delay_nor_when_held(kind):
    item = kind.make()
    later = timezone.now() + timedelta(days=365)
    assert crowd.work_auto_accept(kind.model, kind=kind.hit_kind) == 0
    assert crowd.work_auto_accept(kind.model, kind=kind.hit_kind, now=later, hold=[item.pk]) == 0
    item.refresh_from_db()
    assert item.status == "pending"
