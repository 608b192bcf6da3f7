"""The open-loop view of bench/worker_loop.py as the bench runs and prints it: the climb over
rates for the site and for the raw-SQL reference (each level with its load average and CPU
shares, a rate that breaks tried once more, bench/_levels.py), its table and its one line to
compare run to run. A reference that fails gives "n/a", never the end of the run.

Not a benchmark itself (`make bench` skips files starting with an underscore).
"""

import contextlib
import math
import os
import time
from collections import Counter

import psycopg2

from bench._http_load import Browser, cpu_snapshot, cpu_used, is_task_page
from bench._levels import REFINE_RESOLUTION, climb, level_load, machine_busy_seconds
from bench._open_loop import P99_LIMIT_MS, HttpActor, RawActor, Think
from bench._open_loop import run_level as run_open_level
from bench._seed import places_ensure, raw_workers, sessions_create


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


def print_table(header: list[str], lines: list[list[str]]) -> None:
    lines = [header, *lines]
    widths = [max(len(line[column]) for line in lines) for column in range(len(header))]
    for line in lines:
        print("  ".join(cell.rjust(width) for cell, width in zip(line, widths, strict=True)))


def open_loop(args, web, urls: dict, connect: dict, monitor, log) -> dict:
    """The open-loop view: the highest arrival rate that keeps every p99 under the limit, over
    HTTP and for the raw-SQL reference, under the same schedule and rule. A reference that
    fails leaves its figure None (printed "n/a") and a note why; the site's stands."""
    think = Think(median=args.think_median, sigma=args.think_sigma)
    found, attempts, failures = {}, {}, {}
    for side, rates in (("site", args.rates), ("raw", args.raw_rates)):
        print(f"Open loop, {side}: rates {rates}", file=log, flush=True)
        actor = HttpActor([], urls, is_task_page) if side == "site" else RawActor([], connect)
        workers_made = [0]

        def measure(rate, number, side=side, actor=actor, workers_made=workers_made):
            # Workers and places for this level: the thinking population plus the arrivals.
            needed = math.ceil(rate * (think.mean * 1.5 + args.open_seconds) + 50)
            places_ensure(needed, target=args.target)
            missing = needed - len(actor.free) - len(actor.holding)
            if missing > 0:
                workers_made[0] += 1
                prefix = f"bench-open-{side}-{workers_made[0]}"
                if side == "site":
                    actor.free += browsers_for(web.port, sessions_create(prefix, missing))
                else:
                    actor.free += raw_workers(prefix, missing)
            print(f"  {rate:g} tasks/s for {args.open_seconds} s…", file=log, flush=True)
            before, machine, started = cpu_snapshot(web, monitor), machine_busy_seconds(), now()
            result = run_open_level(
                actor, rate=rate, seconds=args.open_seconds, think=think, seed=number
            )
            result.load = measured_load(before, machine, started, web, monitor, side)
            print(f"    {level_summary(result)}", file=log, flush=True)
            return result

        try:
            found[side], attempts[side] = climb(rates, measure, refine=args.refine)
        except (OSError, psycopg2.Error) as error:
            if side == "site":
                raise
            # The reference's step failed (a connection refused, the server out of them): the
            # site's figure is measured already and is printed beside "n/a".
            found[side], attempts[side] = None, []
            failures[side] = f"{type(error).__name__}: {str(error).strip()[:200]}"
        finally:
            if side == "raw":
                with contextlib.suppress(psycopg2.Error):
                    actor.close()
        if side == "raw" and found[side] == 0.0:
            failures[side] = "held at no rate tried" + errors_text(attempts[side])
            found[side] = None
    return {
        "think": think,
        "found": found,
        "levels": attempts,
        "failures": failures,
        "refine": args.refine,
    }


def now() -> float:
    return time.perf_counter()


def measured_load(before, machine: float, started: float, web, monitor, side: str):
    """The load average and CPU shares of the level that began at ``before`` (cpu_snapshot),
    ``machine`` (machine_busy_seconds) and ``started`` (perf_counter)."""
    cpu = cpu_used(before, cpu_snapshot(web, monitor))
    # The raw-SQL reference's clients are the bench's own, as the site's load generator is:
    # shown apart, and never counted as other load.
    own = cpu["web"] + cpu["database"] if side == "site" else cpu["database"]
    return level_load(
        elapsed=now() - started,
        cores=os.cpu_count(),
        machine=machine_busy_seconds() - machine,
        own=own,
        client=cpu["client"],
        bench=sum(cpu.values()),
    )


def level_summary(result) -> str:
    load = result.load
    verdict = "holds" if result.holds else "breaks"
    return (
        f"next task p99 {result.p99('next'):.1f} ms, submit p99 {result.p99('submit'):.1f} ms: "
        f"{verdict}; load average {load.load:.2f}, CPU: measured side {100 * load.own_share:.0f}%"
        f", bench client {100 * load.client_share:.0f}%, others {100 * load.other_share:.0f}%"
        f"{', starved' if load.starved else ''}"
    )


def errors_text(attempts) -> str:
    errors = sum((attempt.result.errors for attempt in attempts), Counter())
    return "".join(f"; {count} × {error}" for error, count in errors.most_common(2))


def open_loop_line(site: float, raw: float | None, think: Think) -> str:
    """The one line to compare run to run; "n/a" for a reference that gave no figure."""
    ratio = f"{site / raw:.3f}" if raw else "n/a"
    return (
        f"open loop: {site:.1f} tasks/s with every p99 under {P99_LIMIT_MS:.0f} ms "
        f"({round(site * think.mean):,} workers at {think.median:g} s think time); "
        f"raw SQL: {'n/a' if raw is None else f'{raw:.1f} tasks/s'}; ratio {ratio}"
    )


def print_open_loop(figures: dict) -> None:
    think, found = figures["think"], figures["found"]
    refined = (
        f", then rates halfway until the climb is within {100 * REFINE_RESOLUTION:.0f}% (site "
        f"and raw SQL alike)"
        if figures.get("refine")
        else ""
    )
    print(
        f"\nOpen loop: tasks arriving as a Poisson process at each rate, think time "
        f"{think.describe()}; a rate holds when next task (answered with its page) and submit keep "
        f"p99 under {P99_LIMIT_MS:.0f} ms (from when each was due), with no error; a rate that "
        f"breaks is tried once more{refined}. Load average (1 min) at the level's end; CPU, "
        f"share of {os.cpu_count()} cores: the measured side's (site: gunicorn and its "
        f"PostgreSQL backends; raw SQL: the backends), the bench's own clients' (the "
        f"load generator; raw SQL: the reference's clients) and every other process's; a level "
        f"is starved when other load crowded it out (the bench's clients are not other load).\n"
    )
    rows = []
    for side, attempts in figures["levels"].items():
        for attempt in attempts:
            result = attempt.result
            rule = ("holds" if result.holds else "breaks") + (" (again)" if attempt.repeat else "")
            rows.append(
                [
                    "site" if side == "site" else "raw SQL",
                    f"{result.rate:g}",
                    f"{round(result.rate * think.mean):,}",
                    str(result.finished),
                    f"{result.p99('next'):.1f}",
                    f"{result.p99('submit'):.1f}",
                    str(sum(result.errors.values()) + result.short_of_workers),
                    *result.load.cells(),
                    "starved" if result.load.starved else "",
                    rule,
                ]
            )
    header = ["", "tasks/s", "workers", "submitted", "next task p99", "submit p99", "errors"]
    print_table([*header, "load", "own CPU", "bench client CPU", "other CPU", "", "rule"], rows)
    for side, attempts in figures["levels"].items():
        for attempt in attempts:
            for error, count in attempt.result.errors.most_common(3):
                print(f"Note: {side} at {attempt.rate:g} tasks/s: {count} × {error}")
    for side, why in figures["failures"].items():
        print(f"Note: the {'raw-SQL reference' if side == 'raw' else side} gave no figure: {why}")
    print(open_loop_line(found["site"], found["raw"], think), flush=True)
