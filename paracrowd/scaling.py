"""Settings for a site beyond one machine: PostgreSQL behind PgBouncer in transaction pooling,
and Redis behind Sentinel (docs/operators/scaling-out.md).

Read strictly, as every setting is (paracrowd.environment): a Sentinel address without the
master's name, a master's name beside a plain Redis address, or a pooler we do not know
refuses to start rather than half-working.
"""

from dataclasses import dataclass
from urllib.parse import unquote, urlsplit

from django.core.exceptions import ImproperlyConfigured

# Poolers we know how to sit behind: each name, what the database settings need for it.
POOLERS = ("pgbouncer",)


def database_behind_pooler(database: dict, *, pooler: str) -> dict:
    """``database`` (a DATABASES entry) as it must be behind ``pooler`` ("" for none).

    PgBouncer in transaction pooling hands each transaction whichever server connection is
    free, so a cursor declared outside a transaction (Django's ``.iterator()`` in autocommit
    declares one WITH HOLD) may be looked for on another connection: Django's documentation
    ("Transaction pooling and server-side cursors") asks for DISABLE_SERVER_SIDE_CURSORS.
    (Settings keep no connection between requests there by default, DATABASE_CONN_MAX_AGE 0:
    PgBouncer keeps the server connections, a client connection to it costs a local round
    trip, and a restarted PgBouncer never leaves a thread holding a dead one.)"""
    if not pooler:
        return database
    if pooler not in POOLERS:
        raise ImproperlyConfigured(
            f"DATABASE_POOLER must be one of {', '.join(POOLERS)} (or unset), not {pooler!r}"
        )
    return {**database, "DISABLE_SERVER_SIDE_CURSORS": True}


@dataclass(frozen=True)
class RedisLocation:
    """Where Redis is: one server's URL, or Sentinels that name the master of ``master``."""

    url: str
    sentinels: tuple[tuple[str, int], ...] = ()
    master: str = ""
    db: int = 0
    password: str | None = None

    @property
    def through_sentinel(self) -> bool:
        return bool(self.sentinels)


SENTINEL_PORT = 26379


def redis_location(url: str, *, master: str, name: str) -> RedisLocation:
    """``url`` (of the variable ``name``) read strictly: ``redis://…``/``rediss://…``, or
    ``sentinel://host:port;sentinel://host2:port`` (a database number and the master's
    password on the first, as kombu reads them) with the master's name in ``master``."""
    parts = [part.strip() for part in url.split(";") if part.strip()]
    if not parts:
        raise ImproperlyConfigured(f"{name} is empty")
    schemes = {urlsplit(part).scheme for part in parts}
    if schemes <= {"redis", "rediss", "unix"}:
        if len(parts) > 1:
            raise ImproperlyConfigured(
                f"{name}: several addresses are for Sentinel (sentinel://…;sentinel://…) only"
            )
        if master:
            raise ImproperlyConfigured(
                f"REDIS_SENTINEL_MASTER is set but {name} is not a sentinel:// address"
            )
        return RedisLocation(url=url)
    if schemes != {"sentinel"}:
        raise ImproperlyConfigured(
            f"{name} must be redis://… or sentinel://host:port;sentinel://…, not {url!r}"
        )
    if not master:
        raise ImproperlyConfigured(
            f"{name} names Sentinels: REDIS_SENTINEL_MASTER must name the master they watch"
        )
    sentinels = []
    for part in parts:
        address = urlsplit(part)
        try:
            port = address.port or SENTINEL_PORT
        except ValueError:
            raise ImproperlyConfigured(f"{name}: {part!r} has no valid port") from None
        if not address.hostname:
            raise ImproperlyConfigured(f"{name}: {part!r} names no host")
        sentinels.append((address.hostname, port))
    first = urlsplit(parts[0])
    path = first.path.strip("/") or "0"
    if not path.isdecimal():
        raise ImproperlyConfigured(f"{name}: the database must be a number, not {path!r}")
    password = unquote(first.password) if first.password else None
    return RedisLocation(
        url=url, sentinels=tuple(sentinels), master=master, db=int(path), password=password
    )


def broker_transport_options(location: RedisLocation) -> dict:
    """Celery's broker_transport_options that ``location`` needs (kombu's Sentinel transport
    takes the master's name there)."""
    return {"master_name": location.master} if location.through_sentinel else {}


def cache_backend(location: RedisLocation) -> dict:
    """BACKEND and the OPTIONS of the Django cache at ``location``."""
    if not location.through_sentinel:
        return {"BACKEND": "paracrowd.cache.RedisCache", "OPTIONS": {}}
    return {"BACKEND": "paracrowd.cache.SentinelRedisCache", "OPTIONS": {"master": location.master}}


def redis_client(location: RedisLocation, **options):
    """A redis-py client of ``location``'s master (found through the Sentinels when there
    are any), with ``options`` (timeouts) on every connection."""
    import redis
    from redis.sentinel import Sentinel

    if not location.through_sentinel:
        return redis.Redis.from_url(location.url, **options)
    sentinel = Sentinel(list(location.sentinels), sentinel_kwargs=options, **options)
    return sentinel.master_for(
        location.master, db=location.db, password=location.password, **options
    )
