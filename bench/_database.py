"""The scratch database each benchmark recreates on the PostgreSQL server of DATABASE_URL.

Not a benchmark itself (`make bench` skips files starting with an underscore).
"""

import os
from urllib.parse import quote

import dj_database_url
import psycopg2
from psycopg2 import sql

# Benchmarks drop and recreate their database: never one of these.
NEVER_TOUCH = {"paracrowd", "test_paracrowd"}


def server_settings(database: str) -> dict:
    """The server of DATABASE_URL (the project's default) with ``database`` as its NAME, and
    ``URL``, a DATABASE_URL for it."""
    if database in NEVER_TOUCH:
        raise ValueError(f"a benchmark may not recreate {database}")
    config = dj_database_url.parse(
        os.environ.get("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/paracrowd")
    )
    config.update(NAME=database, PORT=str(config["PORT"] or 5432))
    password = f":{quote(config['PASSWORD'], safe='')}" if config["PASSWORD"] else ""
    config["URL"] = (
        f"postgres://{quote(config['USER'], safe='')}{password}@{config['HOST']}:{config['PORT']}"
        f"/{database}"
    )
    return config


def database_recreate(server: dict) -> None:
    """Drop (closing its connections) and create the database ``server`` names."""
    connection = psycopg2.connect(
        dbname="postgres",
        user=server["USER"],
        password=server["PASSWORD"],
        host=server["HOST"],
        port=server["PORT"],
    )
    connection.autocommit = True
    with connection.cursor() as cursor:
        name = sql.Identifier(server["NAME"])
        cursor.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(name))
        cursor.execute(sql.SQL("CREATE DATABASE {}").format(name))
    connection.close()
