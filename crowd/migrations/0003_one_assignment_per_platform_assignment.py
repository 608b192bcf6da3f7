from django.db import migrations, models
from django.db.models import Count, Q


def unlink_repeated_platform_assignments(apps, schema_editor):
    """Before this migration a reload could give a second local assignment under one platform
    assignment. Keep the platform's id on the first of them (the platform pays one); the later
    ones stay, with their work, as local assignments without a platform id."""
    Assignment = apps.get_model("crowd", "Assignment")
    repeated = (
        Assignment.objects.exclude(external_assignment_id="")
        .values("external_assignment_id")
        .annotate(n=Count("id"))
        .filter(n__gt=1)
        .values_list("external_assignment_id", flat=True)
    )
    for external_id in list(repeated):
        later = Assignment.objects.filter(external_assignment_id=external_id).order_by("id")[1:]
        Assignment.objects.filter(pk__in=[a.pk for a in later]).update(external_assignment_id="")


class Migration(migrations.Migration):
    dependencies = [("crowd", "0002_seed_hit_types")]

    operations = [
        migrations.RunPython(unlink_repeated_platform_assignments, migrations.RunPython.noop),
        migrations.AddConstraint(
            model_name="assignment",
            constraint=models.UniqueConstraint(
                condition=~Q(external_assignment_id=""),
                fields=("external_assignment_id",),
                name="assignment_one_per_platform_assignment",
            ),
        ),
        migrations.CreateModel(
            name="ArrivalWindow",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("address", models.GenericIPAddressField()),
                ("hour", models.DateTimeField()),
                ("count", models.PositiveIntegerField(default=0)),
            ],
            options={
                "indexes": [models.Index(fields=["hour"], name="crowd_arriv_hour_06d2ce_idx")],
                "constraints": [
                    models.UniqueConstraint(
                        fields=("address", "hour"), name="arrival_window_one_per_hour"
                    )
                ],
            },
        ),
    ]
