import pytest
from django.core.management import call_command

from collector.models import Segment
from crowd.models import Hit, Tier, Worker

pytestmark = pytest.mark.django_db


def test_the_demo_loads_its_segments_and_logins_once(media_root):
    call_command("load_demo", verbosity=0)
    call_command("load_demo", verbosity=0)

    assert Segment.objects.count() == 4
    assert Hit.objects.count() == 8
    assert Worker.objects.get(user__username="tier2").current_tier == Tier.TWO
    assert Worker.objects.get(user__username="tier1").current_tier == Tier.ONE
    clip = Segment.objects.get(source=Segment.Source.FILE).video_file
    assert clip.storage.exists(clip.name)
