"""The raw-SQL reference of bench/worker_loop.py: the worker loop's own claim and submit
transactions sent straight over psycopg2, with no web server, no Django and no HTML in
between. It is the database-bound limit of this design; the bench prints its tasks/s beside
the site's.

Not a benchmark itself (`make bench` skips files starting with an underscore).
"""

import threading
import time
from datetime import UTC, datetime, timedelta

import psycopg2

from bench._levels import ReferenceFailed

CLAIM = (
    "SELECT id, hit_id, accepted_at FROM crowd_assignment_claim("
    "%s, 'description', 1, %s, true, false, NULL, NULL, '', '', 5)"
)
# What assignment_submit sends for a description: the assignment and its HIT locked together
# (with the segment the description is about), the description, the count and the status.
LOCK = (
    "SELECT a.status, h.submitted_count, h.max_assignments, s.id FROM crowd_assignment a"
    " JOIN crowd_hit h ON h.id = a.hit_id JOIN crowd_hittype t ON t.id = h.hit_type_id"
    " LEFT JOIN crowd_item i ON i.id = h.item_id LEFT JOIN collector_segment s ON s.item_id = i.id"
    " WHERE a.id = %s AND a.worker_id = %s AND t.kind = 'description' FOR UPDATE OF a, h"
)
INSERT = (
    # A text sent without a typing record, as the site stores it: its signal is "unknown".
    "INSERT INTO collector_description (segment_id, assignment_id, worker_id, tier, text,"
    " language, comment, time_spent, status, created_at, import_key, review_reason,"
    " typing_signals)"
    " VALUES (%s, %s, %s, 1, %s, 'en', '', %s, 'pending', %s, '', '', ARRAY['unknown'])"
    " RETURNING id"
)
CLOSE = (
    "WITH counted AS"
    " (UPDATE crowd_hit SET submitted_count = submitted_count + 1 WHERE id = %s)"
    " UPDATE crowd_assignment SET status = 'submitted', submitted_at = %s, verified_at = %s"
    " WHERE id = %s"
)


def raw_tasks_per_second(connect: dict, worker_ids: list[int], seconds: float) -> tuple:
    """Each worker id claims and submits over its own connection for ``seconds``; returns
    (tasks per second, tasks submitted). ReferenceFailed, after every thread has stopped,
    names the first error a worker met (a connection refused, a transaction failed)."""
    done = [0] * len(worker_ids)
    clock = {}

    def start():
        clock["deadline"] = time.perf_counter() + seconds

    barrier = threading.Barrier(len(worker_ids), action=start)
    failures = []

    def run(index, worker_id):
        try:
            connection = psycopg2.connect(**connect)
        except psycopg2.Error as error:
            # The others would wait at the barrier for ever (the server out of connections).
            failures.append(error)
            barrier.abort()
            return
        try:
            barrier.wait()
            while time.perf_counter() < clock["deadline"]:
                if not _one_task(connection, worker_id, index):
                    break
                done[index] += 1
        except (threading.BrokenBarrierError, psycopg2.Error) as error:
            failures.append(error)
        finally:
            connection.close()

    threads = [
        threading.Thread(target=run, args=pair, daemon=True) for pair in enumerate(worker_ids)
    ]
    started = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    failed = [error for error in failures if not isinstance(error, threading.BrokenBarrierError)]
    if failed:
        error = failed[0]
        failure = ReferenceFailed(f"{type(error).__name__}: {str(error).strip()[:200]}")
        failure.submitted = sum(done)  # written all the same: the run's check counts them
        raise failure
    return sum(done) / (time.perf_counter() - started), sum(done)


def _one_task(connection, worker_id: int, number: int) -> bool:
    """Claim (one statement, as the site does) and submit (one transaction); False when
    nothing is left to claim."""
    connection.autocommit = True
    with connection.cursor() as cursor:
        cursor.execute(CLAIM, [worker_id, datetime.now(UTC)])
        claimed = cursor.fetchone()
    if claimed is None:
        return False
    submit_claimed(connection, worker_id, claimed, number)
    return True


def submit_claimed(connection, worker_id: int, claimed: tuple, number: int) -> bool:
    """The submit transaction for a task ``CLAIM`` returned; False (nothing written) if it is
    no longer the worker's to submit."""
    assignment_id, hit_id, accepted_at = claimed
    connection.autocommit = False
    now = datetime.now(UTC)
    with connection.cursor() as cursor:
        cursor.execute(LOCK, [assignment_id, worker_id])
        status, submitted, target, segment_id = cursor.fetchone()
        if status != "assigned" or submitted >= target:
            connection.rollback()
            return False
        text = f"A person is slicing tomato number {number} on a wooden board."
        spent = max(now - accepted_at, timedelta(0))
        cursor.execute(INSERT, [segment_id, assignment_id, worker_id, text, spent, now])
        cursor.execute(CLOSE, [hit_id, now, now, assignment_id])
    connection.commit()
    return True
