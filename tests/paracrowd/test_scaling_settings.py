"""The settings of a site beyond one machine (paracrowd.scaling): PostgreSQL behind PgBouncer
in transaction pooling, Redis behind Sentinel; read by paracrowd/settings.py in a process of
its own with only the variables each test gives, as production reads them."""

import json
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.exceptions import ImproperlyConfigured

from paracrowd.scaling import redis_location

REPOSITORY = Path(__file__).resolve().parents[2]
READ = """
import json
from paracrowd import settings
print(json.dumps({
    "database": settings.DATABASES["default"],
    "broker": settings.CELERY_BROKER_URL,
    "transport": settings.CELERY_BROKER_TRANSPORT_OPTIONS,
    "cache": settings.CACHES["default"],
}, default=str))
"""
SENTINELS = "sentinel://10.0.0.1:26379;sentinel://10.0.0.2:26380/2"


def settings_with(**variables) -> dict:
    result = subprocess.run(  # noqa: S603 (our own script, run by our own interpreter)
        [sys.executable, "-c", READ],
        env={"SECRET_KEY": "x", **variables},
        cwd=REPOSITORY,
        capture_output=True,
        text=True,
        check=False,
    )
    if result.returncode:
        raise ImproperlyConfigured(result.stderr.strip().splitlines()[-1])
    return json.loads(result.stdout)


def test_behind_pgbouncer_no_server_side_cursor_and_no_connection_kept_between_requests():
    database = settings_with(DATABASE_POOLER="pgbouncer")["database"]
    assert database["DISABLE_SERVER_SIDE_CURSORS"] is True
    assert database["CONN_MAX_AGE"] == 0


def test_behind_pgbouncer_an_operator_may_still_keep_connections():
    database = settings_with(DATABASE_POOLER="pgbouncer", DATABASE_CONN_MAX_AGE="30")["database"]
    assert database["CONN_MAX_AGE"] == 30
    assert database["DISABLE_SERVER_SIDE_CURSORS"] is True


def test_straight_to_postgresql_connections_are_kept_and_cursors_are_server_side():
    database = settings_with()["database"]
    assert database["CONN_MAX_AGE"] == 60
    assert not database.get("DISABLE_SERVER_SIDE_CURSORS")


def test_a_pooler_we_do_not_know_refuses_to_start():
    with pytest.raises(ImproperlyConfigured, match="DATABASE_POOLER must be one of pgbouncer"):
        settings_with(DATABASE_POOLER="pgpool")


def test_a_sentinel_broker_gives_celery_the_masters_name_and_keeps_the_other_options():
    read = settings_with(REDIS_URL=SENTINELS, REDIS_SENTINEL_MASTER="paracrowd")
    assert read["broker"] == SENTINELS
    assert read["transport"]["master_name"] == "paracrowd"
    assert read["transport"]["visibility_timeout"] == 300


def test_the_cache_and_its_rate_limits_go_through_the_sentinels_too():
    cache = settings_with(REDIS_URL=SENTINELS, REDIS_SENTINEL_MASTER="paracrowd")["cache"]
    assert cache["BACKEND"] == "paracrowd.cache.SentinelRedisCache"
    assert cache["LOCATION"] == SENTINELS
    assert cache["OPTIONS"]["master"] == "paracrowd"
    assert cache["OPTIONS"]["socket_timeout"] == 0.5


def test_a_plain_redis_is_one_server_with_no_master_name():
    read = settings_with(REDIS_URL="redis://10.0.0.1:6379/1")
    assert "master_name" not in read["transport"]
    assert read["cache"]["BACKEND"] == "paracrowd.cache.RedisCache"


def test_sentinels_without_the_masters_name_refuse_to_start():
    with pytest.raises(ImproperlyConfigured, match="REDIS_SENTINEL_MASTER must name"):
        settings_with(REDIS_URL=SENTINELS)


def test_a_masters_name_beside_a_plain_redis_refuses_to_start():
    with pytest.raises(ImproperlyConfigured, match="is not a sentinel:// address"):
        settings_with(REDIS_URL="redis://10.0.0.1:6379/0", REDIS_SENTINEL_MASTER="paracrowd")


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("sentinel://a:1;redis://b:2", "must be redis://… or sentinel://"),
        ("sentinel://a:port", "has no valid port"),
        ("sentinel://:26379", "names no host"),
        ("sentinel://a:1/cache", "the database must be a number"),
        ("redis://a:1;redis://b:2", "several addresses are for Sentinel"),
    ],
)
def test_a_malformed_redis_address_is_refused_with_what_is_wrong(url, message):
    with pytest.raises(ImproperlyConfigured, match=message):
        redis_location(url, master="paracrowd", name="REDIS_URL")


def test_each_sentinel_is_read_with_the_database_and_password_of_the_first():
    location = redis_location(
        "sentinel://:s%40cret@a:1/3;sentinel://b", master="paracrowd", name="REDIS_URL"
    )
    assert location.sentinels == (("a", 1), ("b", 26379))
    assert (location.db, location.password, location.master) == (3, "s@cret", "paracrowd")
