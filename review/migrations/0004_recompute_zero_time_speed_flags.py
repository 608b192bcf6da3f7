"""Worker signals stored while a time of zero still counted as a measurement could carry a
speed flag at a median of 0× (a demo writer, an imported description). Such rows are marked
stale, so the periodic sweep (review.tasks.sweep_stale_signals) recomputes them under the
rule that a time of zero is no measurement. Nothing else changes; the reverse does nothing."""

from django.db import migrations
from django.db.models import Q


def mark_zero_time_flags_stale(apps, schema_editor):
    WorkerSignals = apps.get_model("review", "WorkerSignals")
    zero_time = Q(median_time_ratio__lte=0) | Q(median_time_ratio__isnull=True)
    WorkerSignals.objects.filter(zero_time, flags__contains=["speed"]).update(through_description=0)


class Migration(migrations.Migration):
    dependencies = [("review", "0003_worker_typing_signal")]

    operations = [migrations.RunPython(mark_zero_time_flags_stale, migrations.RunPython.noop)]
