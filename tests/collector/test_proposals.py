"""Video-collection HITs: claiming one, proposing a segment, and reviewing proposals."""

import threading
from datetime import timedelta
from decimal import Decimal as D

import pytest
from django.db import IntegrityError, connection, transaction
from django.utils import timezone

from collector import services
from collector.models import Segment, SegmentProposal
from crowd import services as crowd
from crowd.models import Assignment, Hit, HitType, LedgerEntry, Tier
from tests.factories import make_proposal, make_segment, make_staff, make_worker

pytestmark = pytest.mark.django_db

VC = HitType.Kind.VIDEO_COLLECTION
VIDEO = "dQw4w9WgXcQ"


def claim(worker, tier=Tier.ONE):
    return crowd.assignment_claim(worker=worker, tier=tier, kind=VC)


def propose(worker, start, end, *, youtube_id=VIDEO, tier=Tier.ONE, event="A dog jumps"):
    assignment = claim(worker, tier)
    proposal, _ = services.proposal_submit(
        assignment_id=assignment.pk,
        worker=worker,
        youtube_id=youtube_id,
        start=D(start),
        end=D(end),
        event=event,
    )
    return proposal


# Claiming


def test_claiming_opens_a_hit_for_that_worker_alone_wanting_one_proposal():
    alice, bob = make_worker(), make_worker()
    mine, theirs = claim(alice), claim(bob)
    assert mine.hit != theirs.hit
    assert (mine.hit.opened_for, mine.hit.max_assignments, mine.hit.tier) == (alice, 1, Tier.ONE)
    assert mine.hit.item is None
    assert mine.expires_at - mine.accepted_at == HitType.objects.for_kind(VC).assignment_duration


def test_claiming_again_gives_back_the_task_the_worker_holds():
    alice = make_worker()
    assert claim(alice) == claim(alice)
    assert Hit.objects.filter(opened_for=alice).count() == 1


def test_a_new_task_is_opened_once_the_last_one_was_submitted():
    alice = make_worker()
    first = propose(alice, 0, 5)
    assert claim(alice) != first.assignment


def test_a_worker_takes_at_most_the_daily_allowance(settings):
    settings.PROPOSALS_PER_DAY = 2
    alice = make_worker()
    propose(alice, 0, 5)
    propose(alice, 10, 15)
    with pytest.raises(crowd.WorkRefused, match="the 2 video-collection tasks allowed in 24"):
        claim(alice)
    # A day later the allowance is back.
    Assignment.objects.filter(worker=alice).update(accepted_at=timezone.now() - timedelta(days=1))
    assert claim(alice) is not None


def test_a_tier_one_worker_cannot_take_tier_two_video_collection():
    with pytest.raises(crowd.WorkRefused, match="Tier-2"):
        claim(make_worker(), Tier.TWO)


def test_description_and_proposal_work_never_mix():
    alice, bob = make_worker(), make_worker()
    claim(alice)
    assert crowd.assignment_claim(worker=bob, tier=Tier.ONE) is None
    segment = make_segment()
    assert crowd.assignment_claim(worker=bob, tier=Tier.ONE).hit.item.segment == segment
    assert claim(bob).hit.opened_for == bob


@pytest.mark.parametrize(
    "items",
    [
        {},
        {"item": True, "opened_for": True},
    ],
)
def test_the_database_wants_exactly_one_item_per_hit(items):
    fields = {"hit_type": HitType.objects.for_kind(VC), "tier": Tier.ONE, "max_assignments": 1}
    if items.get("item"):
        fields["item"] = make_segment().item
    if items.get("opened_for"):
        fields["opened_for"] = make_worker()
    with pytest.raises(IntegrityError):
        Hit.objects.create(**fields)


def test_the_database_refuses_a_proposal_hit_wanting_more_than_one_submission():
    with pytest.raises(IntegrityError):
        Hit.objects.create(
            hit_type=HitType.objects.for_kind(VC),
            tier=1,
            opened_for=make_worker(),
            max_assignments=2,
        )


# Proposing


def test_a_proposal_is_stored_once_with_its_tier_and_time_spent():
    alice = make_worker(tier=Tier.TWO)
    assignment = claim(alice, Tier.TWO)
    fields = {"youtube_id": VIDEO, "start": D("4.5"), "end": D(11), "event": "A dog jumps"}
    first, created = services.proposal_submit(assignment_id=assignment.pk, worker=alice, **fields)
    again, created_again = services.proposal_submit(
        assignment_id=assignment.pk, worker=alice, **fields
    )
    assert (created, created_again) == (True, False) and first == again
    assert (first.tier, first.status, first.worker) == (Tier.TWO, "pending", alice)
    assert first.time_spent is not None
    assignment.refresh_from_db()
    assert assignment.status == Assignment.Status.SUBMITTED
    assert assignment.hit.submitted_count == 1
    assert SegmentProposal.objects.count() == 1


def test_charlie_cannot_submit_alices_video_collection_task():
    assignment = claim(make_worker())
    with pytest.raises(crowd.WorkRefused, match="no such task"):
        services.proposal_submit(
            assignment_id=assignment.pk,
            worker=make_worker(),
            youtube_id=VIDEO,
            start=D(0),
            end=D(5),
            event="x",
        )


@pytest.mark.parametrize(
    "start, end, message",
    [
        (8, 3, "The end must come after the start."),
        (3, 3, "The end must come after the start."),
        (3, 4, "it must be at least 2 seconds"),
        (3, 30, "This segment is 27 seconds long; it can be at most 20 seconds."),
    ],
)
def test_a_span_of_the_wrong_length_is_refused(start, end, message):
    with pytest.raises(crowd.WorkRefused, match=message):
        propose(make_worker(), start, end)
    assert not SegmentProposal.objects.exists()


@pytest.mark.parametrize("event", ["", "   ", "x" * 201])
def test_a_proposal_needs_a_few_words_on_what_happens(event):
    with pytest.raises(crowd.WorkRefused, match="at most 200 characters"):
        propose(make_worker(), 3, 9, event=event)


def test_a_proposal_needs_a_youtube_video_id():
    with pytest.raises(crowd.WorkRefused, match="not a YouTube video id"):
        propose(make_worker(), 3, 9, youtube_id="https://x.y")


def test_a_segment_already_in_the_corpus_cannot_be_proposed():
    make_segment(youtube_id=VIDEO, start=10, end=16)
    with pytest.raises(crowd.WorkRefused, match=r"\(0:10–0:16\) is already in the corpus"):
        propose(make_worker(), 10, 16)


def test_a_segment_already_proposed_cannot_be_proposed_again():
    propose(make_worker(), 10, 16)
    with pytest.raises(crowd.WorkRefused, match=r"\(0:10–0:16\) was already proposed"):
        propose(make_worker(), 10, 16)


@pytest.mark.parametrize(
    "existing, proposed, refused",
    [
        # Exactly half of the shorter segment is allowed; a hundredth more is not.
        ((0, 10), (5, 15), False),
        ((0, 10), ("4.99", "14.99"), True),
        ((0, 10), (8, 12), False),
        ((0, 10), ("7.99", "11.99"), True),
        ((0, 20), (5, 9), True),
        ((0, 10), (10, 15), False),
    ],
)
def test_a_span_overlapping_a_proposal_by_more_than_half_is_refused(existing, proposed, refused):
    propose(make_worker(), *existing)
    if refused:
        with pytest.raises(crowd.WorkRefused, match="more than half of the shorter segment"):
            propose(make_worker(), *proposed)
    else:
        propose(make_worker(), *proposed)


def test_a_span_overlapping_a_corpus_segment_by_more_than_half_is_refused():
    make_segment(youtube_id=VIDEO, start=0, end=10)
    with pytest.raises(crowd.WorkRefused, match=r"overlaps 0:00–0:10 .* in the corpus, by 6"):
        propose(make_worker(), 4, 12)
    propose(make_worker(), 7, 13)  # shares 3 seconds: exactly half of the shorter


def test_the_same_span_of_another_video_is_fine():
    propose(make_worker(), 0, 10)
    propose(make_worker(), 0, 10, youtube_id="abcdefghijk")
    assert SegmentProposal.objects.count() == 2


def test_a_rejected_span_blocks_its_exact_repeat_but_not_a_better_timed_one():
    rejected = propose(make_worker(), 0, 10)
    services.proposal_reject(
        proposal_id=rejected.pk, reviewer=make_staff(), reasons=["timing"], note=""
    )
    with pytest.raises(crowd.WorkRefused, match="was already proposed"):
        propose(make_worker(), 0, 10)
    assert propose(make_worker(), 2, 9).status == "pending"


def test_a_refused_proposal_leaves_the_task_open_to_try_again():
    make_segment(youtube_id=VIDEO, start=0, end=10)
    alice = make_worker()
    assignment = claim(alice)
    with pytest.raises(crowd.WorkRefused):
        services.proposal_submit(
            assignment_id=assignment.pk,
            worker=alice,
            youtube_id=VIDEO,
            start=D(0),
            end=D(10),
            event="x",
        )
    assignment.refresh_from_db()
    assert assignment.status == Assignment.Status.ASSIGNED
    proposal, created = services.proposal_submit(
        assignment_id=assignment.pk,
        worker=alice,
        youtube_id=VIDEO,
        start=D(20),
        end=D(26),
        event="x",
    )
    assert created and proposal.assignment == assignment


def test_the_database_refuses_a_malformed_video_id_and_a_repeated_span():
    proposal = propose(make_worker(), 0, 5)
    other = claim(make_worker())
    fields = {"assignment": other, "worker": other.worker, "tier": 1, "event": "x"}
    with pytest.raises(IntegrityError), transaction.atomic():
        SegmentProposal.objects.create(youtube_id="bad id", start=0, end=5, **fields)
    with pytest.raises(IntegrityError), transaction.atomic():
        SegmentProposal.objects.create(youtube_id=VIDEO, start=proposal.start, end=5, **fields)


@pytest.mark.django_db(transaction=True)
def test_workers_proposing_overlapping_spans_at_once_store_only_one():
    workers = [make_worker() for _ in range(8)]
    assignments = [claim(worker) for worker in workers]
    barrier = threading.Barrier(len(workers))
    stored, refused, errors = [], [], []

    def submit(worker, assignment, offset):
        try:
            barrier.wait()
            proposal, _ = services.proposal_submit(
                assignment_id=assignment.pk,
                worker=worker,
                youtube_id=VIDEO,
                start=D(offset) / 2,
                end=D(offset) / 2 + 8,
                event="x",
            )
            stored.append(proposal)
        except crowd.WorkRefused as refusal:
            refused.append(refusal)
        except Exception as error:  # surfaced by the assertion below
            errors.append(error)
        finally:
            connection.close()

    threads = [
        threading.Thread(target=submit, args=(worker, assignment, n))
        for n, (worker, assignment) in enumerate(zip(workers, assignments, strict=True))
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    # Every pair of these spans (n/2 to n/2 + 8, n < 8) shares more than 4 seconds.
    assert errors == [] and len(stored) == 1 and len(refused) == 7
    assert SegmentProposal.objects.count() == 1


# Reviewing


def test_approving_makes_a_segment_offered_for_description_and_records_the_pay():
    alice = make_worker(tier=Tier.TWO)
    proposal = propose(alice, 3, 9, tier=Tier.TWO, event="A dog catches a ball")
    admin = make_staff()
    approved = services.proposal_approve(proposal_id=proposal.pk, reviewer=admin)
    segment = approved.segment
    assert (segment.source, segment.youtube_id, segment.start, segment.end) == (
        "youtube",
        VIDEO,
        3,
        9,
    )
    assert segment.title == "A dog catches a ball"
    description = HitType.objects.for_kind(HitType.Kind.DESCRIPTION)
    assert sorted(segment.hits.values_list("tier", "max_assignments")) == [
        (1, description.target_tier1),
        (2, description.target_tier2),
    ]
    assert (approved.status, approved.reviewed_by, approved.pay_cents) == ("accepted", admin, 25)
    assert approved.reviewed_at is not None


def test_the_pay_is_the_proposers_tier_rate_as_configured_when_approved():
    HitType.objects.for_kind(VC)
    HitType.objects.filter(kind=VC).update(pay_tier1_cents=7)
    proposal = propose(make_worker(), 3, 9)
    approved = services.proposal_approve(proposal_id=proposal.pk, reviewer=make_staff())
    assert approved.pay_cents == 7


def test_a_different_worker_receives_the_approved_segment_as_a_description_task():
    proposal = propose(make_worker(), 3, 9)
    services.proposal_approve(proposal_id=proposal.pk, reviewer=make_staff())
    task = crowd.assignment_claim(worker=make_worker(), tier=Tier.ONE)
    assert task.hit.item.segment == SegmentProposal.objects.get().segment


def test_approving_twice_changes_nothing():
    proposal = propose(make_worker(), 3, 9)
    first = services.proposal_approve(proposal_id=proposal.pk, reviewer=make_staff())
    again = services.proposal_approve(proposal_id=proposal.pk, reviewer=make_staff())
    assert again.reviewed_by == first.reviewed_by and Segment.objects.count() == 1


def test_rejecting_records_the_reasons_and_keeps_the_proposal():
    proposal = propose(make_worker(), 3, 9)
    admin = make_staff()
    rejected = services.proposal_reject(
        proposal_id=proposal.pk,
        reviewer=admin,
        reasons=["text", "language", "text"],
        note="  Burned-in captions  ",
    )
    rejected.refresh_from_db()
    assert (rejected.status, rejected.reviewed_by, rejected.pay_cents) == ("rejected", admin, 0)
    assert rejected.reasons == ["language", "text"]
    assert rejected.review_reason == "Burned-in captions"
    assert rejected.segment is None and not Segment.objects.exists()


@pytest.mark.parametrize(
    "reasons, note, message",
    [
        ([], "", "Tick at least one reason or write one."),
        ([], "   ", "Tick at least one reason or write one."),
        (["boring"], "", "Unknown reason: boring."),
    ],
)
def test_a_rejection_needs_a_known_reason(reasons, note, message):
    proposal = propose(make_worker(), 3, 9)
    with pytest.raises(crowd.WorkRefused, match=message):
        services.proposal_reject(
            proposal_id=proposal.pk, reviewer=make_staff(), reasons=reasons, note=note
        )
    proposal.refresh_from_db()
    assert proposal.status == "pending"


def test_a_decision_once_made_is_not_reversed():
    admin = make_staff(username="ada")
    approved, rejected = propose(make_worker(), 3, 9), propose(make_worker(), 20, 29)
    services.proposal_approve(proposal_id=approved.pk, reviewer=admin)
    services.proposal_reject(proposal_id=rejected.pk, reviewer=admin, reasons=["text"])
    with pytest.raises(crowd.WorkRefused, match="already accepted by ada"):
        services.proposal_reject(proposal_id=approved.pk, reviewer=admin, reasons=["text"])
    with pytest.raises(crowd.WorkRefused, match="already rejected by ada"):
        services.proposal_approve(proposal_id=rejected.pk, reviewer=admin)


def test_approval_is_refused_when_the_corpus_gained_an_overlapping_segment_meanwhile():
    proposal = propose(make_worker(), 3, 9)
    make_segment(youtube_id=VIDEO, start=4, end=10)  # e.g. an import
    with pytest.raises(crowd.WorkRefused, match="Reject this proposal instead"):
        services.proposal_approve(proposal_id=proposal.pk, reviewer=make_staff())
    assert SegmentProposal.objects.get().status == "pending"


def test_the_database_wants_a_decision_recorded_in_full():
    proposal = make_proposal()
    with pytest.raises(IntegrityError), transaction.atomic():
        SegmentProposal.objects.filter(pk=proposal.pk).update(
            status="accepted", reviewed_at=timezone.now(), pay_cents=5
        )  # no segment
    with pytest.raises(IntegrityError), transaction.atomic():
        SegmentProposal.objects.filter(pk=proposal.pk).update(
            status="rejected", reviewed_at=timezone.now(), pay_cents=0
        )  # no reason


def test_an_approved_proposal_is_paid_once_through_the_ledger():
    admin = make_staff()
    proposal = make_proposal(tier=Tier.TWO)
    services.proposal_approve(proposal_id=proposal.pk, reviewer=admin)
    services.proposal_approve(proposal_id=proposal.pk, reviewer=admin)
    entry = LedgerEntry.objects.get(worker=proposal.worker)
    expected = HitType.objects.for_kind(HitType.Kind.VIDEO_COLLECTION).pay_cents(Tier.TWO)
    assert (entry.amount_cents, entry.tier, entry.kind) == (expected, Tier.TWO, "task")
    assert entry.assignment_id == proposal.assignment_id


def test_a_rejected_proposal_earns_nothing():
    proposal = make_proposal()
    services.proposal_reject(proposal_id=proposal.pk, reviewer=make_staff(), reasons=["text"])
    assert not LedgerEntry.objects.exists()
