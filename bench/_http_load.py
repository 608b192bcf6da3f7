"""The load generator of bench/worker_loop.py: gunicorn as deployed, simulated workers' browsers
driving it over HTTP, and the CPU each side uses, read from /proc.

Not a benchmark itself (`make bench` skips files starting with an underscore).
"""

import contextlib
import http.client
import json
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from http.cookies import SimpleCookie
from pathlib import Path
from urllib.parse import urlencode, urlsplit

from bench._levels import cpu_parts, process_table

ROOT = Path(__file__).resolve().parent.parent

# How long gunicorn's workers may take to boot: on a busy machine, importing the project in five
# workers at once takes well over half a minute.
STARTUP_SECONDS = 120
# Next task answers with the task page itself (crowd/next_task.py): one request, not two.
ENDPOINTS = {"next": "next task with its page", "submit": "submit", "dashboard": "dashboard"}
# The address a task page names for itself when it answers a form.
CANONICAL = re.compile(rb'<link rel="canonical" href="([^"]+)">')


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class WebServer:
    """gunicorn as deployed, on ``port`` (a free one if 0). On the way out, whatever happens, it
    is stopped and the Celery messages its workers queued (a scoring task per submission) are
    taken back out of the bench's Redis database: no Celery worker must ever run them."""

    def __init__(
        self, *, env: dict, workers: int, log_path: Path, options: tuple = (), port: int = 0
    ):
        self.env, self.workers, self.log_path = env, workers, log_path
        self.options = list(options)  # further gunicorn options (--worker-class, --threads)
        self.port = port or free_port()
        self.process = None
        self.messages_removed = 0

    def __enter__(self) -> "WebServer":
        command = [str(Path(sys.executable).parent / "gunicorn"), "paracrowd.wsgi"]
        command += ["--bind", f"127.0.0.1:{self.port}", "--workers", str(self.workers)]
        command += self.options
        with open(self.log_path, "wb") as log:
            # A session of its own, so Ctrl-C reaches only us and we stop it in order.
            self.process = subprocess.Popen(
                command, cwd=ROOT, env=self.env, stdout=log, stderr=log, start_new_session=True
            )
        try:
            wait_until_answering(self.process, self.port, self.log_path)
        except BaseException:
            self.__exit__()
            raise
        return self

    def __exit__(self, *exc_info) -> None:
        pids = {self.process.pid, *process_children(self.process.pid)}
        self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()
        self.messages_removed = broker_messages_remove(
            self.env["REDIS_URL"], pids, queue_prefix(self.env)
        )

    def pids(self) -> list[int]:
        return [self.process.pid, *process_children(self.process.pid)]


def queue_prefix(env: dict) -> str:
    """The prefix of the Celery queues of processes started with ``env``, as the settings
    choose it (paracrowd/settings.py: the variable, else the database's name)."""
    chosen = env.get("CELERY_QUEUE_PREFIX") or env.get("CELERY_QUEUE")
    return chosen or urlsplit(env["DATABASE_URL"]).path.lstrip("/")


def broker_messages_remove(redis_url: str, pids: set[int], prefix: str) -> int:
    """Remove the Celery messages that these processes sent to the queues under ``prefix``;
    returns how many."""
    import redis

    client = redis.Redis.from_url(redis_url)
    removed = 0
    try:
        for queue in client.scan_iter(match=f"{prefix}.*", _type="list"):
            for raw in client.lrange(queue, 0, -1):
                origin = re.match(r"gen(\d+)@", json.loads(raw)["headers"].get("origin") or "")
                if origin and int(origin.group(1)) in pids:
                    removed += client.lrem(queue, 1, raw)
    except redis.RedisError as error:
        print(f"Could not clear the bench's Celery messages: {error}", file=sys.stderr)
    finally:
        client.close()
    return removed


def process_stat(pid: int) -> list[str]:
    """Fields 3 onwards of /proc/<pid>/stat (after the command name, which may hold spaces)."""
    return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()


def process_children(pid: int) -> list[int]:
    children = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdecimal():
            with contextlib.suppress(OSError, IndexError):
                if int(process_stat(int(entry.name))[1]) == pid:
                    children.append(int(entry.name))
    return children


def cpu_snapshot(server: WebServer, monitor) -> dict[str, dict[int, float]]:
    """CPU used so far by gunicorn, by the bench database's backends, and by the bench's own
    clients (this process, its threads, and its child processes but gunicorn; bench._levels)."""
    with monitor.cursor() as cursor:
        cursor.execute(
            "SELECT pid FROM pg_stat_activity"
            " WHERE datname = current_database() AND pid <> pg_backend_pid()"
        )
        backends = [pid for (pid,) in cursor.fetchall()]
    table = process_table()
    bench = os.getpid()
    # This process to the nanosecond rather than in clock ticks: its threads are the load.
    table[bench] = (os.getppid(), time.process_time())
    exited = os.times()
    return cpu_parts(
        table,
        bench=bench,
        web=server.process.pid,
        backends=backends,
        reaped=exited.children_user + exited.children_system,
    )


def cpu_used(before: dict, after: dict) -> dict[str, float]:
    return {
        part: sum(seconds - before[part].get(pid, 0.0) for pid, seconds in after[part].items())
        for part in after
    }


def wait_until_answering(server: subprocess.Popen, port: int, log_path: Path) -> None:
    give_up = time.monotonic() + STARTUP_SECONDS
    while time.monotonic() < give_up:
        if server.poll() is not None:
            sys.exit(f"gunicorn exited with {server.returncode}:\n{log_path.read_text()[-3000:]}")
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
        try:
            connection.request("GET", "/accounts/login/")
            if connection.getresponse().status == 200:
                return
        except OSError:
            time.sleep(0.1)
        finally:
            connection.close()
    sys.exit(f"gunicorn did not answer within {STARTUP_SECONDS} s:\n{log_path.read_text()[-3000:]}")


class Browser:
    """One simulated worker's browser: a cookie jar and one HTTP connection.

    gunicorn's sync workers close the connection after each response; http.client then opens
    a new one for the next request, as a browser would. Threaded workers keep it open.
    """

    def __init__(self, port: int, cookies: dict[str, str], csrf_cookie: str):
        self.connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        self.cookies = dict(cookies)
        self.csrf_cookie = csrf_cookie

    def request(self, method: str, path: str, form: dict | None = None) -> tuple[int, str]:
        """Send one request and read the whole answer. Returns the status and the address it
        leads to: a redirect's Location, or the address a page names for itself ("")."""
        headers = {"Cookie": "; ".join(f"{name}={value}" for name, value in self.cookies.items())}
        body = None
        if form is not None:
            body = urlencode(form)
            headers["Content-Type"] = "application/x-www-form-urlencoded"
            headers["X-CSRFToken"] = self.cookies.get(self.csrf_cookie, "")
        self.connection.request(method, path, body, headers)
        response = self.connection.getresponse()
        body = response.read()
        for header in response.headers.get_all("Set-Cookie") or []:
            for name, morsel in SimpleCookie(header).items():
                if morsel.value:
                    self.cookies[name] = morsel.coded_value
                else:  # Django deletes a cookie by setting it empty (the messages, once shown)
                    self.cookies.pop(name, None)
        if response.status // 100 == 3:
            return response.status, urlsplit(response.getheader("Location", "")).path
        return response.status, page_address(body)

    def close(self) -> None:
        self.connection.close()


@dataclass
class Tally:
    """What one or more simulated workers did during one level."""

    latencies: dict[str, list[float]] = field(default_factory=lambda: {e: [] for e in ENDPOINTS})
    tasks: int = 0
    submitted: int = 0
    refused: int = 0
    uncertain: int = 0  # the connection failed during a submission: stored or not, we can't tell
    ran_out: int = 0
    errors: Counter = field(default_factory=Counter)
    finished_at: float = 0.0

    def merge(self, other: "Tally") -> None:
        for endpoint, values in other.latencies.items():
            self.latencies[endpoint] += values
        self.tasks += other.tasks
        self.submitted += other.submitted
        self.refused += other.refused
        self.uncertain += other.uncertain
        self.ran_out += other.ran_out
        self.errors.update(other.errors)
        self.finished_at = max(self.finished_at, other.finished_at)

    @property
    def requests(self) -> int:
        return sum(len(values) for values in self.latencies.values())


def description_form(number: int) -> dict:
    """A description as the task page posts it, with "Submit and back to my work": the loop
    measured is next task, submit."""
    return {
        "text": f"A person is slicing tomato number {number} on a wooden board.",
        "language": "en",
        "other_language": "",
        "comment": "",
        "then": "dashboard",
    }


def page_address(body: bytes) -> str:
    """The address a page names for itself (a task page answering a form), or ""."""
    found = CANONICAL.search(body)
    return found.group(1).decode() if found else ""


def is_task_page(path: str) -> bool:
    from django.urls import Resolver404, resolve

    try:
        return resolve(path).view_name == "collector:describe"
    except Resolver404:
        return False


def work(browser: Browser, clock: dict, tally: Tally, *, urls: dict, with_dashboard: bool) -> None:
    """Do tasks until the deadline: next task (answered with the task page), submit (and the
    dashboard, if asked)."""

    def timed(endpoint, method, path, form=None):
        started = time.perf_counter()
        status, location = browser.request(method, path, form)
        tally.latencies[endpoint].append(time.perf_counter() - started)
        return status, location

    deadline = clock["deadline"]
    number = 0
    while time.perf_counter() < deadline:
        stage = "next"
        try:
            status, task = timed("next", "POST", urls["next"], {"tier": "1"})
            if status != 200 or not is_task_page(task):
                if status == 302 and task == urls["dashboard"]:
                    tally.ran_out += 1  # nothing left for them; going on would time refusals
                    break
                tally.errors[f"next task answered {status} {task}"] += 1
                continue
            stage = "submit"
            number += 1
            status, location = timed("submit", "POST", task, description_form(number))
            if status == 200:  # the form came back with the reason it was refused
                tally.refused += 1
                continue
            if status != 302 or location != urls["dashboard"]:
                tally.errors[f"submit answered {status} {location}"] += 1
                continue
            tally.submitted += 1
            if with_dashboard:
                stage = "dashboard"
                status, _ = timed("dashboard", "GET", urls["dashboard"])
                if status != 200:
                    tally.errors[f"dashboard answered {status}"] += 1
                    continue
            tally.tasks += 1
        except (OSError, http.client.HTTPException) as error:
            tally.errors[f"{stage}: {type(error).__name__}"] += 1
            tally.uncertain += stage == "submit"
            browser.close()
    tally.finished_at = time.perf_counter()


def run_level(browsers: list[Browser], seconds: float, **options) -> tuple:
    """All browsers work at once for ``seconds``; returns (merged tally, elapsed seconds)."""
    clock = {}
    # Each level starts on new connections: between levels the server has closed the idle
    # ones (keep-alive), as a browser coming back after a while would find them.
    for browser in browsers:
        browser.close()

    def start():
        clock["start"] = time.perf_counter()
        clock["deadline"] = clock["start"] + seconds

    barrier = threading.Barrier(len(browsers), action=start)
    tallies = [Tally() for _ in browsers]

    def run(browser, tally):
        barrier.wait()
        work(browser, clock, tally, **options)

    # Daemon threads, so that Ctrl-C ends the run at once (gunicorn is stopped in a finally).
    threads = [
        threading.Thread(target=run, args=pair, daemon=True)
        for pair in zip(browsers, tallies, strict=True)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    total = Tally()
    for tally in tallies:
        total.merge(tally)
    return total, total.finished_at - clock["start"]
