"""The database of a benchmark run's own on the PostgreSQL server of DATABASE_URL (bench._run
sets one up for each bench; the fault suite uses it too).

Not a benchmark itself (`make bench` skips files starting with an underscore).
"""

import os
from contextlib import contextmanager
from urllib.parse import quote

import dj_database_url
import psycopg2
from psycopg2 import sql

# A run drops its database at the end: never one of these.
NEVER_TOUCH = {"paracrowd", "test_paracrowd"}


def server_settings(database: str) -> dict:
    """The server of DATABASE_URL (the project's default) with ``database`` as its NAME, and
    ``URL``, a DATABASE_URL for it."""
    if database in NEVER_TOUCH:
        raise ValueError(f"a benchmark may not recreate {database}")
    config = dj_database_url.parse(_configured_url())
    config.update(NAME=database, PORT=str(config["PORT"] or 5432))
    password = f":{quote(config['PASSWORD'], safe='')}" if config["PASSWORD"] else ""
    config["URL"] = (
        f"postgres://{quote(config['USER'], safe='')}{password}@{config['HOST']}:{config['PORT']}"
        f"/{database}"
    )
    return config


def scratch_name(purpose: str) -> str:
    """A database name of DATABASE_URL's server for one run of ``purpose``: the configured
    database's name, the purpose and this process's id, so that two runs on one server (two
    checkouts, two people) never share one, and none is the configured database itself."""
    configured = dj_database_url.parse(_configured_url())["NAME"]
    return f"{configured}_{purpose}_{os.getpid()}"[:63]


def _configured_url() -> str:
    # The project's default, as the Makefile and settings have it.
    return os.environ.get("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/paracrowd")


@contextmanager
def scratch_database(purpose: str):
    """Create a database of this run's own (``scratch_name``) and yield its ``server_settings``;
    drop it on the way out, whatever happens. Only this run ever connects to it, so it is
    dropped without forcing anybody else's connections."""
    server = server_settings(scratch_name(purpose))
    _administer(server, "DROP DATABASE IF EXISTS {}", "CREATE DATABASE {}")
    try:
        yield server
    finally:
        # The name is this run's alone: whatever still holds a connection to it is ours.
        _administer(server, "DROP DATABASE IF EXISTS {} WITH (FORCE)")


def _administer(server: dict, *statements: str) -> None:
    connection = psycopg2.connect(
        dbname="postgres",
        user=server["USER"],
        password=server["PASSWORD"],
        host=server["HOST"],
        port=server["PORT"],
    )
    connection.autocommit = True
    try:
        with connection.cursor() as cursor:
            for statement in statements:
                cursor.execute(sql.SQL(statement).format(sql.Identifier(server["NAME"])))
    finally:
        connection.close()
