from datetime import timedelta

from django.db import migrations

from crowd.models import HitType as CurrentHitType


def seed(apps, schema_editor):
    """One HIT type per kind with the study's defaults (admins edit them afterwards)."""
    HitType = apps.get_model("crowd", "HitType")
    for kind, (title, pay1, pay2, target1, target2, minutes) in CurrentHitType.DEFAULTS.items():
        HitType.objects.get_or_create(
            kind=kind,
            defaults={
                "title": title,
                "pay_tier1_cents": pay1,
                "pay_tier2_cents": pay2,
                "target_tier1": target1,
                "target_tier2": target2,
                "assignment_duration": timedelta(minutes=minutes),
            },
        )


class Migration(migrations.Migration):
    dependencies = [("crowd", "0001_initial")]

    operations = [migrations.RunPython(seed, migrations.RunPython.noop)]
