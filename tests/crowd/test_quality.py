"""Gold items in the allocation, and the quality checks with their warn and stop rules."""

import pytest

from crowd import services as crowd
from crowd.models import AuditEntry, Hit, HitType, QualityRule, Tier
from crowd.services import WorkRefused
from tests.factories import description_hit_type, make_segment, make_staff, make_worker

pytestmark = pytest.mark.django_db


def _gold_segment():
    segment = make_segment()
    crowd.gold_item_create(
        item=segment.item, answer={"references": []}, source="test", created_by=None
    )
    return segment


def _rate(percent):
    HitType.objects.filter(pk=description_hit_type().pk).update(gold_percent=percent)


def test_at_a_rate_of_zero_a_gold_item_comes_after_all_ordinary_work():
    gold = _gold_segment()
    ordinary = make_segment()
    worker = make_worker()
    first = crowd.assignment_claim(worker=worker, tier=Tier.ONE)
    crowd.assignment_return(assignment_id=first.pk, worker=worker)
    second = crowd.assignment_claim(worker=worker, tier=Tier.ONE)
    crowd.assignment_return(assignment_id=second.pk, worker=worker)
    assert [first.hit.item_id, second.hit.item_id] == [ordinary.item_id, gold.item_id]
    assert crowd.assignment_claim(worker=worker, tier=Tier.ONE) is None


def test_gold_items_are_handed_out_at_the_rate_staff_set():
    gold = [_gold_segment() for _ in range(10)]
    ordinary = [make_segment() for _ in range(40)]
    _rate(20)
    worker = make_worker()
    given = []
    for _ in range(30):
        assignment = crowd.assignment_claim(worker=worker, tier=Tier.ONE)
        given.append(assignment.hit.item_id)
        crowd.assignment_return(assignment_id=assignment.pk, worker=worker)
    gold_given = sum(item in {s.item_id for s in gold} for item in given)
    assert gold_given == 6
    assert len(set(given)) == 30  # never an item twice
    assert {s.item_id for s in ordinary} >= set(given) - {s.item_id for s in gold}


def test_ordinary_work_follows_when_no_gold_item_is_left_for_the_worker():
    _rate(100)
    segment = make_segment()
    assignment = crowd.assignment_claim(worker=make_worker(), tier=Tier.ONE)
    assert assignment.hit.item_id == segment.item_id


def test_a_gold_item_takes_every_worker_once_beyond_its_target():
    segment = _gold_segment()
    _rate(100)
    for _ in range(4):
        worker = make_worker()
        assignment = crowd.assignment_claim(worker=worker, tier=Tier.ONE)
        assert assignment.hit.item_id == segment.item_id
    hit = Hit.objects.get(item=segment.item, tier=Tier.ONE)
    assert hit.max_assignments == crowd.quality.GOLD_ANSWERS_PER_HIT


def test_a_retired_gold_item_is_handed_out_no_more():
    segment = _gold_segment()
    _rate(100)
    crowd.gold_item_retire(gold_id=segment.item.gold.pk)
    assert crowd.assignment_claim(worker=make_worker(), tier=Tier.ONE) is None


def _fail(worker, n, start=0):
    for i in range(start, start + n):
        crowd.quality_check_record(worker=worker, kind="gold", source=f"t:{i}", passed=False)


def test_a_check_recorded_twice_is_stored_once():
    worker = make_worker()
    first = crowd.quality_check_record(worker=worker, kind="gold", source="a:1", passed=True)
    again = crowd.quality_check_record(worker=worker, kind="gold", source="a:1", passed=False)
    assert again.pk == first.pk and again.passed


def test_it_warns_after_n_failures_and_stops_after_m_audited():
    QualityRule.objects.create(check_kind="gold", warn_after=2, stop_after=3, window=10)
    worker = make_worker()
    _fail(worker, 1)
    assert crowd.quality_notice(worker) is None
    _fail(worker, 1, start=1)
    assert crowd.quality_notice(worker) == crowd.quality.WARNING_MESSAGE
    assert AuditEntry.objects.filter(worker=worker, action="warn").count() == 1
    _fail(worker, 1, start=2)
    worker.refresh_from_db()
    assert worker.blocked_at is not None
    block = AuditEntry.objects.get(worker=worker, action="block")
    assert block.actor is None and block.details["rule"] == "quality"
    assert crowd.quality_standing(worker=worker).stopped
    assert crowd.quality_notice(worker) == crowd.quality.STOP_MESSAGE
    make_segment()
    with pytest.raises(WorkRefused, match="did not pass our checks"):
        crowd.assignment_claim(worker=worker, tier=Tier.ONE)


def test_passes_in_the_window_keep_a_worker_going():
    QualityRule.objects.create(check_kind="gold", warn_after=3, stop_after=3, window=5)
    worker = make_worker()
    for i in range(20):
        crowd.quality_check_record(worker=worker, kind="gold", source=f"s:{i}", passed=i % 3 != 0)
    worker.refresh_from_db()
    assert worker.blocked_at is None


def test_staff_lift_the_stop_and_earlier_failures_no_longer_count():
    QualityRule.objects.create(check_kind="gold", warn_after=1, stop_after=2, window=10)
    worker = make_worker()
    _fail(worker, 2)
    crowd.worker_unblock(worker=worker, unblocked_by=make_staff(), reason="Talked to them.")
    standing = crowd.quality_standing(worker=worker)
    assert standing.failures == 0 and not standing.stopped and standing.answered == 2
    _fail(worker, 1, start=5)
    worker.refresh_from_db()
    assert worker.blocked_at is None
    assert crowd.quality_notice(worker) is not None


def test_each_check_kind_has_its_own_rule():
    QualityRule.objects.create(check_kind="pasted", warn_after=0, stop_after=0, window=3)
    worker = make_worker()
    for i in range(3):
        crowd.quality_check_record(worker=worker, kind="pasted", source=f"p:{i}", passed=False)
    worker.refresh_from_db()
    assert worker.blocked_at is None
    assert crowd.quality_standing(worker=worker, kind="pasted").failures == 3


def test_a_check_needs_a_kind():
    with pytest.raises(ValueError):
        crowd.quality_check_record(worker=make_worker(), kind=" ", source="x", passed=True)


def test_a_warning_from_any_kind_of_check_is_shown_to_the_worker():
    QualityRule.objects.create(check_kind="pasted", warn_after=1, stop_after=0, window=3)
    worker = make_worker()
    crowd.quality_check_record(worker=worker, kind="pasted", source="p:1", passed=False)
    assert crowd.quality_notice(worker) == crowd.quality.WARNING_MESSAGE
    warning = AuditEntry.objects.get(worker=worker, action="warn")
    assert warning.details == {"rule": "quality", "kind": "pasted", "failures": 1}
