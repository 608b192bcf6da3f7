from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('scoring', '0005_settings_learned_from'),
    ]

    operations = [
        migrations.AddField(
            model_name='clusterscore',
            name='pending',
            field=models.PositiveIntegerField(null=True),
        ),
    ]
