"""The scale-out scenario of the fault suite: the site as a lab beyond one machine runs it.

Two gunicorn web processes and two Celery workers, every one of them reaching PostgreSQL
through PgBouncer in transaction pooling (DATABASE_POOLER=pgbouncer) and Redis through Sentinel
(a master, one replica, three Sentinels with a quorum of two, as the smallest set that can
lose one Sentinel and still agree). 1,000 submissions go to both web processes in turn (a
load balancer's stand-in that tries the other process when one refuses the connection) while
an export runs; part of the way in one web process is killed (SIGKILL), and further on the
Redis master is killed, for the Sentinels to promote the replica. Then: every submission
answered as saved is stored once (0 lost, 0 doubled), the export is done, and how long each
recovery took.
"""

import os
import pwd
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from bench._http_load import Browser, free_port, wait_until_answering
from faults._services import CeleryWorker, wait_until

ROOT = Path(__file__).resolve().parent.parent
MASTER = "paracrowd"  # the name the Sentinels know the master by
SENTINELS = 3
QUORUM = 2


class PgBouncer:
    """Debian's pgbouncer on a free port, in transaction pooling, in front of the PostgreSQL
    server of ``server`` (bench._database.server_settings). Clients are let in whoever they
    say they are (auth_type any: it listens on 127.0.0.1 alone, for this run) and every server
    connection logs in as the server's own user."""

    def __init__(self, server: dict, log_dir: Path):
        self.server, self.port = server, free_port()
        # pgbouncer refuses to run as root: as root, it runs as postgres in a folder of its own.
        self.folder = Path(tempfile.mkdtemp(prefix="paracrowd-pgbouncer-"))
        self.log = log_dir / "pgbouncer.log"
        self.process = None

    def url(self, database: str) -> str:
        return f"postgres://{self.server['USER']}@127.0.0.1:{self.port}/{database}"

    def start(self) -> "PgBouncer":
        password = f" password={self.server['PASSWORD']}" if self.server["PASSWORD"] else ""
        config = self.folder / "pgbouncer.ini"
        config.write_text(
            "[databases]\n"
            f"* = host={self.server['HOST']} port={self.server['PORT']}"
            f" user={self.server['USER']}{password}\n"
            "[pgbouncer]\n"
            f"listen_addr = 127.0.0.1\nlisten_port = {self.port}\nunix_socket_dir =\n"
            "auth_type = any\npool_mode = transaction\n"
            "max_client_conn = 400\ndefault_pool_size = 20\n"
            f"logfile = {self.folder / 'pgbouncer.log'}\npidfile = {self.folder / 'pid'}\n"
        )
        command = ["pgbouncer", str(config)]
        if os.geteuid() == 0:
            user = pwd.getpwnam("postgres")
            for path in (self.folder, config):
                os.chown(path, user.pw_uid, user.pw_gid)
            command += ["-u", "postgres"]
        self.process = subprocess.Popen(
            command, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT
        )
        import psycopg2

        def answers() -> bool:
            try:
                psycopg2.connect(self.url(self.server["NAME"]), connect_timeout=1).close()
                return True
            except psycopg2.OperationalError:
                return False

        if wait_until(answers, seconds=30) is None:
            sys.exit(f"pgbouncer did not start: see {self.folder / 'pgbouncer.log'}")
        return self

    def stop(self) -> None:
        if self.process and self.process.poll() is None:
            self.process.terminate()
            self.process.wait(timeout=10)
        if (self.folder / "pgbouncer.log").exists():
            shutil.copy(self.folder / "pgbouncer.log", self.log)
        shutil.rmtree(self.folder, ignore_errors=True)


class SentinelRedis:
    """A Redis master, its replica and ``SENTINELS`` Sentinels (Debian's redis-sentinel),
    all on free ports, none persisting anything."""

    def __init__(self, log_dir: Path):
        self.log_dir = log_dir
        self.master_port, self.replica_port = free_port(), free_port()
        self.sentinel_ports = [free_port() for _ in range(SENTINELS)]
        self.processes = {}

    def url(self) -> str:
        return ";".join(f"sentinel://127.0.0.1:{port}/0" for port in self.sentinel_ports)

    def _run(self, name: str, command: list[str]) -> None:
        with open(self.log_dir / f"{name}.log", "ab") as log:
            self.processes[name] = subprocess.Popen(command, stdout=log, stderr=log)

    def start(self) -> "SentinelRedis":
        import redis

        plain = ["--bind", "127.0.0.1", "--save", "", "--appendonly", "no"]
        plain += ["--dir", str(self.log_dir)]  # replication writes its RDB file there
        self._run("redis-master", ["redis-server", "--port", str(self.master_port), *plain])
        replica = ["--replicaof", "127.0.0.1", str(self.master_port)]
        self._run(
            "redis-replica", ["redis-server", "--port", str(self.replica_port), *plain, *replica]
        )
        for number, port in enumerate(self.sentinel_ports):
            config = self.log_dir / f"sentinel-{number}.conf"  # Sentinel rewrites it as it learns
            config.write_text(
                f"port {port}\nbind 127.0.0.1\n"
                f"sentinel monitor {MASTER} 127.0.0.1 {self.master_port} {QUORUM}\n"
                f"sentinel down-after-milliseconds {MASTER} 1000\n"
                f"sentinel failover-timeout {MASTER} 10000\n"
            )
            self._run(f"sentinel-{number}", ["redis-sentinel", str(config)])

        def ready() -> bool:
            # Every Sentinel knows the replica and the other Sentinels: a failover can happen.
            try:
                for port in self.sentinel_ports:
                    sentinel = redis.Redis(port=port, socket_timeout=1, decode_responses=True)
                    state = sentinel.execute_command("SENTINEL", "MASTER", MASTER)
                    if isinstance(state, list):  # unparsed, as Redis sends it
                        state = dict(zip(state[::2], state[1::2], strict=True))
                    if int(state["num-slaves"]) < 1 or int(state["num-other-sentinels"]) < 2:
                        return False
                return True
            except redis.RedisError:
                return False

        if wait_until(ready, seconds=60) is None:
            sys.exit(
                f"the Sentinels did not see the replica and each other: logs in {self.log_dir}"
            )
        return self

    def master_port_now(self) -> int | None:
        import redis

        for port in self.sentinel_ports:
            try:
                address = redis.Redis(port=port, socket_timeout=1).execute_command(
                    "SENTINEL", "GET-MASTER-ADDR-BY-NAME", MASTER
                )
                return int(address[1])
            except (redis.RedisError, TypeError):
                continue
        return None

    def kill_master(self) -> None:
        self.processes["redis-master"].send_signal(signal.SIGKILL)

    def stop(self) -> None:
        for process in self.processes.values():
            if process.poll() is None:
                process.kill()
            process.wait()


class WebProcess:
    """One web node: gunicorn as gunicorn.conf.py sets it up, with a control socket of its
    own, in a process group that SIGKILL takes down whole."""

    def __init__(self, env: dict, log_dir: Path, name: str):
        self.port, self.log = free_port(), log_dir / f"gunicorn-{name}.log"
        self.env = {**env, "WEB_CONTROL_SOCKET": str(log_dir / f"{name}.ctl"), "WEB_WORKERS": "2"}
        self.process = None

    def start(self) -> "WebProcess":
        command = [str(Path(sys.executable).parent / "gunicorn"), "paracrowd.wsgi"]
        command += ["--bind", f"127.0.0.1:{self.port}"]
        with open(self.log, "wb") as log:
            self.process = subprocess.Popen(
                command, cwd=ROOT, env=self.env, stdout=log, stderr=log, start_new_session=True
            )
        return self

    def kill(self) -> None:
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()

    def stop(self) -> None:
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.kill()


def site_environment(env: dict, server: dict, pgbouncer: PgBouncer, redis: SentinelRedis) -> dict:
    site = {
        **env,
        "DATABASE_URL": pgbouncer.url(server["NAME"]),
        "DATABASE_POOLER": "pgbouncer",
        "REDIS_URL": redis.url(),
        "REDIS_SENTINEL_MASTER": MASTER,
        # The suite's own processes and these share the database's name, not their Redis.
        "CELERY_QUEUE_PREFIX": server["NAME"],
    }
    site.pop("CACHE_URL", None)
    return site


def celery_call(env: dict, task: str, *args) -> None:
    """Queue ``task`` the way a site's own process would: through the Sentinels."""
    command = [str(Path(sys.executable).parent / "celery"), "-A", "paracrowd", "call", task]
    command += ["--args", repr(list(args))]
    subprocess.run(command, cwd=ROOT, env=env, check=True, capture_output=True)


def scenario_scale_out(env: dict, server: dict, log_dir: Path, *, submissions, descriptions):
    """``submissions(prefix, count)`` gives (assignments, [(cookies, path, form)]) of the
    suite's own submission helpers."""
    pgbouncer, redis = PgBouncer(server, log_dir), SentinelRedis(log_dir)
    webs, workers = [], []
    try:
        pgbouncer.start()
        redis.start()
        site = site_environment(env, server, pgbouncer, redis)
        webs = [WebProcess(site, log_dir, f"scale-{n}").start() for n in (1, 2)]
        workers = [CeleryWorker(site, log_dir, f"scale-{n}").start() for n in (1, 2)]
        for web in webs:
            wait_until_answering(web.process, web.port, web.log)
        return _run(site, webs, redis, submissions=submissions, descriptions=descriptions)
    finally:
        for process in (*webs, *workers):
            process.stop()
        redis.stop()
        pgbouncer.stop()


def _run(site, webs, redis, *, submissions, descriptions) -> dict:
    from collector.models import Description
    from scoring.models import DescriptionScore

    assignments, requests = submissions("s", descriptions["submissions"])
    job, expected = _export_made(descriptions["export"])
    count = len(requests)
    kill_web_at, export_at = count * 3 // 10, count * 4 // 10
    done, lock, moments = [0], threading.Lock(), {}
    results = [None] * count

    def faults() -> None:
        from django.db import connection

        try:
            wait_until(lambda: done[0] >= kill_web_at, seconds=600)
            webs[0].kill()
            moments["web killed"] = time.monotonic()
            wait_until(lambda: done[0] >= export_at, seconds=600)
            # The master fails while the export runs and submissions still come in.
            celery_call(site, "research.tasks.run_export_job", job.pk)
            wait_until(lambda: job_state(job) != "queued", seconds=60)
            old = redis.master_port_now()
            moments["export when failed over"] = job_state(job)
            redis.kill_master()
            moments["master killed"] = time.monotonic()
            moments["promoted"] = wait_until(
                lambda: redis.master_port_now() not in (None, old), seconds=60
            )
            moments["export done"] = wait_until(
                lambda: job_state(job) not in ("queued", "running"), seconds=300
            )
        finally:
            connection.close()

    def send(index: int) -> None:
        cookies, path, form = requests[index]
        ports = [webs[index % 2].port, webs[(index + 1) % 2].port]
        tries = 0
        for port in ports:  # the balancer tries the other process on a refused connection
            tries += 1
            browser = Browser(port, cookies, "csrftoken")
            try:
                status, location = browser.request("POST", path, form)
                break
            except OSError as error:
                status, location = 0, type(error).__name__
            finally:
                browser.close()
        results[index] = (time.monotonic(), status, location, tries)
        with lock:
            done[0] += 1

    injector = threading.Thread(target=faults)
    injector.start()
    started = time.monotonic()
    with ThreadPoolExecutor(20) as pool:
        list(pool.map(send, range(count)))
    elapsed = time.monotonic() - started
    injector.join()
    ok = [
        a.pk
        for a, (_, status, location, _) in zip(assignments, results, strict=True)
        if status == 302 and "/describe/" not in location
    ]
    rows = Description.objects.filter(assignment_id__in=[a.pk for a in assignments])
    stored = set(rows.values_list("assignment_id", flat=True))
    # Scores: what the web processes queued while the master was failing is swept up, as
    # Celery beat would every two minutes; sent now, through the promoted master.
    celery_call(site, "scoring.tasks.sweep_unscored")
    scored = wait_until(
        lambda: DescriptionScore.objects.filter(description__in=rows).count() >= rows.count(),
        seconds=120,
    )
    written = export_rows(job)
    failed_after_kill = [
        at for at, status, *_ in results if status != 302 and at > moments["web killed"]
    ]
    good_after = [
        at
        for at, status, *_ in results
        if status == 302 and at > max(failed_after_kill, default=moments["web killed"])
    ]
    return {
        "web processes, Celery workers": "2, 2 (PgBouncer, transaction pooling)",
        "Sentinels (quorum)": f"{SENTINELS} ({QUORUM})",
        "submissions": count,
        "answered saved": len(ok),
        "errors": count - len(ok),
        "sent again to the other process": sum(1 for *_, tries in results if tries > 1),
        "stored": len(stored),
        "lost": len(set(ok) - stored),
        "doubled": rows.count() - len(stored),
        "submissions per s": round(count / elapsed, 1),
        "s to recover after web kill": round(
            min(good_after, default=float("inf")) - moments["web killed"], 2
        ),
        "s to promote the replica": _rounded(moments["promoted"]),
        "export when failed over": moments["export when failed over"],
        "s from failover to export done": _rounded(moments["export done"]),
        "every submission scored": scored is not None,
        "export state": job_state(job),
        "export rows expected": len(expected),
        "export rows written": len(written),
        "export lost": len(expected - set(written)),
        "export doubled": len(written) - len(set(written)),
    }


def _rounded(seconds: float | None) -> float | None:
    return None if seconds is None else round(seconds, 1)


def _export_made(size: int):
    """An export job of at least ``size`` accepted descriptions, not yet sent to a worker:
    the suite's own Celery app speaks to the suite's own Redis, so the scenario queues it
    through the Sentinels itself (``celery_call``)."""
    from django.contrib.auth import get_user_model

    from collector.models import Description, Segment
    from research.exports import ExportOptions
    from research.services import export_job_create

    accepted = Description.objects.filter(status=Description.Status.ACCEPTED)
    segments = list(Segment.objects.all()[:200])
    Description.objects.bulk_create(
        (
            Description(
                segment=segments[n % len(segments)],
                text=f"Someone scales thing {n} out.",
                language="en",
                status=Description.Status.ACCEPTED,
            )
            for n in range(max(0, size - accepted.count()))
        ),
        batch_size=5000,
    )
    expected = set(accepted.values_list("pk", flat=True))
    owner = get_user_model().objects.create_user("faults-scale-researcher", is_staff=True)
    job = export_job_create(user=owner, options=ExportOptions("jsonl"))
    return job, expected


def job_state(job) -> str:
    job.refresh_from_db()
    return job.state


def export_rows(job) -> list[int]:
    import json

    from django.core.files.storage import default_storage

    job.refresh_from_db()
    written = []
    for name in job.files or []:
        with default_storage.open(f"{job.folder}/{name}") as file:
            for line in file:
                written += [member["id"] for member in json.loads(line)["descriptions"]]
    return written
