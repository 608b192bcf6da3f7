"""The fault suite's own backing processes: a Redis server it can stop and start, Celery
workers it can kill; and the small helpers every scenario uses."""

import math
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from bench._http_load import free_port

ROOT = Path(__file__).resolve().parent.parent


class RedisServer:
    """A redis-server of our own on a free port, without persistence; stop() and start()
    again on the same port, as an outage would."""

    def __init__(self, log_dir: Path):
        self.port = free_port()
        self.log = log_dir / "redis.log"
        self.process = None

    def url(self, db: int = 0) -> str:
        return f"redis://127.0.0.1:{self.port}/{db}"

    def start(self) -> None:
        command = ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1"]
        command += ["--save", "", "--appendonly", "no"]
        with open(self.log, "ab") as log:
            self.process = subprocess.Popen(command, stdout=log, stderr=log)
        import redis

        client = redis.Redis.from_url(self.url())
        for _ in range(100):
            try:
                client.ping()
                return
            except redis.ConnectionError:
                time.sleep(0.05)
        sys.exit("redis-server did not start")

    def stop(self) -> None:
        self.process.send_signal(signal.SIGKILL)
        self.process.wait()


class CeleryWorker:
    """`celery worker` in a process group of its own, so SIGKILL reaches its pool too."""

    def __init__(self, env: dict, log_dir: Path, name: str):
        self.env, self.log, self.name = env, log_dir / f"celery-{name}.log", name
        self.process = None

    def start(self) -> "CeleryWorker":
        command = [str(Path(sys.executable).parent / "celery"), "-A", "paracrowd", "worker"]
        command += ["--concurrency", "2", "--hostname", f"{self.name}@faults", "-l", "INFO"]
        command += ["--without-gossip", "--without-mingle", "--without-heartbeat"]
        with open(self.log, "ab") as log:
            self.process = subprocess.Popen(
                command, cwd=ROOT, env=self.env, stdout=log, stderr=log, start_new_session=True
            )
        return self

    def kill(self) -> None:
        os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait()

    def stop(self) -> None:
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.kill()


def percentile(values: list[float], percent: float) -> float:
    if not values:
        return math.nan
    ranked = sorted(values)
    return 1000 * ranked[max(0, math.ceil(percent / 100 * len(ranked)) - 1)]


def wait_until(condition, *, seconds: float) -> float | None:
    """Seconds until ``condition()`` held, or None if it did not within ``seconds``."""
    started = time.monotonic()
    while time.monotonic() - started < seconds:
        if condition():
            return time.monotonic() - started
        time.sleep(0.1)
    return None
