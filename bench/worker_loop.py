"""Serving the worker loop with gunicorn as deployed, against the database-bound limit.

Two views. Open loop (the headline): tasks arrive as a crowd's do, at a stated rate (a
Poisson process), each a worker asking for the next task (answered with its page), reading
and typing for a think time drawn from a stated distribution (log-normal, median 20 s), and
submitting (bench/_open_loop.py). Rates rise level by level until one breaks the rule: next
task (with its page) and submit each keep their p99 under 150 ms. The highest rate that held
is printed beside the same figure for the raw-SQL reference under the same schedule and rule,
with the concurrent workers the rate means, in one line to compare run to run ("open loop:
61.0 tasks/s with every p99 under 150 ms (1,220 workers at 20 s think time); raw SQL: 480.0
tasks/s; ratio 0.127").

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
import subprocess
import tempfile
from pathlib import Path

import psycopg2

from bench._http_load import (
    ENDPOINTS,
    Browser,
    Tally,
    WebServer,
    cpu_snapshot,
    cpu_used,
    is_task_page,
    page_address,
    run_level,
)
from bench._open_loop import P99_LIMIT_MS, HttpActor, RawActor, Think
from bench._open_loop import run_level as run_open_level
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
    parser.add_argument("--closed-only", action="store_true", help="skip the open loop")
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


def pgbench_inserts_per_second(server: dict, clients: int, seconds: int, script: Path) -> float:
    command = [PGBENCH, "-n", "-f", str(script), "-c", str(clients), "-j", str(min(clients, 2))]
    command += ["-T", str(seconds), "-h", server["HOST"], "-p", server["PORT"]]
    command += ["-U", server["USER"], server["NAME"]]
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


# gunicorn's settings beside the run's own database and queue (bench._run).
WEB_SETTINGS = {
    "DEBUG": "False",
    "SECRET_KEY": "bench-only",  # the sessions written here must verify in gunicorn
    "ALLOWED_HOSTS": "127.0.0.1",
    "SESSION_COOKIE_SECURE": "False",
    "CSRF_COOKIE_SECURE": "False",
    "SECURE_SSL_REDIRECT": "False",
}


def browsers_for(port: int, keys: list[str]) -> list:
    """A browser per session. Its CSRF cookie is set here rather than fetched from a page:
    Django takes the unmasked secret as the form's token, so one cookie serves both."""
    from django.conf import settings

    return [
        Browser(
            port,
            {settings.SESSION_COOKIE_NAME: key, settings.CSRF_COOKIE_NAME: f"{n:032d}"},
            settings.CSRF_COOKIE_NAME,
        )
        for n, key in enumerate(keys)
    ]


def open_loop(args, web, urls: dict, connect: dict, log) -> dict:
    """The open-loop view: the highest arrival rate that keeps every p99 under the limit, over
    HTTP and for the raw-SQL reference, under the same schedule and rule."""
    think = Think(median=args.think_median, sigma=args.think_sigma)
    found, tallies = {}, {}
    for side, rates in (("site", args.rates), ("raw", args.raw_rates)):
        print(f"Open loop, {side}: rates {rates}", file=log, flush=True)
        actor = HttpActor([], urls, is_task_page) if side == "site" else RawActor([], connect)
        results = []
        for number, rate in enumerate(rates):
            # Workers and places for this level: the thinking population plus the arrivals.
            needed = math.ceil(rate * (think.mean * 1.5 + args.open_seconds) + 50)
            places_ensure(needed, target=args.target)
            missing = needed - len(actor.free) - len(actor.holding)
            if missing > 0:
                prefix = f"bench-open-{side}-{number}"
                if side == "site":
                    keys = sessions_create(prefix, missing)
                    actor.free += browsers_for(web.port, keys)
                else:
                    actor.free += raw_workers(prefix, missing)
            print(f"  {rate:g} tasks/s for {args.open_seconds} s…", file=log, flush=True)
            result = run_open_level(
                actor, rate=rate, seconds=args.open_seconds, think=think, seed=number
            )
            results.append(result)
            if not result.holds:
                break
        if side == "raw":
            actor.close()
        held = [result.rate for result in results if result.holds]
        found[side] = max(held) if held else 0.0
        tallies[side] = results
    return {"think": think, "found": found, "levels": tallies}


def print_open_loop(figures: dict) -> None:
    think, found = figures["think"], figures["found"]
    print(
        f"\nOpen loop: tasks arriving as a Poisson process at each rate, think time "
        f"{think.describe()}; a rate holds when next task (answered with its page) and submit keep "
        f"p99 under {P99_LIMIT_MS:.0f} ms (from when each was due), with no error.\n"
    )
    rows = []
    for side, results in figures["levels"].items():
        for result in results:
            rows.append(
                [
                    "site" if side == "site" else "raw SQL",
                    f"{result.rate:g}",
                    f"{round(result.rate * think.mean):,}",
                    str(result.finished),
                    f"{result.p99('next'):.1f}",
                    f"{result.p99('submit'):.1f}",
                    str(sum(result.errors.values()) + result.short_of_workers),
                    "holds" if result.holds else "breaks",
                ]
            )
    header = ["", "tasks/s", "workers", "submitted", "next task p99", "submit p99"]
    print_table([*header, "errors", "rule"], rows)
    for side, results in figures["levels"].items():
        for result in results:
            for error, count in result.errors.most_common(3):
                print(f"Note: {side} at {result.rate:g} tasks/s: {count} × {error}")
    site, raw = found["site"], found["raw"]
    ratio = f"{site / raw:.3f}" if raw else "n/a (the reference held at no rate)"
    print(
        f"open loop: {site:.1f} tasks/s with every p99 under {P99_LIMIT_MS:.0f} ms "
        f"({round(site * think.mean):,} workers at {think.median:g} s think time); "
        f"raw SQL: {raw:.1f} tasks/s; ratio {ratio}"
    )


def closed_loop(args, web, urls, connect, server, monitor, scratch, total, log) -> tuple:
    """The closed-loop view: N workers with no pause between tasks, beside pgbench and the
    raw-SQL reference with as many clients; returns (table rows, CPU rows)."""
    options = {"urls": urls, "with_dashboard": args.with_dashboard}
    endpoints = ["next", "submit"] + (["dashboard"] if args.with_dashboard else [])
    script = Path(scratch, "insert.sql")
    script.write_text(PGBENCH_SCRIPT)
    rows, cpu_rows = [], []
    for level, workers in enumerate(args.concurrency):
        # Room for the fastest either side could go (each worker does each HIT at most once).
        places_ensure(args.seconds * CLOSED_TASKS_PER_SECOND_CEILING, target=args.target)
        keys = sessions_create(f"bench-{level}", workers)
        browsers = browsers_for(web.port, keys)
        print(f"{workers} workers: {args.seconds} s over HTTP…", file=log, flush=True)
        before = cpu_snapshot(web, monitor)
        tally, elapsed = run_level(browsers, args.seconds, **options)
        cpu = cpu_used(before, cpu_snapshot(web, monitor))
        total.merge(tally)
        print(f"{workers} clients: {args.seconds} s of pgbench…", file=log, flush=True)
        inserts = pgbench_inserts_per_second(server, workers, args.seconds, script)
        print(f"{workers} clients: {args.seconds} s of raw SQL…", file=log, flush=True)
        raw_ids = raw_workers(f"bench-raw-{level}", workers)
        raw, raw_submitted = raw_tasks_per_second(connect, raw_ids, args.seconds)
        total.submitted += raw_submitted
        tasks = tally.tasks / elapsed
        line = [str(workers), f"{tasks:.1f}", f"{tally.requests / elapsed:.1f}"]
        for endpoint in endpoints:
            values = tally.latencies[endpoint]
            line.append(f"{percentile(values, 50):.1f} / {percentile(values, 99):.1f}")
        line += [f"{inserts:.0f}", ratio_text(tasks, inserts, 4), f"{raw:.0f}"]
        line.append(ratio_text(tasks, raw, 3))
        rows.append(line)
        per_task = {part: 1000 * seconds / max(tally.tasks, 1) for part, seconds in cpu.items()}
        busy = sum(cpu.values()) / elapsed
        cpu_rows.append(
            [str(workers)]
            + [f"{per_task[part]:.1f}" for part in ("web", "database", "client")]
            + [f"{busy:.2f} of {os.cpu_count()}"]
        )
    return rows, cpu_rows


# More tasks a second than either side of the closed loop reaches on any machine we know of.
CLOSED_TASKS_PER_SECOND_CEILING = 2000


def ratio_text(value: float, reference: float, places: int) -> str:
    """value ÷ reference, or "n/a" when the reference measured nothing."""
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
        ) as web,
    ):
        # Warm every gunicorn worker (imports, templates, database connection) before timing.
        warm = browsers_for(web.port, sessions_create("bench-warm", 8))
        warm_up, _ = run_level(warm, 1, urls=urls, with_dashboard=False)
        total.merge(warm_up)
        if not warm_up.tasks:
            sys.exit(f"Not one task completed while warming up: {dict(warm_up.errors)}.")
        figures = None
        if not args.closed_only:
            figures = open_loop(args, web, urls, connect, log)
            for results in figures["levels"].values():
                total.submitted += sum(result.finished for result in results)
        rows, cpu_rows = closed_loop(args, web, urls, connect, server, monitor, scratch, total, log)

    if figures:
        print_open_loop(figures)
    print_closed_loop(args, queries, rows, cpu_rows)
    print(
        f"\nLoad average (1 min) before the run {load_before:.2f}, after {os.getloadavg()[0]:.2f}."
    )
    notes = []
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
    print("\nCPU per task (ms), from /proc: gunicorn, its PostgreSQL backends, this client.\n")
    print_table(["workers", "gunicorn", "postgres", "client", "CPUs used"], cpu_rows)


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        sys.exit("Interrupted; gunicorn is stopped, its database, sessions and queue removed.")
