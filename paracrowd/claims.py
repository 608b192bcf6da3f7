"""Claims that last exactly as long as the worker holding them.

A background computation claims its row (a report, the agreement table) so that one worker
computes it at a time. A claim that merely expired after a while left a job whose Celery
worker died "running" for that while: the broker hands the task to another worker after
CELERY_VISIBILITY_TIMEOUT, which found the claim held and gave up. So the claim is a
PostgreSQL session-level advisory lock, taken outside any transaction: a worker that dies
(killed, out of memory, its host gone) loses its connection and with it the lock, and the
redelivered task takes the work over at once; a live worker keeps it however long it takes.

A host that vanishes without closing its connections holds the lock until PostgreSQL notices
the connection is dead (``tcp_keepalives_idle`` on the server; docs/operators/reliability.md).
"""

import zlib
from contextlib import contextmanager

from django.db import DatabaseError, connection


def lock_key(model, pk: int) -> tuple[int, int]:
    # Two 32-bit keys: the table (named, stable across processes) and the row.
    table = zlib.crc32(model._meta.db_table.encode()) - 2**31
    return table, pk & 0x7FFFFFFF


@contextmanager
def held_while_alive(model, pk: int):
    """Yields True when this worker now holds the claim of row ``pk`` of ``model`` (until the
    block ends or the worker dies), False when a live worker holds it."""
    key = lock_key(model, pk)
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_try_advisory_lock(%s, %s)", key)
        held = cursor.fetchone()[0]
    try:
        yield held
    finally:
        if held:
            try:
                with connection.cursor() as cursor:
                    cursor.execute("SELECT pg_advisory_unlock(%s, %s)", key)
            except DatabaseError:
                pass  # the connection is gone, and the lock with it
