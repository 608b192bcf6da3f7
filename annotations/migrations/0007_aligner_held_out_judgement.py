from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("annotations", "0006_supervised_aligner"),
    ]

    operations = [
        migrations.AddField(
            model_name="alignermodel",
            name="took_over",
            field=models.BooleanField(default=True),
        ),
        migrations.AddField(
            model_name="alignermodel",
            name="held_out_f1",
            field=models.FloatField(blank=True, null=True),
        ),
        migrations.AddField(
            model_name="alignermodel",
            name="judgement",
            field=models.JSONField(blank=True, default=dict),
        ),
    ]
