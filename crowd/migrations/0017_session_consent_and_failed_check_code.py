"""A campaign's consent and instructions page and its failed-check completion code; a
session's consent and whether it ended failing the quality rules."""

import crowd.models.campaigns
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('crowd', '0016_claim_one_item_once_per_worker'),
    ]

    operations = [
        migrations.AddField(
            model_name='campaign',
            name='consent_text',
            field=models.TextField(blank=True, help_text='Shown once before the first task of each session, with a button to agree and start. Empty: participants go straight to the tasks.'),
        ),
        # Campaigns published before have no such code on their study: theirs stays empty.
        migrations.AddField(
            model_name='campaign',
            name='failed_check_code',
            field=models.CharField(blank=True, default='', max_length=32),
        ),
        migrations.AlterField(
            model_name='campaign',
            name='failed_check_code',
            field=models.CharField(blank=True, default=crowd.models.campaigns.new_code, max_length=32),
        ),
        migrations.AddField(
            model_name='worksession',
            name='consented_at',
            field=models.DateTimeField(blank=True, null=True),
        ),
        migrations.AddField(
            model_name='worksession',
            name='failed_check',
            field=models.BooleanField(default=False),
        ),
    ]
