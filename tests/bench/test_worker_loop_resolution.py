"""The worker-loop bench's two climbs (the site's and the raw-SQL reference's) end at the same
resolution, and the CPU the bench's own clients use is shown apart and never taken for other
load. Deterministic: fake measurements and synthetic process tables; no test asserts a time."""

import os
import subprocess
import sys
from collections import Counter
from types import SimpleNamespace

import pytest

from bench._levels import (
    REFINE_RESOLUTION,
    climb,
    cpu_parts,
    descendants,
    level_load,
    process_table,
)
from bench._open_loop import Think
from bench._open_view import print_open_loop
from bench.worker_loop import parse_args


def below(threshold: float):
    """A measurement that holds below ``threshold`` tasks/s and breaks from it on."""
    return lambda rate, seed: SimpleNamespace(holds=rate < threshold)


def bracket(held: float, attempts) -> float:
    """The lowest rate that broke above the one that held."""
    return min(attempt.rate for attempt in attempts if not attempt.holds and attempt.rate > held)


@pytest.fixture
def defaults(monkeypatch):
    monkeypatch.setattr(sys, "argv", ["worker_loop.py"])
    return parse_args()


@pytest.mark.parametrize(("site_limit", "raw_limit"), [(67, 237), (93, 455), (31, 730)])
def test_the_site_and_the_reference_climbs_end_within_the_same_resolution(
    defaults, site_limit, raw_limit
):
    # The reference's rates step by 50 to 200 tasks/s, the site's by 5 to 50: refined the same
    # way, both end with the rate that held within REFINE_RESOLUTION of the one that broke.
    for rates, limit in ((defaults.rates, site_limit), (defaults.raw_rates, raw_limit)):
        held, attempts = climb(rates, below(limit), refine=defaults.refine)

        broke = bracket(held, attempts)
        assert held < limit <= broke
        assert broke - held <= REFINE_RESOLUTION * held


def test_refining_stops_once_the_climb_is_within_the_resolution():
    # 100 held, 105 broke twice: 5% apart already, so no halfway rate is tried.
    held, attempts = climb([100, 105], below(103), refine=4)

    assert held == 100
    assert [attempt.rate for attempt in attempts] == [100, 105, 105]


def test_a_quick_run_does_not_refine(monkeypatch):
    monkeypatch.setattr(sys, "argv", ["worker_loop.py", "--quick"])
    args = parse_args()

    held, attempts = climb(args.raw_rates, below(30), refine=args.refine)

    assert held == 20
    assert [attempt.rate for attempt in attempts] == [20, 40, 40]


# A synthetic process table, pid -> (parent, CPU seconds): the bench (100) runs gunicorn (200,
# two workers) and a load generator of its own (300, with a helper 301); PostgreSQL (50) serves
# the bench's backends 51 and 52 and somebody else's 53; another user runs python (400) and its
# pgbench (401), and an unrelated daemon (500) whose parent is init.
BEFORE = {
    1: (0, 0.0),
    100: (1, 1.0),
    200: (100, 0.5),
    201: (200, 2.0),
    202: (200, 2.0),
    300: (100, 1.0),
    301: (300, 0.0),
    50: (1, 3.0),
    51: (50, 1.0),
    52: (50, 1.0),
    53: (50, 1.0),
    400: (1, 10.0),
    401: (400, 1.0),
    500: (1, 1.0),
}
# Over 10 s on two cores (20 CPU seconds): gunicorn 6, the backends 4, the bench process 1,
# its load generator 3.6 (with its helper), somebody else's backend 0.6, python 0.5, pgbench 0.3.
USED = {201: 3.0, 202: 3.0, 51: 2.0, 52: 2.0, 100: 1.0, 300: 3.0, 301: 0.6, 53: 0.6, 400: 0.5}
USED |= {401: 0.3}
AFTER = {pid: (parent, seconds + USED.get(pid, 0.0)) for pid, (parent, seconds) in BEFORE.items()}


def parts(table, reaped=0.0):
    return cpu_parts(table, bench=100, web=200, backends=[51, 52], reaped=reaped)


def test_the_benchs_own_processes_are_told_apart_by_pid():
    split = parts(BEFORE, reaped=0.25)

    assert set(split["web"]) == {200, 201, 202}
    assert set(split["database"]) == {51, 52}
    # The bench and its children but gunicorn; key 0: its children that have exited already.
    assert set(split["client"]) == {0, 100, 300, 301}
    assert split["client"][0] == 0.25
    assert descendants(BEFORE, 400) == {400, 401}


def test_the_load_generators_cpu_is_the_benchs_clients_not_other_load():
    before, after = parts(BEFORE), parts(AFTER)
    cpu = {part: sum(after[part].values()) - sum(before[part].values()) for part in after}
    machine = sum(USED.values())

    load = level_load(
        elapsed=10,
        cores=2,
        machine=machine,
        own=cpu["web"] + cpu["database"],
        client=cpu["client"],
        bench=sum(cpu.values()),
    )

    assert cpu["client"] == pytest.approx(4.6)
    assert load.client_share == pytest.approx(0.23)
    # Somebody else's backend, python and pgbench: 1.4 of 20 CPU seconds.
    assert load.other_share == pytest.approx(0.07)
    assert load.cells()[1:] == ["50%", "23%", "7%"]
    assert not load.starved


def test_a_child_process_of_the_bench_counts_as_its_client_on_the_real_machine():
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        table = process_table()
        split = cpu_parts(table, bench=os.getpid(), web=-1, backends=[])

        assert child.pid in split["client"]
        assert os.getpid() in split["client"]
        assert 1 not in split["client"]
    finally:
        child.kill()
        child.wait()


def test_the_open_loop_table_has_a_bench_client_column(capsys):
    # 20 s on two cores: the site 8 CPU seconds, the bench's clients 6, others 2, of 40.
    load = level_load(elapsed=20, cores=2, machine=16, own=8, client=6, bench=14)
    result = SimpleNamespace(
        rate=80.0,
        finished=1600,
        holds=True,
        errors=Counter(),
        short_of_workers=0,
        load=load,
        p99=lambda endpoint: 90.0,
    )
    figures = {
        "think": Think(),
        "found": {"site": 80.0, "raw": 300.0},
        "levels": {"site": [SimpleNamespace(rate=80.0, result=result, repeat=False)], "raw": []},
        "failures": {},
        "refine": 4,
    }

    print_open_loop(figures)

    lines = capsys.readouterr().out.splitlines()
    assert any("own CPU  bench client CPU  other CPU" in line for line in lines)
    row = next(line for line in lines if line.lstrip().startswith("site"))
    assert row.split()[-4:] == ["20%", "15%", "5%", "holds"]
    assert any("halfway until the climb is within 10%" in line for line in lines)
