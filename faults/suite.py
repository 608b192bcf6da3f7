"""The fault suite (`make faults`): the site under concurrency and under broken backing services.

It starts its own Redis server and Celery worker processes (never the ones `make run` uses),
serves a scratch database of the PostgreSQL server of DATABASE_URL with gunicorn, and runs:

1. next task: 500 workers ask for a task at the same moment;
2. Redis down: 1,000 submissions while Redis is stopped part of the way and started again;
3. a Celery worker killed (SIGKILL) in the middle of an export job;
4. PostgreSQL backends terminated while workers load their dashboards;
5. a Celery worker killed in the middle of a correlation report: done within the visibility
   timeout and a minute;
6. a randomised fuzzing pass over the research API (schemathesis, a new seed each run), and
   fixed edge inputs: JSON nested 5,000 deep on four addresses, 30 concurrent schema requests.
7. scale-out: two web processes and two Celery workers through PgBouncer (transaction pooling)
   and Redis Sentinel; one web process killed and the Redis master failed over in the middle of
   1,000 submissions and an export (faults/_scale.py).

It prints what it saw, and exits non-zero on any lost or doubled row (and on a scenario that
does not recover in time). The randomised pass prints what it found without failing the suite;
a server error on the fixed edge inputs fails it.
The scratch database is this run's own and is dropped at the end.

    .venv/bin/python faults/suite.py            # all seven, a few minutes
    .venv/bin/python faults/suite.py --quick    # smaller numbers, for a smoke run
    .venv/bin/python faults/suite.py --only scale-out,redis-down   # chosen scenarios alone
"""

import argparse
import math
import os
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench._database import scratch_database
from bench._http_load import Browser, WebServer
from faults._fuzz import scenario_fuzzing
from faults._jobs import VISIBILITY_TIMEOUT, scenario_correlation_killed, scenario_worker_killed
from faults._scale import scenario_scale_out
from faults._services import CeleryWorker, RedisServer, percentile, wait_until


def sessions_for(workers) -> list[dict]:
    """A logged-in session per worker, written directly (logging in is not under test)."""
    from importlib import import_module

    from django.conf import settings
    from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY

    store = import_module(settings.SESSION_ENGINE).SessionStore
    cookies = []
    for worker in workers:
        session = store()
        session[SESSION_KEY] = str(worker.user.pk)
        session[BACKEND_SESSION_KEY] = "crowd.auth_backend.WorkerProfileBackend"
        session[HASH_SESSION_KEY] = worker.user.get_session_auth_hash()
        session.create()
        # Django accepts the unmasked secret as the form's token: one cookie serves both.
        secret = f"{worker.pk:032d}"
        cookies.append({settings.SESSION_COOKIE_NAME: session.session_key, "csrftoken": secret})
    return cookies


def make_workers(prefix: str, count: int):
    from django.contrib.auth import get_user_model
    from django.test.utils import override_settings

    from crowd.models import Worker

    with override_settings(PASSWORD_HASHERS=["django.contrib.auth.hashers.MD5PasswordHasher"]):
        users = get_user_model().objects.bulk_create(
            get_user_model()(username=f"{prefix}-{n}", password="!")  # noqa: S106 (unusable)
            for n in range(count)
        )
    return Worker.objects.bulk_create(
        Worker(user=user, platform=Worker.Platform.LOCAL) for user in users
    )


def make_segments(prefix: str, count: int, *, target: int):
    from decimal import Decimal

    from collector.models import Segment
    from collector.services import segments_offer
    from crowd.models import HitType

    hit_type = HitType.objects.for_kind(HitType.Kind.DESCRIPTION)
    HitType.objects.filter(pk=hit_type.pk).update(target_tier1=target, target_tier2=target)
    created = Segment.objects.bulk_create(
        Segment(
            source=Segment.Source.YOUTUBE,
            youtube_id=f"{prefix}{n:09d}"[:11],
            start=Decimal(0),
            end=Decimal(4),
        )
        for n in range(count)
    )
    segments_offer(segments=Segment.objects.filter(pk__in=[s.pk for s in created]))
    return created


def post_all(port: int, requests: list[tuple[dict, str, dict]], *, threads: int):
    """Send (cookies, path, form) POSTs from ``threads`` threads started together; returns
    [(status, address, seconds)] in order (``Browser.request``'s address)."""
    results = [None] * len(requests)
    barrier = threading.Barrier(min(threads, len(requests)))

    def send(index):
        cookies, path, form = requests[index]
        browser = Browser(port, cookies, "csrftoken")
        if index < barrier.parties:
            barrier.wait()
        started = time.perf_counter()
        try:
            status, location = browser.request("POST", path, form)
        except OSError as error:
            status, location = 0, type(error).__name__
        finally:
            browser.close()
        results[index] = (status, location, time.perf_counter() - started)

    with ThreadPoolExecutor(threads) as pool:
        list(pool.map(send, range(len(requests))))
    return results


def scenario_next_task(port: int, *, workers: int) -> dict:
    from django.db.models import Count, F, Q
    from django.urls import reverse
    from django.utils import timezone

    from crowd.models import Assignment, Hit

    segments = make_segments("n", workers // 5, target=3)  # 3 places per segment: 60% of asks
    cookies = sessions_for(make_workers("next", workers))
    path = reverse("crowd:task_next")
    results = post_all(port, [(c, path, {"tier": "1"}) for c in cookies], threads=workers)
    # A task is answered with its page (200, naming its address); none left, with the dashboard.
    given = sum(1 for status, address, _ in results if status == 200 and "/describe/" in address)
    errors = sum(1 for status, _, _ in results if status not in (200, 302))
    doubled = Assignment.objects.values("worker").annotate(n=Count("id")).filter(n__gt=1).count()
    active = Q(assignments__status=Assignment.Status.SUBMITTED) | Q(
        assignments__status=Assignment.Status.ASSIGNED, assignments__expires_at__gt=timezone.now()
    )
    over = (
        Hit.objects.filter(item__segment__in=segments)
        .annotate(held=Count("assignments", filter=active))
        .filter(held__gt=F("max_assignments"))
        .count()
    )
    places = 3 * len(segments)
    return {
        "requests": workers,
        "tasks given": given,
        "places": places,
        "ran out": workers - given - errors,
        "errors": errors,
        "doubled": doubled,
        "over target": over,
        # With more asks than places, a place left open while someone was told "none left".
        "places left open": max(0, min(places, workers) - given),
        "p50 ms": round(percentile([s for *_, s in results], 50)),
        "p99 ms": round(percentile([s for *_, s in results], 99)),
    }


def submission_requests(prefix: str, count: int):
    """``count`` workers, each holding an assignment, and the POST that submits each one's
    description: (assignments, [(cookies, path, form)])."""
    from crowd import services as crowd
    from crowd.models import Tier

    make_segments(prefix, count // 10, target=10)
    workers = make_workers(f"{prefix}-submit", count)
    assignments = [crowd.assignment_claim(worker=w, tier=Tier.ONE) for w in workers]
    cookies = sessions_for(workers)
    requests = [
        (c, f"/describe/{a.pk}/", {"text": f"A person waves hand number {n}.", "language": "en"})
        for n, (c, a) in enumerate(zip(cookies, assignments, strict=True))
    ]
    return assignments, requests


def scenario_redis_down(port: int, redis_server: RedisServer, *, submissions: int) -> dict:
    from collector.models import Description
    from scoring.models import DescriptionScore

    assignments, requests = submission_requests("r", submissions)
    third = submissions // 3
    results = post_all(port, requests[:third], threads=20)
    redis_server.stop()  # the broker goes away a third of the way in
    results += post_all(port, requests[third : 2 * third], threads=20)
    redis_server.start()
    restarted = time.monotonic()
    results += post_all(port, requests[2 * third :], threads=20)
    ok = [
        a.pk
        for a, (status, location, _) in zip(assignments, results, strict=True)
        if status == 302 and "/describe/" not in location
    ]
    stored = set(Description.objects.values_list("assignment_id", flat=True))
    # The periodic sweep (Celery beat, every two minutes) runs now rather than later.
    from paracrowd.celery import app

    # Sent again every 20 s, as beat would keep sending it: a sweep sent while the worker is
    # still reconnecting to the restarted broker may be lost with nobody to take it.
    scored = None
    deadline = time.monotonic() + 240
    while scored is None and time.monotonic() < deadline:
        app.send_task("scoring.tasks.sweep_unscored")
        scored = wait_until(
            lambda: DescriptionScore.objects.count() >= Description.objects.count(), seconds=20
        )
    return {
        "submissions": submissions,
        "answered saved": len(ok),
        "errors": submissions - len(ok),
        "stored": len(stored),
        "lost": len(set(ok) - stored),
        "doubled": Description.objects.count() - len(stored),
        "scored": DescriptionScore.objects.count(),
        "s to fully scored after restart": None
        if scored is None
        else round(time.monotonic() - restarted, 1),
        "p99 ms while down": round(percentile([s for *_, s in results[third : 2 * third]], 99)),
    }


RECOVERY_PATIENCE = 30  # seconds a terminated round may take to answer well again


def _recovery_seconds(statuses, *, since: float, seconds: float, settle: float = 0.5) -> float:
    """Seconds from ``since`` (a kill) to the first good answer later than every failed one,
    or inf when none comes within ``seconds``. Checked again after ``settle`` seconds: a
    request in flight at the kill may still fail after the first good answer, and then the
    site has recovered only once a good answer follows that failure too."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if _good_after_failures(statuses, since) is None:
            time.sleep(0.05)
            continue
        time.sleep(settle)
        good = _good_after_failures(statuses, since)
        if good is not None:
            return good - since
    return math.inf


def _good_after_failures(statuses, since: float) -> float | None:
    """When the first good answer after ``since`` that is later than every failed one came."""
    after = [(at, status) for at, status in list(statuses) if at > since]
    failed = [at for at, status in after if status != 200]
    good = [at for at, status in after if status == 200 and (not failed or at > max(failed))]
    return min(good, default=None)


def scenario_backends_terminated(port: int, server: dict, *, rounds: int) -> dict:
    import psycopg2
    from django.urls import reverse

    cookies = sessions_for(make_workers("pg", 8))
    path = reverse("collector:dashboard")
    statuses, stop = [], threading.Event()

    def load(jar):
        while not stop.is_set():
            browser = Browser(port, jar, "csrftoken")
            try:
                status, _ = browser.request("GET", path)
            except OSError:
                status = 0
            finally:
                browser.close()
            statuses.append((time.monotonic(), status))

    threads = [threading.Thread(target=load, args=(jar,)) for jar in cookies]
    for thread in threads:
        thread.start()
    killer = psycopg2.connect(
        dbname=server["NAME"],
        user=server["USER"],
        password=server["PASSWORD"],
        host=server["HOST"],
        port=server["PORT"],
    )
    killer.autocommit = True
    terminated, recoveries = 0, []
    try:
        time.sleep(1)
        for _ in range(rounds):
            with killer.cursor() as cursor:
                cursor.execute(
                    "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity"
                    " WHERE datname = current_database() AND pid <> pg_backend_pid()"
                    " AND backend_type = 'client backend'"
                )
                terminated += cursor.fetchone()[0]
            # The next round starts once the site has answered well again (or gave up): a
            # fixed pause would call a slow machine's recovery a failure.
            recoveries.append(
                _recovery_seconds(statuses, since=time.monotonic(), seconds=RECOVERY_PATIENCE)
            )
    finally:
        stop.set()
        for thread in threads:
            thread.join()
        killer.close()
    errors = [status for _, status in statuses if status != 200]
    return {
        "requests": len(statuses),
        "backends terminated": terminated,
        "errors": len(errors),
        "of which 503": errors.count(503),
        "of which 500": errors.count(500),
        "worst s to recover": round(max(recoveries), 2),
        "lost": 0,
        "doubled": 0,
    }


def print_result(title: str, figures: dict) -> None:
    print(f"\n== {title}")
    for name, value in figures.items():
        print(f"  {name:34} {value}")


# Every scenario's short name (`--only NAME[,NAME]`) and title, in the order they run.
SCENARIOS = {
    "next-task": "1. 500 concurrent next-task requests",
    "redis-down": "2. Redis stopped during submissions",
    "export-killed": "3. Celery worker killed mid-export",
    "backends-terminated": "4. PostgreSQL backends terminated",
    "correlation-killed": "5. Celery worker killed mid-correlation",
    "fuzzing": "6. Randomised fuzzing of the research API",
    "scale-out": "7. Scaled out: a web process killed, Redis failed over",
}
# The scenarios that use the suite's own gunicorn (the others start their own processes).
ON_THE_SUITES_WEB_SERVER = {"next-task", "redis-down", "backends-terminated", "fuzzing"}


def run_scenarios(args, env: dict, server: dict, redis_server, log_dir: Path) -> dict:
    print(f"Migrating {server['NAME']}; logs in {log_dir}", file=sys.stderr, flush=True)
    subprocess.run(
        [sys.executable, "manage.py", "migrate", "--noinput", "-v", "0"],
        cwd=ROOT,
        env=env,
        check=True,
    )
    os.environ.update(env)
    import django

    django.setup()
    from django.db import connections

    chosen, results = args.only, {}
    scorer = CeleryWorker(env, log_dir, "scorer")
    if "redis-down" in chosen:
        scorer.start()
    web = None
    try:
        if chosen & ON_THE_SUITES_WEB_SERVER:
            web = WebServer(env=env, workers=4, log_path=log_dir / "gunicorn.log").__enter__()
        if "next-task" in chosen:
            results[SCENARIOS["next-task"]] = scenario_next_task(
                web.port, workers=100 if args.quick else 500
            )
            connections.close_all()
        if "redis-down" in chosen:
            results[SCENARIOS["redis-down"]] = scenario_redis_down(
                web.port, redis_server, submissions=150 if args.quick else 1000
            )
            connections.close_all()
            scorer.stop()
        if "export-killed" in chosen:
            results[SCENARIOS["export-killed"]] = scenario_worker_killed(
                env, log_dir, descriptions=20_000 if args.quick else 100_000
            )
            connections.close_all()
        if "backends-terminated" in chosen:
            results[SCENARIOS["backends-terminated"]] = scenario_backends_terminated(
                web.port, server, rounds=2 if args.quick else 5
            )
            connections.close_all()
        if "correlation-killed" in chosen:
            results[SCENARIOS["correlation-killed"]] = scenario_correlation_killed(
                env, log_dir, ratings=1000 if args.quick else 2000
            )
            connections.close_all()
        if "fuzzing" in chosen:
            results[SCENARIOS["fuzzing"]] = scenario_fuzzing(
                web.port, log_dir, examples=20 if args.quick else 100
            )
        if web is not None:
            web.__exit__()
            web = None
        if "scale-out" in chosen:
            results[SCENARIOS["scale-out"]] = scenario_scale_out(
                env,
                server,
                log_dir,
                submissions=submission_requests,
                descriptions={
                    "submissions": 150 if args.quick else 1000,
                    "export": 10_000 if args.quick else 50_000,
                },
            )
    finally:
        if web is not None:
            web.__exit__()
        if scorer.process is not None:
            scorer.stop()
        connections.close_all()
    return results


def scenario_names(text: str) -> set[str]:
    """``--only``'s value: short names separated by commas, each one of SCENARIOS."""
    names = {name.strip() for name in text.split(",") if name.strip()}
    unknown = sorted(names - SCENARIOS.keys())
    if unknown or not names:
        raise argparse.ArgumentTypeError(
            f"no scenario called {', '.join(unknown) or repr(text)}; "
            f"the scenarios are {', '.join(SCENARIOS)}"
        )
    return names


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="smaller numbers (smoke run)")
    parser.add_argument(
        "--only",
        type=scenario_names,
        default=set(SCENARIOS),
        metavar="NAME[,NAME]",
        help=f"run these scenarios alone: {', '.join(SCENARIOS)}",
    )
    args = parser.parse_args()
    log_dir = Path(tempfile.mkdtemp(prefix="paracrowd-faults-"))
    redis_server = RedisServer(log_dir)
    redis_server.start()
    with scratch_database("faults") as server:
        try:
            results = run_scenarios(
                args,
                faults_environment(server, redis_server, log_dir),
                server,
                redis_server,
                log_dir,
            )
        finally:
            redis_server.stop()
    return report(results)


def faults_environment(server: dict, redis_server, log_dir: Path) -> dict:
    return {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "paracrowd.settings",
        "DEBUG": "False",
        "SECRET_KEY": "faults-only",  # the sessions written here must verify in gunicorn
        "ALLOWED_HOSTS": "127.0.0.1",
        "SECURE_SSL_REDIRECT": "False",
        "DATABASE_URL": server["URL"],
        "REDIS_URL": redis_server.url(),
        "CELERY_VISIBILITY_TIMEOUT": str(VISIBILITY_TIMEOUT),
        "MEDIA_ROOT": str(log_dir / "media"),
        # Many workers share one address here; the limits are not what is under test.
        "THROTTLE_USER": "100000/minute",
    }


def report(results: dict) -> int:
    """Print every scenario's figures; 1 when one lost or doubled rows or did not recover."""
    failures = []
    for title, figures in results.items():
        print_result(title, figures)
        if figures.get("lost") or figures.get("doubled") or figures.get("over target"):
            failures.append(f"{title}: rows lost or doubled")
    figures = {name: results.get(title) for name, title in SCENARIOS.items()}
    if figures["redis-down"] and figures["redis-down"]["s to fully scored after restart"] is None:
        failures.append("descriptions stored while Redis was down were never scored")
    if figures["export-killed"] and figures["export-killed"]["state"] != "done":
        failures.append("the export whose worker was killed never finished")
    terminated = figures["backends-terminated"]
    if terminated and math.isinf(terminated["worst s to recover"]):
        failures.append("the site did not recover after its connections were terminated")
    if figures["fuzzing"] and figures["fuzzing"]["server errors"]:
        failures.append("deep JSON or concurrent schema requests answered a server error")
    if figures["correlation-killed"] and not figures["correlation-killed"]["in time"]:
        failures.append(
            "the correlation report whose worker was killed was not done within the "
            "visibility timeout and a minute"
        )
    failures += scale_out_failures(figures["scale-out"])
    for failure in failures:
        print(f"FAILED: {failure}", file=sys.stderr)
    print("\nAll scenarios held." if not failures else "", flush=True)
    return 1 if failures else 0


def scale_out_failures(figures: dict | None) -> list[str]:
    if not figures:
        return []
    failures = []
    if figures["export state"] != "done":
        failures.append("the export running through the failover never finished")
    if figures["export lost"] or figures["export doubled"]:
        failures.append("the export running through the failover lost or doubled rows")
    if math.isinf(figures["s to recover after web kill"]):
        failures.append("no submission was saved after a web process was killed")
    if figures["s to promote the replica"] is None:
        failures.append("the Sentinels never promoted the replica")
    return failures


if __name__ == "__main__":
    sys.exit(main())
