"""The open-loop view of bench/worker_loop.py: workers arrive as a crowd does, not as fast as
the site answers.

Tasks start at a stated rate, at the times of a Poisson process; each is a worker asking for
the next task (answered with its page), then reading and typing for a think time drawn from a
log-normal distribution (a stated median), then submitting. Each request's latency counts
from the moment it was due, so a client or server that falls behind is charged for it. A
level starts in the steady state: the workers already thinking at its start (as many as the
rate times the mean think time, each with the time it has left, drawn as a steady state has
it) hold tasks claimed before the clock starts, so a level of twenty seconds measures what a
crowd that has been arriving for hours would see.

The same schedule drives the site over HTTP and the raw-SQL reference (its claim statement
and its submit transaction, bench/_raw_reference.py) under the same rule.

Not a benchmark itself (`make bench` skips files starting with an underscore).
"""

import heapq
import http.client
import math
import queue
import random
import threading
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime

import psycopg2

from bench._http_load import description_form
from bench._raw_reference import CLAIM, submit_claimed

# The rule: every endpoint's 99th percentile under this.
P99_LIMIT_MS = 150.0


@dataclass(frozen=True)
class Think:
    """Think time per task: log-normal with this median and shape (sigma of its logarithm)."""

    median: float = 20.0
    sigma: float = 0.5

    @property
    def mean(self) -> float:
        return self.median * math.exp(self.sigma**2 / 2)

    def draw(self, rng: random.Random) -> float:
        return rng.lognormvariate(math.log(self.median), self.sigma)

    def left_in_steady_state(self, rng: random.Random) -> float:
        # A worker found thinking is in a think time drawn in proportion to its length (for a
        # log-normal, log-normal again with mu + sigma^2), at a uniform point of it.
        return rng.random() * rng.lognormvariate(math.log(self.median) + self.sigma**2, self.sigma)

    def describe(self) -> str:
        return f"log-normal, median {self.median:g} s, sigma {self.sigma:g}, mean {self.mean:.1f} s"


@dataclass
class LevelResult:
    rate: float
    started: int = 0
    finished: int = 0
    latencies: dict = field(default_factory=lambda: {"next": [], "submit": []})
    errors: Counter = field(default_factory=Counter)
    short_of_workers: int = 0

    def p99(self, endpoint: str) -> float:
        values = sorted(self.latencies[endpoint])
        if not values:
            return math.nan
        return 1000 * values[max(0, math.ceil(0.99 * len(values)) - 1)]

    @property
    def holds(self) -> bool:
        """Every endpoint measured, every p99 under the limit, no error, nobody turned away."""
        p99s = [self.p99(endpoint) for endpoint in self.latencies]
        return (
            not sum(self.errors.values())
            and not self.short_of_workers
            and all(not math.isnan(p) and p < P99_LIMIT_MS for p in p99s)
        )


class Timetable:
    """Runs each job at its due time on a pool of threads; a job is called with the time it
    was due (perf_counter), and may add further jobs."""

    def __init__(self, threads: int):
        self.pool = ThreadPoolExecutor(threads)
        self.due, self.lock, self.sequence = [], threading.Condition(), 0

    def at(self, when: float, job) -> None:
        with self.lock:
            self.sequence += 1
            heapq.heappush(self.due, (when, self.sequence, job))
            self.lock.notify()

    def run_until(self, end: float) -> None:
        """Dispatch jobs due before ``end``; drop the rest (they were due after the level)."""
        futures = []
        while True:
            with self.lock:
                now = time.perf_counter()
                if now >= end:
                    break
                if not self.due or self.due[0][0] > now:
                    wait = (self.due[0][0] if self.due else end) - now
                    self.lock.wait(min(wait, end - now, 0.05))
                    continue
                when, _, job = heapq.heappop(self.due)
            futures.append(self.pool.submit(job, when))
        for future in futures:
            future.result()
        with self.lock:
            self.due.clear()

    def close(self) -> None:
        self.pool.shutdown()


def run_level(actor, *, rate: float, seconds: float, think: Think, seed: int) -> LevelResult:
    """One level: tasks arriving at ``rate`` a second for ``seconds``, with ``actor`` doing them
    (``HttpActor`` or ``RawActor``). Returns what was measured; workers still thinking at the
    end stay with the actor (the next level's thinking population)."""
    rng = random.Random(seed)
    result = LevelResult(rate=rate)
    timetable = Timetable(actor.threads)
    thinking = actor.thinking_to(round(rate * think.mean))
    start = time.perf_counter() + 0.5
    end = start + seconds

    def timed(endpoint, due, call):
        try:
            ok = call()
        except (OSError, http.client.HTTPException, psycopg2.Error) as error:
            result.errors[f"{endpoint}: {type(error).__name__}: {str(error)[:80]}"] += 1
            return False
        if not ok:
            result.errors[f"{endpoint}: refused"] += 1
            return False
        result.latencies[endpoint].append(time.perf_counter() - due)
        return True

    def submit(worker):
        def job(due):
            if timed("submit", due, lambda: actor.submit(worker)):
                result.finished += 1
            actor.release(worker)

        return job

    def arrive(due):
        worker = actor.take()
        if worker is None:
            result.short_of_workers += 1
            return
        result.started += 1
        if not timed("next", due, lambda: actor.claim(worker)):
            actor.release(worker)
            return
        timetable.at(time.perf_counter() + think.draw(rng), submit(worker))

    for worker in thinking:
        timetable.at(start + think.left_in_steady_state(rng), submit(worker))
    moment = start
    while True:
        moment += rng.expovariate(rate)
        if moment >= end:
            break
        timetable.at(moment, arrive)
    timetable.run_until(end)
    timetable.close()
    return result


class _Workers:
    """Workers free to arrive, and those holding a claimed task (thinking)."""

    def __init__(self, workers: list):
        self.free, self.holding, self.lock = list(workers), set(), threading.Lock()

    def take(self):
        with self.lock:
            if not self.free:
                return None
            worker = self.free.pop()
            self.holding.add(worker)
            return worker

    def release(self, worker) -> None:
        with self.lock:
            self.holding.discard(worker)
            self.free.append(worker)

    def thinking_to(self, count: int) -> list:
        """At least ``count`` workers holding a claimed task (claimed now, untimed)."""
        with self.lock:
            holding = list(self.holding)
        wanted = [self.take() for _ in range(max(0, count - len(holding)))]

        def claim(worker) -> bool:
            try:
                if self.claim(worker):
                    return True
            except (OSError, http.client.HTTPException, psycopg2.Error):
                pass
            self.release(worker)
            return False

        with ThreadPoolExecutor(self.threads) as pool:
            wanted = [worker for worker in wanted if worker is not None]
            claimed = list(pool.map(claim, wanted))
        return holding + [worker for worker, ok in zip(wanted, claimed, strict=True) if ok]


class HttpActor(_Workers):
    """The site over HTTP: each worker is a Browser with its session; the task a worker holds
    is kept on its browser."""

    threads = 64

    def __init__(self, browsers: list, urls: dict, is_task_page):
        super().__init__(browsers)
        self.urls, self.is_task_page = urls, is_task_page

    def claim(self, browser) -> bool:
        # After a think time the server has closed the kept-alive connection, as a browser
        # coming back would find it: a new one, as the browser would open.
        browser.close()
        # Answered with the task page itself, which names its address.
        status, task = browser.request("POST", self.urls["next"], {"tier": "1"})
        browser.task = task if status == 200 and self.is_task_page(task) else None
        return browser.task is not None

    def submit(self, browser) -> bool:
        browser.close()
        browser.number = getattr(browser, "number", 0) + 1
        status, location = browser.request("POST", browser.task, description_form(browser.number))
        return status == 302 and location == self.urls["dashboard"]


class RawActor(_Workers):
    """The raw-SQL reference: a worker id claims with the site's claim statement and submits
    with its transaction, over a fixed pool of connections (as many as the site's gunicorn
    threads could hold: ``threads``), shared by every level."""

    threads = 32

    def __init__(self, worker_ids: list[int], connect: dict):
        super().__init__(worker_ids)
        self.connect, self.claimed = connect, {}
        self.pool, self.opened = queue.Queue(), 0
        self.opening = threading.Lock()

    @contextmanager
    def _connection(self):
        try:
            connection = self.pool.get_nowait()
        except queue.Empty:
            with self.opening:
                room = self.opened < self.threads
                self.opened += room
            connection = psycopg2.connect(**self.connect) if room else self.pool.get()
        try:
            yield connection
        finally:
            self.pool.put(connection)

    def claim(self, worker_id) -> bool:
        with self._connection() as connection:
            connection.autocommit = True
            with connection.cursor() as cursor:
                cursor.execute(CLAIM, [worker_id, datetime.now(UTC)])
                claimed = cursor.fetchone()
        self.claimed[worker_id] = claimed
        return claimed is not None

    def submit(self, worker_id) -> bool:
        with self._connection() as connection:
            return submit_claimed(connection, worker_id, self.claimed.pop(worker_id), worker_id)

    def close(self) -> None:
        while not self.pool.empty():
            self.pool.get_nowait().close()
