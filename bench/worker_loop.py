"""Throughput of the worker loop against gunicorn as deployed, against PostgreSQL's insert rate.

N simulated workers, each with its own session and connection, repeat what a worker's browser
does for one task: post the dashboard's "next task" form (302 to the task), get the task page,
post the description (302 to the dashboard); URLs come from the URLconf, as the pages link
them. Two references are measured in the same run, with the same number of clients: pgbench
on the same server (one single-row INSERT per transaction), and the raw-SQL reference, the
loop's own claim and submit transactions sent straight over psycopg2 (bench/_raw_reference.py):
the database-bound limit of this design. The SQL queries of one task are counted too.

Everything happens in the database paracrowd_bench, dropped and recreated at the start of each
run so that runs are comparable; paracrowd and test_paracrowd are never touched.

    .venv/bin/python bench/worker_loop.py         # 1, 8, 32 and 64 workers, 10 s each
    .venv/bin/python bench/worker_loop.py --concurrency 4,16 --seconds 20 --web-workers 3
    .venv/bin/python bench/worker_loop.py --quick # smoke run, a couple of seconds a level

The load generator (gunicorn, the simulated workers' browsers, CPU read from /proc) is in
bench/_http_load.py; this script seeds, runs the levels and pgbench, and prints the tables.
"""

import os
import sys

# Run as a script from anywhere: the project root must be importable.
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import argparse
import contextlib
import math
import re
import runpy
import subprocess
import tempfile
from pathlib import Path
from urllib.parse import urlsplit

import psycopg2

from bench._database import database_recreate, server_settings
from bench._http_load import (
    ENDPOINTS,
    Browser,
    Tally,
    WebServer,
    cpu_snapshot,
    cpu_used,
    run_level,
)
from bench._raw_reference import raw_tasks_per_second

ROOT = Path(__file__).resolve().parent.parent

BENCH_DATABASE = "paracrowd_bench"
# Redis database for the bench's Celery messages: not the app's (0) nor the tests' (15).
BENCH_REDIS_DB = 14
PGBENCH = "/usr/bin/pgbench"
PGBENCH_SCRIPT = (
    "INSERT INTO bench_insert (worker, text) VALUES (:client_id, 'A man slices a tomato.');\n"
)


def concurrency_levels(value: str) -> list[int]:
    return [int(number) for number in value.split(",")]


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--concurrency",
        type=concurrency_levels,
        help="simulated workers per level, comma-separated (default 1,8,32,64; --quick: 1,4)",
    )
    parser.add_argument("--seconds", type=int, help="measured seconds per level (default 10)")
    parser.add_argument("--segments", type=int, default=2000, help="segments to seed (2000)")
    parser.add_argument(
        "--target", type=int, default=20, help="descriptions wanted per HIT in each tier (20)"
    )
    parser.add_argument(
        "--web-workers", type=int, help="gunicorn worker processes (default: gunicorn.conf.py)"
    )
    parser.add_argument(
        "--worker-class", help="gunicorn worker class, sync or gthread (default: gunicorn.conf.py)"
    )
    parser.add_argument(
        "--threads", type=int, help="threads per gthread worker (default: gunicorn.conf.py)"
    )
    parser.add_argument(
        "--with-dashboard",
        action="store_true",
        help="also load the dashboard after each submission, as a browser following the redirect",
    )
    parser.add_argument("--quick", action="store_true", help="smoke run: 2 s per level, 1 and 4")
    args = parser.parse_args()
    args.concurrency = args.concurrency or ([1, 4] if args.quick else [1, 8, 32, 64])
    args.seconds = args.seconds or (2 if args.quick else 10)
    # gunicorn as deployed (gunicorn.conf.py), but for what the command line sets.
    deployed = runpy.run_path(str(ROOT / "gunicorn.conf.py"))
    args.web_workers = args.web_workers or deployed["workers"]
    args.worker_class = args.worker_class or deployed["worker_class"]
    args.threads = args.threads or deployed["threads"]
    if min(args.concurrency) < 1 or args.seconds < 1 or args.segments < 1 or args.target < 1:
        parser.error("concurrency, seconds, segments and target must be at least 1")
    return args


def seed(*, segments: int, groups: list[int], target: int) -> list[list[str]]:
    """Segments with open HITs, and one logged-in session per simulated worker, per group.

    Each concurrency level gets workers of its own, so every level starts from the same state.
    """
    from decimal import Decimal
    from importlib import import_module

    from django.conf import settings
    from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY
    from django.db import connection
    from django.test.utils import override_settings

    from collector.models import Segment
    from collector.services import segments_offer
    from crowd import services as crowd
    from crowd.models import HitType

    hit_type = HitType.objects.for_kind(HitType.Kind.DESCRIPTION)
    HitType.objects.filter(pk=hit_type.pk).update(target_tier1=target, target_tier2=target)
    created = Segment.objects.bulk_create(
        [
            Segment(
                source=Segment.Source.YOUTUBE,
                youtube_id=f"b{number:010d}",
                start=Decimal(0),
                end=Decimal(4),
                title=f"Bench segment {number}",
            )
            for number in range(segments)
        ],
        batch_size=1000,
    )
    segments_offer(segments=Segment.objects.filter(pk__in=[s.pk for s in created]))
    with connection.cursor() as cursor:
        cursor.execute(
            "CREATE TABLE bench_insert (id bigserial PRIMARY KEY, worker int, text text,"
            " created timestamptz DEFAULT now())"
        )

    session_store = import_module(settings.SESSION_ENGINE).SessionStore
    sessions = []
    # Logging in is not what is measured: cheap hashes, and sessions written directly.
    with override_settings(PASSWORD_HASHERS=["django.contrib.auth.hashers.MD5PasswordHasher"]):
        for level, size in enumerate(groups):
            keys = []
            for number in range(size):
                worker = crowd.worker_create(
                    username=f"bench-{level}-{number}",
                    password="bench-only-password",  # noqa: S106 (never used to log in)
                )
                session = session_store()
                session[SESSION_KEY] = str(worker.user.pk)
                session[BACKEND_SESSION_KEY] = "crowd.auth_backend.WorkerProfileBackend"
                session[HASH_SESSION_KEY] = worker.user.get_session_auth_hash()
                session.create()
                keys.append(session.session_key)
            sessions.append(keys)
    return sessions


def raw_workers(groups: list[int]) -> list[list[int]]:
    """Worker ids for the raw-SQL reference, a group of its own per level."""
    from crowd.models import Worker

    users = get_user_model_rows(
        [
            f"bench-raw-{level}-{number}"
            for level, size in enumerate(groups)
            for number in range(size)
        ]
    )
    workers = Worker.objects.bulk_create(Worker(user=user) for user in users)
    ids, start = [], 0
    for size in groups:
        ids.append([worker.pk for worker in workers[start : start + size]])
        start += size
    return ids


def get_user_model_rows(usernames: list[str]):
    from django.contrib.auth import get_user_model

    users = get_user_model()
    unusable = "!"  # noqa: S105 (these workers never log in)
    return users.objects.bulk_create(users(username=name, password=unusable) for name in usernames)


# Tasks done in this process to count the queries of one: the first loads the templates.
COUNTED_TASKS = 2


def queries_per_task(urls: dict) -> int:
    """The SQL queries one task takes (next task, task page, submit), counted in this process
    through Django's test client, as tests/collector/test_worker_loop_queries.py pins them."""
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    from crowd.models import Worker

    (user,) = get_user_model_rows(["bench-count"])
    worker = Worker.objects.create(user=user)
    client = Client(SERVER_NAME="127.0.0.1")
    client.force_login(worker.user, backend="crowd.auth_backend.WorkerProfileBackend")
    for number in range(COUNTED_TASKS):
        with CaptureQueriesContext(connection) as queries:
            task = client.post(urls["next"], {"tier": "1"})["Location"]
            client.get(task)
            form = {"text": f"A person waves number {number}.", "language": "en"}
            if client.post(task, form).status_code != 302:
                sys.exit("The in-process task, counted for its queries, was refused.")
    return len(queries.captured_queries)


def pgbench_inserts_per_second(server: dict, clients: int, seconds: int, script: Path) -> float:
    command = [PGBENCH, "-n", "-f", str(script), "-c", str(clients), "-j", str(min(clients, 2))]
    command += ["-T", str(seconds), "-h", server["HOST"], "-p", server["PORT"]]
    command += ["-U", server["USER"], BENCH_DATABASE]
    env = {**os.environ, "PGPASSWORD": server["PASSWORD"] or ""}
    result = subprocess.run(command, env=env, capture_output=True, text=True, check=True)
    found = re.search(r"^tps = ([\d.]+)", result.stdout, re.MULTILINE)
    if found is None:
        sys.exit(f"Could not read pgbench's tps from:\n{result.stdout}{result.stderr}")
    return float(found.group(1))


def percentile(values: list[float], percent: float) -> float:
    """Nearest-rank percentile, in milliseconds; NaN when there is nothing to rank."""
    if not values:
        return math.nan
    ranked = sorted(values)
    return 1000 * ranked[max(0, math.ceil(percent / 100 * len(ranked)) - 1)]


def stored_data_problems(*, submitted: int, uncertain: int) -> list[str]:
    """Check the bench database after the run; an empty list means every invariant held."""
    from django.db.models import Count, F, Q

    from collector.models import Description
    from crowd.models import Assignment, Hit

    problems = []
    stored = Description.objects.count()
    if not submitted <= stored <= submitted + uncertain:
        problems.append(f"{stored} descriptions stored for {submitted} successful submissions")
    twice = Assignment.objects.values("worker", "hit").annotate(n=Count("id")).filter(n__gt=1)
    if twice.exists():
        problems.append(f"{twice.count()} (worker, HIT) pairs assigned more than once")
    over = Hit.objects.filter(submitted_count__gt=F("max_assignments")).count()
    if over:
        problems.append(f"{over} HITs over their target")
    miscounted = (
        Hit.objects.annotate(stored=Count("assignments__description"))
        .exclude(submitted_count=F("stored"))
        .count()
    )
    if miscounted:
        problems.append(f"{miscounted} HITs whose submitted_count differs from what is stored")
    strangers = Description.objects.filter(~Q(worker=F("assignment__worker"))).count()
    if strangers:
        problems.append(f"{strangers} descriptions stored under another worker's assignment")
    return problems


def print_table(header: list[str], lines: list[list[str]]) -> None:
    lines = [header, *lines]
    widths = [max(len(line[column]) for line in lines) for column in range(len(header))]
    for line in lines:
        print("  ".join(cell.rjust(width) for cell, width in zip(line, widths, strict=True)))


def bench_redis_url() -> str:
    url = urlsplit(os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0"))
    return url._replace(path=f"/{BENCH_REDIS_DB}").geturl()


def main() -> int:
    args = parse_args()
    server = server_settings(BENCH_DATABASE)
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "paracrowd.settings",
        "DEBUG": "False",
        "SECRET_KEY": "bench-only",  # the sessions written here must verify in gunicorn
        "ALLOWED_HOSTS": "127.0.0.1",
        "SESSION_COOKIE_SECURE": "False",
        "CSRF_COOKIE_SECURE": "False",
        "SECURE_SSL_REDIRECT": "False",
        "DATABASE_URL": server["URL"],
        "REDIS_URL": bench_redis_url(),
    }
    endpoints = ["next", "page", "submit"] + (["dashboard"] if args.with_dashboard else [])
    load_before = os.getloadavg()[0]

    log = sys.stderr
    print(f"Recreating {BENCH_DATABASE} and migrating it…", file=log, flush=True)
    database_recreate(server)
    migrate = [sys.executable, "manage.py", "migrate", "--noinput", "-v", "0"]
    subprocess.run(migrate, cwd=ROOT, env=env, check=True)
    os.environ.update(env)
    import django

    django.setup()
    from django.conf import settings
    from django.db import connections
    from django.urls import reverse

    urls = {"next": reverse("crowd:task_next"), "dashboard": reverse("collector:dashboard")}
    options = {"urls": urls, "with_dashboard": args.with_dashboard}

    print(f"Seeding {args.segments} segments…", file=log, flush=True)
    sessions = seed(segments=args.segments, groups=args.concurrency, target=args.target)
    raw_groups = raw_workers(args.concurrency)
    queries = queries_per_task(urls)
    connections.close_all()
    connect = {
        "dbname": BENCH_DATABASE,
        "user": server["USER"],
        "password": server["PASSWORD"],
        "host": server["HOST"],
        "port": server["PORT"],
    }

    rows, cpu_rows = [], []
    total = Tally(submitted=COUNTED_TASKS)
    monitor = psycopg2.connect(**connect)
    monitor.autocommit = True
    with (
        contextlib.closing(monitor),
        tempfile.TemporaryDirectory(prefix="paracrowd-bench-") as scratch,
        WebServer(
            env=env,
            workers=args.web_workers,
            log_path=Path(scratch, "gunicorn.log"),
            options=["--worker-class", args.worker_class, "--threads", str(args.threads)],
        ) as web,
    ):
        script = Path(scratch, "insert.sql")
        script.write_text(PGBENCH_SCRIPT)
        groups = []
        for keys in sessions:
            cookies = [{settings.SESSION_COOKIE_NAME: key} for key in keys]
            browsers = [Browser(web.port, jar, settings.CSRF_COOKIE_NAME) for jar in cookies]
            for browser in browsers:  # the CSRF cookie, as the dashboard hands it out
                if browser.request("GET", urls["dashboard"])[0] != 200:
                    sys.exit("The dashboard did not answer 200 to a seeded session.")
            groups.append(browsers)
        # Warm every gunicorn worker (imports, templates, database connection) before timing.
        warm_up, _ = run_level(max(groups, key=len), 1, **options)
        total.merge(warm_up)
        if not warm_up.tasks:
            sys.exit(
                f"Not one task completed while warming up: {dict(warm_up.errors)}, "
                f"{warm_up.refused} refused, {warm_up.ran_out} workers out of work."
            )

        for workers, browsers, raw_ids in zip(args.concurrency, groups, raw_groups, strict=True):
            print(f"{workers} workers: {args.seconds} s over HTTP…", file=log, flush=True)
            before = cpu_snapshot(web, monitor)
            tally, elapsed = run_level(browsers, args.seconds, **options)
            cpu = cpu_used(before, cpu_snapshot(web, monitor))
            total.merge(tally)
            print(f"{workers} clients: {args.seconds} s of pgbench…", file=log, flush=True)
            inserts = pgbench_inserts_per_second(server, workers, args.seconds, script)
            print(f"{workers} clients: {args.seconds} s of raw SQL…", file=log, flush=True)
            raw, raw_submitted = raw_tasks_per_second(connect, raw_ids, args.seconds)
            total.submitted += raw_submitted
            tasks = tally.tasks / elapsed
            line = [str(workers), f"{tasks:.1f}", f"{tally.requests / elapsed:.1f}"]
            for endpoint in endpoints:
                values = tally.latencies[endpoint]
                line.append(f"{percentile(values, 50):.1f} / {percentile(values, 99):.1f}")
            line += [f"{inserts:.0f}", f"{tasks / inserts:.4f}", f"{raw:.0f}", f"{tasks / raw:.3f}"]
            rows.append(line)
            per_task = {part: 1000 * seconds / max(tally.tasks, 1) for part, seconds in cpu.items()}
            busy = sum(cpu.values()) / elapsed
            cpu_rows.append(
                [str(workers)]
                + [f"{per_task[part]:.1f}" for part in ("web", "database", "client")]
                + [f"{busy:.2f} of {os.cpu_count()}"]
            )

    print(
        f"\nWorker loop over HTTP: gunicorn paracrowd.wsgi, {args.web_workers} {args.worker_class} "
        f"workers{f' of {args.threads} threads' if args.threads > 1 else ''}, "
        f"{os.cpu_count()} cores; {args.segments} segments; {args.seconds} s per level. A task is "
        f"{' + '.join(ENDPOINTS[e] for e in endpoints)}, {queries} SQL queries. References, "
        "same client count, same server: pgbench, one single-row INSERT per transaction; raw "
        "SQL, the same claim and submit transactions over psycopg2.\n"
    )
    header = ["workers", "tasks/s", "requests/s"]
    header += [f"{ENDPOINTS[e]} p50/p99 ms" for e in endpoints]
    header += ["pgbench inserts/s", "tasks/s ÷ inserts/s", "raw SQL tasks/s", "÷ raw SQL"]
    print_table(header, rows)
    print("\nCPU per task (ms), from /proc: gunicorn, its PostgreSQL backends, this client.\n")
    print_table(["workers", "gunicorn", "postgres", "client", "CPUs used"], cpu_rows)
    print(
        f"\nLoad average (1 min) before the run {load_before:.2f}, after {os.getloadavg()[0]:.2f}."
    )
    notes = [f"{web.messages_removed} scoring tasks queued to Redis db {BENCH_REDIS_DB}, removed"]
    if total.refused:
        notes.append(f"{total.refused} submissions refused")
    if total.ran_out:
        notes.append(f"{total.ran_out} workers ran out of work (raise --segments or --target)")
    notes += [f"{count} × {error}" for error, count in total.errors.most_common()]
    for note in notes:
        print(f"Note: {note}")

    problems = stored_data_problems(submitted=total.submitted, uncertain=total.uncertain)
    for problem in problems:
        print(f"FAILED: {problem}")
    if not problems:
        print(
            f"Checked: {total.submitted} successful submissions, as many descriptions stored; "
            "no worker assigned a HIT twice; no HIT over its target."
        )
    return 1 if problems or total.errors else 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        sys.exit("Interrupted; gunicorn is stopped and its queued messages removed.")
