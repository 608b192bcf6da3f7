from datetime import timedelta

from django.db import migrations

# The study's pay: $0.01 a description in Tier 1, five times that in Tier 2.
HIT_TYPES = [
    ("description", "Describe a short video segment in one sentence", 1, 5, 20, 20, 15),
    ("video_collection", "Find a short video segment showing one clear action", 5, 25, 1, 1, 30),
    ("alignment", "Align the words of two sentences", 5, 25, 2, 2, 30),
]


def create_hit_types(apps, schema_editor):
    HitType = apps.get_model("collector", "HitType")
    for kind, title, pay1, pay2, target1, target2, minutes in HIT_TYPES:
        HitType.objects.get_or_create(
            kind=kind,
            defaults=dict(
                title=title,
                pay_tier1_cents=pay1,
                pay_tier2_cents=pay2,
                target_tier1=target1,
                target_tier2=target2,
                assignment_duration=timedelta(minutes=minutes),
            ),
        )


class Migration(migrations.Migration):
    dependencies = [("collector", "0001_initial")]
    operations = [migrations.RunPython(create_hit_types, migrations.RunPython.noop)]
