"""Serving the worker loop with gunicorn as deployed, against the database-bound limit.

Two views. Open loop (the headline): tasks arrive as a crowd's do, at a stated rate (a
Poisson process), each a worker asking for the next task (answered with its page), reading
and typing for a think time drawn from a stated distribution (log-normal, median 20 s), and
submitting (bench/_open_loop.py). Rates rise level by level until one breaks the rule: next
task (with its page) and submit each keep their p99 under 150 ms. The highest rate that held
is printed beside the same figure for the raw-SQL reference under the same schedule and rule,
with the concurrent workers the rate means, in one line to compare run to run ("open loop:
61.0 tasks/s with every p99 under 150 ms (1,220 workers at 20 s think time); raw SQL: 480.0
tasks/s; ratio 0.127"). A rate that breaks is tried once more before the climb stops, then
rates halfway until the climb is within 10%, by one climb for both sides, so both figures end to
the same resolution. Each level shows the load average and the CPU shares of the measured side,
of the bench's own clients and of everything else, and one crowded out by other load (never the
bench's own clients) is marked starved (bench/_levels.py, bench/_open_view.py).

A reference that fails (pgbench exiting with an error, the raw-SQL transactions refused) gives
"n/a" and a note, never the end of the run; before asking for many clients, the references read
the server's max_connections and take no more than leaves room for others.

Closed loop (a second view): N simulated workers, each with its own session and connection,
repeat what a worker's browser does for one task: post the dashboard's "next task" form
(answered with the task page itself), post the description with "Submit and back to my work"
(302 to the dashboard); URLs come from the URLconf, as the pages link them. Two references
are measured in the same run, with the same number of clients: pgbench on the same server (one
single-row INSERT per transaction), and the raw-SQL reference, the loop's own claim and submit
transactions sent straight over psycopg2 (bench/_raw_reference.py): the database-bound limit
of this design. The SQL queries of one task are counted too.

Everything happens in a database of the run's own on DATABASE_URL's server (its name, "bench"
and the process id), created empty and dropped at the end; Celery messages go to a queue of
the run's own in REDIS_URL's database, removed at the end. Work (segments, workers) is seeded
as each level needs it. Two runs on one server never touch each other.

    .venv/bin/python bench/worker_loop.py         # open loop, then 1, 8, 32 and 64 workers
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
import socket
import subprocess
import tempfile
from pathlib import Path

import psycopg2

from bench._http_load import (
    ENDPOINTS,
    Tally,
    WebServer,
    cpu_snapshot,
    cpu_used,
    page_address,
    run_level,
)
from bench._levels import (
    CONNECTION_HEADROOM,
    ReferenceFailed,
    clients_allowed,
    connection_room,
    figure_text,
    level_load,
    machine_busy_seconds,
    reference_or_none,
)
from bench._open_view import browsers_for, open_loop, print_open_loop, print_table
from bench._raw_reference import raw_tasks_per_second
from bench._run import bench_run
from bench._seed import (
    get_user_model_rows,
    pgbench_table_create,
    places_ensure,
    raw_workers,
    sessions_create,
)

ROOT = Path(__file__).resolve().parent.parent

PGBENCH = "/usr/bin/pgbench"
PGBENCH_SCRIPT = (
    "INSERT INTO bench_insert (worker, text) VALUES (:client_id, 'A man slices a tomato.');\n"
)


def concurrency_levels(value: str) -> list[int]:
    return [int(number) for number in value.split(",")]


def rates_list(value: str) -> list[float]:
    rates = [float(number) for number in value.split(",")]
    if any(rate <= 0 for rate in rates) or rates != sorted(rates):
        raise argparse.ArgumentTypeError("rates must be above 0, in ascending order")
    return rates


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--concurrency",
        type=concurrency_levels,
        help="simulated workers per level, comma-separated (default 1,8,32,64; --quick: 1,4)",
    )
    parser.add_argument("--seconds", type=int, help="measured seconds per level (default 10)")
    parser.add_argument(
        "--segments",
        type=int,
        default=200,
        help="segments seeded before any level (200); each level adds what it needs",
    )
    parser.add_argument(
        "--rates",
        type=rates_list,
        help="open loop: arrival rates to try over HTTP, tasks/s, ascending "
        "(default 10,15,20,30,40,50,60,80,100,120,150,200; --quick: 5,10)",
    )
    parser.add_argument(
        "--raw-rates",
        type=rates_list,
        help="open loop: rates to try for the raw-SQL reference "
        "(default 50,100,150,200,300,400,500,600,800,1000; --quick: 20,40)",
    )
    parser.add_argument(
        "--open-seconds", type=int, help="open loop: measured seconds per rate (default 20)"
    )
    parser.add_argument(
        "--think-median", type=float, default=20.0, help="median think time, s (20)"
    )
    parser.add_argument(
        "--think-sigma",
        type=float,
        default=0.5,
        help="shape of the log-normal think time, sigma of its logarithm (0.5)",
    )
    parser.add_argument(
        "--refine",
        type=int,
        help="open loop: at most this many rates tried halfway between the highest that held "
        "and the lowest that broke, once the climb stops, until the two are within 10%% of "
        "each other; the same for the site and the raw-SQL reference (default 4; --quick: 0)",
    )
    parser.add_argument("--closed-only", action="store_true", help="skip the open loop")
    parser.add_argument(
        "--port", type=int, default=0, help="the site's port (default: one the system finds free)"
    )
    parser.add_argument(
        "--pgbench", default=PGBENCH, help=f"the pgbench program of the reference ({PGBENCH})"
    )
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
    args.open_seconds = args.open_seconds or (5 if args.quick else 20)
    args.rates = args.rates or (
        [5, 10] if args.quick else [10, 15, 20, 30, 40, 50, 60, 80, 100, 120, 150, 200]
    )
    args.raw_rates = args.raw_rates or (
        [20, 40] if args.quick else [50, 100, 150, 200, 300, 400, 500, 600, 800, 1000]
    )
    args.refine = (0 if args.quick else 4) if args.refine is None else args.refine
    if args.refine < 0:
        parser.error("--refine must be at least 0")
    if args.port and not port_free(args.port):
        parser.error(f"port {args.port} is in use: choose a free one, or leave --port out")
    # gunicorn as deployed (gunicorn.conf.py), but for what the command line sets.
    deployed = runpy.run_path(str(ROOT / "gunicorn.conf.py"))
    args.web_workers = args.web_workers or deployed["workers"]
    args.worker_class = args.worker_class or deployed["worker_class"]
    args.threads = args.threads or deployed["threads"]
    if min(args.concurrency) < 1 or args.seconds < 1 or args.segments < 0 or args.target < 1:
        parser.error("concurrency, seconds and target must be at least 1, segments at least 0")
    if args.think_median <= 0 or args.think_sigma < 0 or args.open_seconds < 1:
        parser.error("think median and open-loop seconds must be above 0, sigma at least 0")
    return args


# Tasks done in this process to count the queries of one: the first loads the templates.
COUNTED_TASKS = 2


def queries_per_task(urls: dict) -> int:
    """The SQL queries one task takes (next task with its page, submit), counted in this process
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
            task = page_address(client.post(urls["next"], {"tier": "1"}).content)
            text = f"A person waves number {number}."
            form = {"text": text, "language": "en", "then": "dashboard"}
            if client.post(task, form).status_code != 302:
                sys.exit("The in-process task, counted for its queries, was refused.")
    return len(queries.captured_queries)


def port_free(port: int) -> bool:
    """Nothing listens on ``port`` of 127.0.0.1: the bench must never measure somebody else's
    server that happens to answer there."""
    with socket.socket() as probe:
        # As gunicorn binds: a port whose last connections are closing (TIME_WAIT, a run just
        # before) is free; one somebody listens on is not.
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def pgbench_inserts_per_second(
    server: dict, clients: int, seconds: int, script: Path, *, program: str = PGBENCH
) -> float:
    """pgbench's transactions per second; ReferenceFailed (with pgbench's own words) when it
    exits with an error or prints no figure, as it does when the server is out of connections."""
    command = [program, "-n", "-f", str(script), "-c", str(clients), "-j", str(min(clients, 2))]
    command += ["-T", str(seconds), "-h", server["HOST"], "-p", server["PORT"]]
    command += ["-U", server["USER"], server["NAME"]]
    env = {**os.environ, "PGPASSWORD": server["PASSWORD"] or ""}
    try:
        result = subprocess.run(command, env=env, capture_output=True, text=True)
    except OSError as error:
        raise ReferenceFailed(f"pgbench could not start: {error}") from error
    found = re.search(r"^tps = ([\d.]+)", result.stdout, re.MULTILINE)
    if result.returncode or found is None:
        said = (result.stderr.strip() or result.stdout.strip() or "nothing").splitlines()[-1]
        raise ReferenceFailed(f"pgbench exited with {result.returncode}: {said[:200]}")
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


# gunicorn's settings beside the run's own database and queue (bench._run).
WEB_SETTINGS = {
    "DEBUG": "False",
    "SECRET_KEY": "bench-only",  # the sessions written here must verify in gunicorn
    "ALLOWED_HOSTS": "127.0.0.1",
    "SESSION_COOKIE_SECURE": "False",
    "CSRF_COOKIE_SECURE": "False",
    "SECURE_SSL_REDIRECT": "False",
}


def closed_loop(args, web, urls, connect, server, monitor, scratch, total, log) -> tuple:
    """The closed-loop view: N workers with no pause between tasks, beside pgbench and the
    raw-SQL reference with as many clients; returns (table rows, CPU rows)."""
    options = {"urls": urls, "with_dashboard": args.with_dashboard}
    endpoints = ["next", "submit"] + (["dashboard"] if args.with_dashboard else [])
    script = Path(scratch, "insert.sql")
    script.write_text(PGBENCH_SCRIPT)
    rows, cpu_rows, notes = [], [], []
    for level, workers in enumerate(args.concurrency):
        # Room for the fastest either side could go (each worker does each HIT at most once).
        places_ensure(args.seconds * CLOSED_TASKS_PER_SECOND_CEILING, target=args.target)
        keys = sessions_create(f"bench-{level}", workers)
        browsers = browsers_for(web.port, keys)
        print(f"{workers} workers: {args.seconds} s over HTTP…", file=log, flush=True)
        before, machine = cpu_snapshot(web, monitor), machine_busy_seconds()
        tally, elapsed = run_level(browsers, args.seconds, **options)
        cpu = cpu_used(before, cpu_snapshot(web, monitor))
        load = level_load(
            elapsed=elapsed,
            cores=os.cpu_count(),
            machine=machine_busy_seconds() - machine,
            own=cpu["web"] + cpu["database"],
            client=cpu["client"],
            bench=sum(cpu.values()),
        )
        total.merge(tally)
        clients = reference_clients(workers, connect, notes)
        print(f"{clients} clients: {args.seconds} s of pgbench…", file=log, flush=True)
        inserts, why = reference_or_none(
            lambda clients=clients: pgbench_inserts_per_second(
                server, clients, args.seconds, script, program=args.pgbench
            )
        )
        if why:
            notes.append(f"pgbench at {clients} clients gave no figure: {why}")
        print(f"{clients} clients: {args.seconds} s of raw SQL…", file=log, flush=True)
        raw_ids = raw_workers(f"bench-raw-{level}", clients)
        raw_done = {}

        def raw_step(raw_ids=raw_ids, raw_done=raw_done):
            try:
                tasks_per_second, raw_done["submitted"] = raw_tasks_per_second(
                    connect, raw_ids, args.seconds
                )
            except ReferenceFailed as failure:
                raw_done["submitted"] = failure.submitted
                raise
            return tasks_per_second

        raw, why = reference_or_none(raw_step)
        if why:
            notes.append(f"raw SQL at {clients} clients gave no figure: {why}")
        total.submitted += raw_done.get("submitted", 0)
        tasks = tally.tasks / elapsed
        line = [str(workers), f"{tasks:.1f}", f"{tally.requests / elapsed:.1f}"]
        for endpoint in endpoints:
            values = tally.latencies[endpoint]
            line.append(f"{percentile(values, 50):.1f} / {percentile(values, 99):.1f}")
        line += [figure_text(inserts, 0), ratio_text(tasks, inserts, 4), figure_text(raw, 0)]
        line.append(ratio_text(tasks, raw, 3))
        rows.append(line)
        per_task = {part: 1000 * seconds / max(tally.tasks, 1) for part, seconds in cpu.items()}
        busy = sum(cpu.values()) / elapsed
        cpu_rows.append(
            [str(workers)]
            + [f"{per_task[part]:.1f}" for part in ("web", "database", "client")]
            + [f"{busy:.2f} of {os.cpu_count()}", *load.cells()]
            + ["starved" if load.starved else ""]
        )
    return rows, cpu_rows, notes


def reference_clients(workers: int, connect: dict, notes: list) -> int:
    """As many reference clients as workers, or fewer when the server is short of connections
    (its max_connections less those open now and CONNECTION_HEADROOM): pgbench asked for more
    than the server allows fails outright."""
    try:
        room = connection_room(connect)
    except psycopg2.Error as error:
        notes.append(f"could not read the server's connection limit: {error}")
        return workers
    clients = clients_allowed(workers, **room, headroom=CONNECTION_HEADROOM)
    if clients < workers:
        notes.append(
            f"references at {workers} workers ran with {clients} clients: max_connections "
            f"{room['max_connections']}, {room['reserved']} reserved, {room['in_use']} open, "
            f"{CONNECTION_HEADROOM} kept free"
        )
    return clients


# More tasks a second than either side of the closed loop reaches on any machine we know of.
CLOSED_TASKS_PER_SECOND_CEILING = 2000


def ratio_text(value: float, reference: float | None, places: int) -> str:
    """value ÷ reference, or "n/a" when the reference measured nothing or failed."""
    return f"{value / reference:.{places}f}" if reference else "n/a"


def main() -> int:
    args = parse_args()
    log = sys.stderr
    load_before = os.getloadavg()[0]
    with bench_run("bench", log=log, **WEB_SETTINGS) as (server, env):
        return measure(args, server, env, log, load_before)


def measure(args, server: dict, env: dict, log, load_before: float) -> int:
    from django.db import connections
    from django.urls import reverse

    urls = {"next": reverse("crowd:task_next"), "dashboard": reverse("collector:dashboard")}
    places_ensure(args.segments * args.target, target=args.target)
    pgbench_table_create()
    queries = queries_per_task(urls)
    connect = {
        "dbname": server["NAME"],
        "user": server["USER"],
        "password": server["PASSWORD"],
        "host": server["HOST"],
        "port": server["PORT"],
    }
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
            port=args.port,
        ) as web,
    ):
        # Warm every gunicorn worker (imports, templates, database connection) before timing.
        warm = browsers_for(web.port, sessions_create("bench-warm", 8))
        warm_up, _ = run_level(warm, 1, urls=urls, with_dashboard=False)
        total.merge(warm_up)
        if not warm_up.tasks:
            sys.exit(f"Not one task completed while warming up: {dict(warm_up.errors)}.")
        if not args.closed_only:
            figures = open_loop(args, web, urls, connect, monitor, log)
            for attempts in figures["levels"].values():
                total.submitted += sum(attempt.result.finished for attempt in attempts)
            # Printed now: whatever the closed loop meets, the headline line is out.
            print_open_loop(figures)
        rows, cpu_rows, reference_notes = closed_loop(
            args, web, urls, connect, server, monitor, scratch, total, log
        )

    print_closed_loop(args, queries, rows, cpu_rows)
    print(
        f"\nLoad average (1 min) before the run {load_before:.2f}, after {os.getloadavg()[0]:.2f}."
    )
    notes = reference_notes
    if total.refused:
        notes.append(f"{total.refused} submissions refused")
    if total.ran_out:
        notes.append(f"{total.ran_out} workers ran out of work")
    notes += [f"{count} × {error}" for error, count in total.errors.most_common()]
    for note in notes:
        print(f"Note: {note}")
    problems = stored_data_problems(submitted=total.submitted, uncertain=total.uncertain)
    connections.close_all()
    for problem in problems:
        print(f"FAILED: {problem}")
    if not problems:
        print(
            f"Checked: {total.submitted} successful submissions, as many descriptions stored; "
            "no worker assigned a HIT twice; no HIT over its target."
        )
    return 1 if problems or total.errors else 0


def print_closed_loop(args, queries: int, rows, cpu_rows) -> None:
    endpoints = ["next", "submit"] + (["dashboard"] if args.with_dashboard else [])
    print(
        f"\nClosed loop (a second view): each worker asks again as soon as it is answered, no "
        f"think time. gunicorn paracrowd.wsgi, {args.web_workers} {args.worker_class} "
        f"workers{f' of {args.threads} threads' if args.threads > 1 else ''}, "
        f"{os.cpu_count()} cores; {args.seconds} s per level. A task is "
        f"{' + '.join(ENDPOINTS[e] for e in endpoints)}, {queries} SQL queries. References, "
        "same client count, same server: pgbench, one single-row INSERT per transaction; raw "
        "SQL, the same claim and submit transactions over psycopg2.\n"
    )
    header = ["workers", "tasks/s", "requests/s"]
    header += [f"{ENDPOINTS[e]} p50/p99 ms" for e in endpoints]
    header += ["pgbench inserts/s", "tasks/s ÷ inserts/s", "raw SQL tasks/s", "÷ raw SQL"]
    print_table(header, rows)
    print(
        "\nCPU per task (ms), from /proc: gunicorn, its PostgreSQL backends, the bench's own "
        "clients (this process and its children but gunicorn); the load average (1 min) at the "
        "level's end; the share of all cores the site (gunicorn and its backends) got, the "
        "bench's clients', and every other process's; starved: other load crowded it out (the "
        "bench's clients are not other load).\n"
    )
    header = ["workers", "gunicorn", "postgres", "client", "CPUs used", "load", "site CPU"]
    print_table([*header, "bench client CPU", "other CPU", ""], cpu_rows)


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        sys.exit("Interrupted; gunicorn is stopped, its database, sessions and queue removed.")
