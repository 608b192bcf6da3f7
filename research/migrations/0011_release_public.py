"""Releases are private unless the operator makes one public (Release.public): its files may
then be downloaded by anyone. The database still refuses every other change to a made release;
research/sql/release_never_changes.sql now lets this one column through, and runs again here.
Going back leaves the function as it is: without the column, what it lets through is an update
that changes nothing."""

from importlib import import_module

from django.db import migrations, models

NEVER_CHANGE = import_module(
    "research.migrations.0010_release_descriptions_never_grow"
).NEVER_CHANGE


class Migration(migrations.Migration):
    dependencies = [("research", "0010_release_descriptions_never_grow")]

    operations = [
        migrations.AddField(
            model_name="release",
            name="public",
            field=models.BooleanField(
                default=False,
                help_text="Anyone, logged in or not, may download the release's files. "
                "Otherwise researchers and staff only.",
            ),
        ),
        migrations.RunSQL(NEVER_CHANGE, migrations.RunSQL.noop),
    ]
