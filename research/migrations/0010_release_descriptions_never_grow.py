"""A finished release gains no descriptions either: the database refused to change or remove
the record of what a done release holds (0009), but not to add to it, and the next release's
changes then counted the added row as removed. The function and its triggers now live in
research/sql/release_never_changes.sql, run as a whole; going back restores 0009's."""

from importlib import import_module
from pathlib import Path

from django.db import migrations

NEVER_CHANGE = (Path(__file__).parents[1] / "sql" / "release_never_changes.sql").read_text()


def _previous() -> str:
    before = import_module("research.migrations.0009_releases_never_change")
    return before.DROP + before.NEVER_CHANGE


class Migration(migrations.Migration):
    dependencies = [("research", "0009_releases_never_change")]

    operations = [migrations.RunSQL(NEVER_CHANGE, _previous())]
