"""What makes a worker-loop figure one to trust (bench/worker_loop.py): the CPU the measured side
got at each level and how much other processes took, a level marked starved when other load
crowded it out, a level that breaks the rule tried once more before the climb stops, the
server's connection limit respected before many clients are asked for, and a reference that
fails reported as "n/a" rather than ending the run.

Not a benchmark itself (`make bench` skips files starting with an underscore).
"""

import contextlib
import os
import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import psycopg2

# Other processes taking this share of the machine's CPU during a level crowd the measured
# side out: on two cores, half a core.
STARVED_OTHER_SHARE = 0.25
# ...or this much other runnable work per core in the load average (the bench's own use taken
# out): a request then waits for a core as often as not. The load average lags a minute and
# counts the bench's own waiting threads (64 clients of the closed loop) as well, so it counts
# only when other processes did take a share of the CPU too.
STARVED_OTHER_LOAD_PER_CORE = 0.5
STARVED_OTHER_SHARE_WITH_LOAD = 0.10
# Connections left free on the server beside the bench's: the site's own, psql, autovacuum and
# whatever else of other people's opens one meanwhile.
CONNECTION_HEADROOM = 10


class ReferenceFailed(Exception):
    """A reference step (pgbench, the raw-SQL transactions) did not give a figure."""


def reference_or_none(step: Callable[[], float]) -> tuple[float | None, str]:
    """Run one reference step; (its figure, "") or, when it fails, (None, why). A failed
    reference costs its own figure, never the run's other figures."""
    try:
        return step(), ""
    except ReferenceFailed as error:
        return None, str(error)
    except (OSError, subprocess.SubprocessError, psycopg2.Error) as error:
        return None, f"{type(error).__name__}: {str(error).strip()[:200]}"


def figure_text(value: float | None, places: int = 1) -> str:
    return "n/a" if value is None else f"{value:.{places}f}"


# --- the CPU a level got -----------------------------------------------------------------


def machine_busy_seconds() -> float:
    """CPU seconds every core of the machine has spent busy (not idle, not waiting on disk)
    since boot, from /proc/stat."""
    with open("/proc/stat") as stat:
        fields = [int(value) for value in stat.readline().split()[1:]]
    idle = fields[3] + (fields[4] if len(fields) > 4 else 0)
    return (sum(fields[:8]) - idle) / os.sysconf("SC_CLK_TCK")


def process_table() -> dict[int, tuple[int, float]]:
    """Every live process: pid -> (its parent's pid, user plus system CPU seconds so far)."""
    ticks = os.sysconf("SC_CLK_TCK")
    table = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdecimal():
            with contextlib.suppress(OSError, IndexError, ValueError):
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
                used = (int(fields[11]) + int(fields[12])) / ticks
                table[int(entry.name)] = (int(fields[1]), used)
    return table


def descendants(table: dict[int, tuple[int, float]], root: int) -> set[int]:
    """``root`` and every live process below it in ``table``."""
    children: dict[int, list[int]] = {}
    for pid, (parent, _) in table.items():
        children.setdefault(parent, []).append(pid)
    found, waiting = set(), [root]
    while waiting:
        pid = waiting.pop()
        if pid in table and pid not in found:
            found.add(pid)
            waiting += children.get(pid, [])
    return found


def cpu_parts(
    table: dict[int, tuple[int, float]],
    *,
    bench: int,
    web: int,
    backends: list[int],
    reaped: float = 0.0,
) -> dict[str, dict[int, float]]:
    """CPU seconds so far of each part of the bench, by pid, from ``table`` (process_table):
    the web server (``web`` and everything below it), the bench database's ``backends``, and
    the bench's own clients: the bench process (``bench``) and every process below it that is
    not the web server's (a load generator or a reference's clients run as processes of their
    own), with ``reaped`` (key 0), the CPU of its children that have exited. Judged by pid, not
    by name: another user's python or pgbench is somebody else's load."""
    site = descendants(table, web)
    client = descendants(table, bench) - site
    return {
        "web": {pid: table[pid][1] for pid in site},
        "database": {pid: table[pid][1] for pid in backends if pid in table},
        "client": {0: reaped, **{pid: table[pid][1] for pid in client}},
    }


@dataclass(frozen=True)
class LevelLoad:
    """What the machine did during one level: the 1-minute load average at its end, the share
    of all cores the measured side got (site: gunicorn and its PostgreSQL backends; raw SQL:
    the backends), the bench's own clients' (the load generator; for raw SQL, the reference's
    clients) and the share everything but the bench took."""

    load: float
    cores: int
    own_share: float
    other_share: float
    bench_share: float  # the whole bench's: the measured side and its own clients
    client_share: float = 0.0

    @property
    def starved(self) -> bool:
        return level_starved(
            load=self.load,
            cores=self.cores,
            bench_share=self.bench_share,
            other_share=self.other_share,
        )

    def cells(self) -> list[str]:
        """Load average, the CPU shares of the measured side, of the bench's own clients and
        of the others, as the tables show them."""
        return [
            f"{self.load:.2f}",
            f"{100 * self.own_share:.0f}%",
            f"{100 * self.client_share:.0f}%",
            f"{100 * self.other_share:.0f}%",
        ]


def level_starved(*, load: float, cores: int, bench_share: float, other_share: float) -> bool:
    """Whether other load crowded a level out: other processes took at least
    STARVED_OTHER_SHARE of the machine's CPU while it ran, or at least
    STARVED_OTHER_SHARE_WITH_LOAD of it while the load average, less the cores the bench itself
    kept busy, left at least STARVED_OTHER_LOAD_PER_CORE of other runnable work per core."""
    others_runnable = max(0.0, load - bench_share * cores)
    return other_share >= STARVED_OTHER_SHARE or (
        other_share >= STARVED_OTHER_SHARE_WITH_LOAD
        and others_runnable / cores >= STARVED_OTHER_LOAD_PER_CORE
    )


def level_load(
    *, elapsed: float, cores: int, machine: float, own: float, bench: float, client: float = 0.0
) -> LevelLoad:
    """``machine``: busy CPU seconds of the whole machine over ``elapsed`` seconds; ``own``:
    the measured side's; ``client``: the bench's own clients'; ``bench``: every process of the
    bench's (``own`` and ``client`` included), none of it counted as others'."""
    capacity = max(elapsed * cores, 1e-9)
    return LevelLoad(
        load=os.getloadavg()[0],
        cores=cores,
        own_share=min(1.0, own / capacity),
        other_share=min(1.0, max(0.0, machine - bench) / capacity),
        bench_share=min(1.0, bench / capacity),
        client_share=min(1.0, client / capacity),
    )


# --- the climb: rates rise until one breaks, twice --------------------------------------


@dataclass
class Attempt:
    rate: float
    holds: bool
    result: object  # what the measurement returned (a LevelResult in the bench)
    repeat: bool = False  # a second try of a rate that broke


# The climb refines until the rate that held and the lowest that broke are this close, as a
# share of the rate that held: the site's figure and the raw-SQL reference's are then known to
# the same relative resolution, so their ratio does not move with where each list's steps fell.
REFINE_RESOLUTION = 0.1


def climb(
    rates: list[float],
    measure: Callable[[float, int], object],
    *,
    refine: int = 0,
    resolution: float = REFINE_RESOLUTION,
) -> tuple[float, list[Attempt]]:
    """Try ``rates`` in turn with ``measure(rate, seed)`` (its result has ``holds``) until one
    breaks; a rate that breaks is tried once more, and the climb stops only when it breaks
    again. Then the rate halfway between the highest that held and the lowest that broke is
    tried (each with the same second chance), until the two are within ``resolution`` of the
    rate that held, at most ``refine`` times. Returns (the highest rate that held, 0.0 if none,
    and every attempt in order)."""
    attempts: list[Attempt] = []

    def holds(rate: float) -> bool:
        for repeat in (False, True):
            result = measure(rate, len(attempts))
            attempts.append(Attempt(rate, bool(result.holds), result, repeat))
            if result.holds:
                return True
        return False

    held, broke = 0.0, None
    for rate in rates:
        if not holds(rate):
            broke = rate
            break
        held = rate
    for _ in range(refine if broke is not None and held else 0):
        if broke - held <= resolution * held:
            break
        middle = round((held + broke) / 2, 1)
        if middle in (held, broke):
            break
        if holds(middle):
            held = middle
        else:
            broke = middle
    return held, attempts


# --- the server's connection limit -------------------------------------------------------


def clients_allowed(
    requested: int, *, max_connections: int, reserved: int, in_use: int, headroom: int
) -> int:
    """The clients a reference may open: ``requested``, or fewer when the server would run
    short of connections (max_connections less those reserved for superusers, those already
    open and ``headroom``); at least one."""
    room = max_connections - reserved - in_use - headroom
    return max(1, min(requested, room))


def connection_room(connect: dict) -> dict[str, int]:
    """The server's max_connections, its superuser-reserved connections and the connections
    open now (every database's), read over a connection of its own (not counted)."""
    connection = psycopg2.connect(**connect)
    try:
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT current_setting('max_connections')::int,"
                " current_setting('superuser_reserved_connections')::int,"
                " (SELECT count(*) FROM pg_stat_activity"
                "  WHERE backend_type = 'client backend' AND pid <> pg_backend_pid())"
            )
            maximum, reserved, in_use = cursor.fetchone()
    finally:
        connection.close()
    return {"max_connections": maximum, "reserved": reserved, "in_use": in_use}
