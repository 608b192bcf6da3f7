"""A benchmark run's own place on the shared servers, and its removal.

``bench_run`` gives a run a database of its own on DATABASE_URL's server (bench._database:
its name holds "bench" and the process id), migrated, with Django set up on it, and a Celery
queue of its own in REDIS_URL's database. On the way out, whatever happens (an error, Ctrl-C,
a SIGTERM), the sessions it wrote lose their copies in the cache, its queue is deleted and its
database dropped. It never touches anything of another run's: two runs on one server, or a
run beside a site sharing its Redis database, never meet.

Not a benchmark itself (`make bench` skips files starting with an underscore).
"""

import os
import signal
import sys
from collections.abc import Iterator
from contextlib import contextmanager

from bench._database import scratch_database

DEFAULT_REDIS_URL = "redis://127.0.0.1:6379/0"


@contextmanager
def bench_run(purpose: str, *, log=sys.stderr, **settings: str) -> Iterator[tuple[dict, dict]]:
    """Yield ``(server, env)``: the ``server_settings`` of the run's own database, and the
    environment of the run's processes: os.environ with ``settings`` on top, the run's
    DATABASE_URL, REDIS_URL's database and Celery queues of the run's own. This process's
    os.environ is set to it and Django is set up on it, so subprocesses inherit it."""
    with scratch_database(purpose) as server:
        env = {
            **os.environ,
            "DJANGO_SETTINGS_MODULE": "paracrowd.settings",
            **settings,
            "DATABASE_URL": server["URL"],
            "REDIS_URL": os.environ.get("REDIS_URL", DEFAULT_REDIS_URL),
            "CELERY_QUEUE_PREFIX": f"bench-{server['NAME']}",
        }
        # A plain `kill` must clean up too: SystemExit runs the finally blocks below.
        previous = signal.signal(signal.SIGTERM, lambda *_: sys.exit(128 + signal.SIGTERM))
        try:
            os.environ.update(env)
            import django
            from django.core.management import call_command

            django.setup()
            print(f"Migrating {server['NAME']}…", file=log, flush=True)
            call_command("migrate", interactive=False, verbosity=0)
            yield server, env
        finally:
            sessions = sessions_delete()
            removed = broker_queues_delete(env["REDIS_URL"], env["CELERY_QUEUE_PREFIX"])
            print(
                f"Removed the run's {sessions} sessions, its Celery queues ({removed} messages) "
                f"and its database {server['NAME']}.",
                file=log,
            )
            signal.signal(signal.SIGTERM, previous)
            _connections_close()


def sessions_delete() -> int:
    """Delete every session in the run's database with the copy the cache (REDIS_URL, shared)
    keeps of it; the database itself goes anyway. Returns how many."""
    from django.apps import apps

    if not apps.ready:
        return 0  # Django never started: nothing was written
    from importlib import import_module

    from django.conf import settings
    from django.contrib.sessions.models import Session
    from django.db import DatabaseError

    session_store = import_module(settings.SESSION_ENGINE).SessionStore
    try:
        keys = list(Session.objects.values_list("session_key", flat=True))
    except DatabaseError:
        return 0  # not migrated yet
    for key in keys:
        session_store(session_key=key).delete()
    return len(keys)


def broker_queues_delete(redis_url: str, prefix: str) -> int:
    """Delete the Celery queues of a run's own (every one under ``prefix``) and kombu's
    records of them; returns how many messages they held."""
    import redis

    client = redis.Redis.from_url(redis_url)
    removed = 0
    try:
        for queue in client.scan_iter(match=f"{prefix}.*", _type="list"):
            removed += client.llen(queue)
            client.delete(queue)
        for record in client.scan_iter(match=f"_kombu.binding_permanent.{prefix}.*"):
            client.delete(record)
        for binding in client.scan_iter("_kombu.binding.*"):
            for member in client.smembers(binding):
                # kombu's record: routing key, pattern and queue, joined by "\x06\x16".
                queue = member.decode(errors="replace").rsplit("\x06\x16", 1)[-1]
                if queue.startswith(f"{prefix}."):
                    client.srem(binding, member)
        return removed
    except redis.RedisError as error:
        print(f"Could not delete the Celery queues {prefix}.*: {error}", file=sys.stderr)
        return 0
    finally:
        client.close()


def _connections_close() -> None:
    from django.apps import apps

    if apps.ready:
        from django.db import connections

        connections.close_all()
