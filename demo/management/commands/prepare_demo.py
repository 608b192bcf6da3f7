"""Brings the database ``make run`` serves up to date, and does nothing when it is: migrates only
if a migration is unapplied, and loads the demo only if this checkout's demo is not the one
loaded (``demo.version``). One process for both: a second ``make run`` spent more time starting
``manage.py migrate`` and ``manage.py load_demo`` than either had to do.

``--phases FILE`` adds the seconds each step took to FILE ("migrate 12.3"), for the summary
``bin/run`` prints once the site answers."""

import time
from pathlib import Path

from django.core.management import call_command
from django.core.management.base import BaseCommand
from django.db import DEFAULT_DB_ALIAS, connections
from django.db.migrations.executor import MigrationExecutor

from demo.version import demo_is_loaded, demo_version


class Command(BaseCommand):
    help = (
        "Migrate if a migration is unapplied, and load the demo if this version of it is not "
        "loaded yet (make run)."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--phases", type=Path, help="a file to add each step's seconds to (make run)"
        )

    def handle(self, *args, phases=None, verbosity=1, **options):
        times = {}
        started = time.monotonic()
        executor = MigrationExecutor(connections[DEFAULT_DB_ALIAS])
        if executor.migration_plan(executor.loader.graph.leaf_nodes()):
            call_command("migrate", interactive=False, verbosity=verbosity)
        else:
            self.stdout.write("Migrations: none to apply.")
        times["migrate"] = time.monotonic() - started

        started = time.monotonic()
        version = demo_version()
        if demo_is_loaded(version=version):
            self.stdout.write(
                f"Demo: version {version[:12]} is loaded already (manage.py load_demo loads it "
                "again)."
            )
        else:
            call_command("load_demo", verbosity=verbosity)
        times["demo"] = time.monotonic() - started

        if phases:
            with phases.open("a") as file:
                file.writelines(f"{name} {seconds:.3f}\n" for name, seconds in times.items())
