"""Signals stored while a time of zero still counted as a measurement: the migration marks
them stale, and the sweep's recompute takes the speed flag away."""

from datetime import timedelta
from importlib import import_module

import pytest
from django.apps import apps
from django.utils import timezone

from collector.models import Description
from review import services
from review.models import WorkerSignals
from tests.factories import make_submitted_description, make_worker

migration = import_module("review.migrations.0004_recompute_zero_time_speed_flags")


def stored_under_the_old_rule(worker, description, *, ratio):
    """The row a refresh stored before: flagged for speed at ``ratio``, up to date."""
    WorkerSignals.objects.update_or_create(
        worker=worker,
        defaults={
            "descriptions": 1,
            "median_time_ratio": ratio,
            "flags": ["speed"],
            "details": {"speed": {"explanation": "median 0.0× the segment's length"}},
            "through_description": description.pk,
            "computed_at": timezone.now() + timedelta(minutes=1),
        },
    )


@pytest.mark.django_db
def test_a_speed_flag_from_times_of_zero_is_recomputed_and_goes():
    writer, fast = make_worker(), make_worker()
    zero = make_submitted_description(writer, "A man is playing a guitar on a stage.")
    Description.objects.filter(pk=zero.pk).update(time_spent=timedelta(0))
    real = make_submitted_description(fast, "A woman slices a tomato.")
    stored_under_the_old_rule(writer, zero, ratio=0.0)
    stored_under_the_old_rule(fast, real, ratio=0.2)  # a real measurement: left alone
    assert services.workers_with_stale_signals(limit=10) == []

    migration.mark_zero_time_flags_stale(apps, None)

    assert services.workers_with_stale_signals(limit=10) == [writer.pk]
    services.worker_signals_refresh(worker_id=writer.pk)
    signals = WorkerSignals.objects.get(worker=writer)
    assert "speed" not in signals.flags and signals.median_time_ratio is None
    assert WorkerSignals.objects.get(worker=fast).through_description == real.pk
