"""The work a new campaign offers is real work: gold items never count as work wanted, and a
campaign never plans more places than there are tasks left to do."""

from datetime import timedelta

import pytest

from crowd import services as crowd
from crowd.models import HitType, Tier
from crowd.services.campaign_work import campaign_places_check
from tests.factories import description_hit_type, make_segment

pytestmark = pytest.mark.django_db


def create(size, **options):
    return crowd.campaign_create(
        name="Descriptions",
        platform="studylink",
        kind=HitType.Kind.DESCRIPTION,
        tier=Tier.ONE,
        size=size,
        lifetime=timedelta(days=7),
        tasks_per_session=options.pop("tasks_per_session", 3),
        **options,
    )


def test_gold_items_are_never_counted_as_work_a_campaign_wants():
    ordinary = [make_segment(targets=(3, 3)) for _ in range(3)]
    gold = make_segment()
    crowd.gold_item_create(item=gold.item, answer={"references": []}, source="t", created_by=None)
    campaign = create(10)
    offered = set(campaign.postings.values_list("hit__item_id", flat=True))
    assert offered == {segment.item_id for segment in ordinary}
    assert campaign.tasks_wanted == 9 and campaign.places == 3


def test_a_campaign_of_nothing_but_gold_items_is_refused():
    gold = make_segment()
    crowd.gold_item_create(item=gold.item, answer={"references": []}, source="t", created_by=None)
    with pytest.raises(crowd.WorkRefused, match="HITs in tier 1 want work outside other campaigns"):
        create(5)


def test_more_places_than_tasks_left_are_refused_naming_both_numbers():
    make_segment(targets=(3, 3))
    with pytest.raises(crowd.WorkRefused) as refusal:
        campaign_places_check(hit_type=description_hit_type(), tier=Tier.ONE, places=4)
    assert "asks for 4 places but only 3 tasks are left to do" in str(refusal.value)
    campaign_places_check(hit_type=description_hit_type(), tier=Tier.ONE, places=3)


def test_one_task_left_is_counted_in_the_singular():
    make_segment(targets=(1, 1))
    with pytest.raises(crowd.WorkRefused) as refusal:
        campaign_places_check(hit_type=description_hit_type(), tier=Tier.ONE, places=2)
    assert "asks for 2 places but only 1 task is left to do" in str(refusal.value)
