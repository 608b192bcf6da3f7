"""What makes bench/worker_loop.py's figures ones to trust, short of timing anything: a reference
step that fails gives "n/a" and the run goes on, the references ask for no more connections than
the server allows, a level crowded out by other load is marked, and a rate that breaks the rule
is tried once more before the climb stops. No test here asserts a time."""

import socket
import subprocess
from collections import Counter
from types import SimpleNamespace

import psycopg2
import pytest

from bench._http_load import free_port
from bench._levels import (
    CONNECTION_HEADROOM,
    ReferenceFailed,
    clients_allowed,
    climb,
    connection_room,
    figure_text,
    level_load,
    level_starved,
    reference_or_none,
)
from bench._open_loop import Think
from bench._open_view import open_loop_line, print_open_loop
from bench._raw_reference import raw_tasks_per_second
from bench.worker_loop import pgbench_inserts_per_second, port_free, ratio_text

SERVER = {"HOST": "127.0.0.1", "PORT": "5432", "USER": "postgres", "PASSWORD": "", "NAME": "x"}


def test_a_pgbench_that_fails_gives_no_figure_and_says_why(tmp_path):
    script = tmp_path / "insert.sql"
    script.write_text("SELECT 1;\n")

    figure, why = reference_or_none(
        lambda: pgbench_inserts_per_second(SERVER, 64, 1, script, program="/bin/false")
    )

    assert figure is None
    assert why.startswith("pgbench exited with 1")


def test_a_pgbench_that_prints_no_figure_fails_rather_than_ending_the_run(tmp_path):
    script = tmp_path / "insert.sql"
    script.write_text("SELECT 1;\n")

    # /bin/echo exits with 0 and prints its arguments: no "tps = " line to read.
    with pytest.raises(ReferenceFailed, match="pgbench exited with 0"):
        pgbench_inserts_per_second(SERVER, 4, 1, script, program="/bin/echo")


def test_a_pgbench_that_is_not_there_gives_no_figure(tmp_path):
    figure, why = reference_or_none(
        lambda: pgbench_inserts_per_second(
            SERVER, 4, 1, tmp_path / "insert.sql", program=str(tmp_path / "no-pgbench")
        )
    )

    assert figure is None
    assert "could not start" in why


def test_other_failures_of_a_reference_step_give_no_figure_either():
    def refused():
        raise psycopg2.OperationalError("FATAL:  sorry, too many clients already")

    def crashed():
        raise subprocess.TimeoutExpired("pgbench", 1)

    assert reference_or_none(refused) == (
        None,
        "OperationalError: FATAL:  sorry, too many clients already",
    )
    assert reference_or_none(crashed)[0] is None
    assert reference_or_none(lambda: 412.5) == (412.5, "")


def test_the_closed_loop_table_shows_n_a_for_a_reference_without_a_figure():
    assert figure_text(None, 0) == "n/a"
    assert figure_text(1234.4, 0) == "1234"
    assert ratio_text(100.0, None, 3) == "n/a"
    assert ratio_text(100.0, 0.0, 3) == "n/a"
    assert ratio_text(100.0, 400.0, 3) == "0.250"


def test_raw_sql_workers_that_cannot_connect_fail_the_step_instead_of_waiting_for_ever():
    # Nothing listens on this port: every connection is refused, as when the server is full.
    nowhere = {"dbname": "x", "user": "postgres", "host": "127.0.0.1", "port": free_port()}

    with pytest.raises(ReferenceFailed, match="OperationalError") as failed:
        raw_tasks_per_second(nowhere, [1, 2, 3, 4], seconds=1)

    assert failed.value.submitted == 0


def test_the_open_loop_line_keeps_its_format_with_a_reference_figure():
    line = open_loop_line(80.0, 300.0, Think(median=20, sigma=0.5))

    assert line == (
        "open loop: 80.0 tasks/s with every p99 under 150 ms (1,813 workers at 20 s think "
        "time); raw SQL: 300.0 tasks/s; ratio 0.267"
    )


def test_a_failed_reference_leaves_the_open_loop_figure_beside_n_a():
    line = open_loop_line(80.0, None, Think(median=20, sigma=0.5))

    assert line == (
        "open loop: 80.0 tasks/s with every p99 under 150 ms (1,813 workers at 20 s think "
        "time); raw SQL: n/a; ratio n/a"
    )


def test_the_open_loop_section_prints_the_site_and_why_the_reference_gave_nothing(capsys):
    load = level_load(elapsed=20, cores=2, machine=12, own=8, bench=10)
    site = SimpleNamespace(
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
        "found": {"site": 80.0, "raw": None},
        "levels": {"site": [SimpleNamespace(rate=80.0, result=site, repeat=False)], "raw": []},
        "failures": {"raw": "OperationalError: FATAL:  sorry, too many clients already"},
    }

    print_open_loop(figures)

    printed = capsys.readouterr().out
    assert "Note: the raw-SQL reference gave no figure: OperationalError" in printed
    assert printed.rstrip().endswith("raw SQL: n/a; ratio n/a")
    assert "open loop: 80.0 tasks/s" in printed


def test_the_references_ask_for_no_more_clients_than_the_server_has_room_for():
    room = {"max_connections": 100, "reserved": 3, "in_use": 40}

    assert clients_allowed(64, **room, headroom=10) == 47
    assert clients_allowed(32, **room, headroom=10) == 32
    assert clients_allowed(64, max_connections=100, reserved=3, in_use=5, headroom=10) == 64


def test_a_server_with_no_room_left_still_gets_one_client():
    assert clients_allowed(64, max_connections=20, reserved=3, in_use=30, headroom=10) == 1


@pytest.mark.django_db
def test_the_connection_room_is_read_from_the_server():
    from django.db import connection

    settings = connection.settings_dict
    connect = {
        "dbname": settings["NAME"],
        "user": settings["USER"],
        "password": settings["PASSWORD"],
        "host": settings["HOST"],
        "port": settings["PORT"] or 5432,
    }
    with connection.cursor() as cursor:
        cursor.execute("SHOW max_connections")
        (maximum,) = cursor.fetchone()

    room = connection_room(connect)

    assert room["max_connections"] == int(maximum)
    assert room["in_use"] >= 1  # this test's own connection, at least
    assert 1 <= clients_allowed(10_000, **room, headroom=CONNECTION_HEADROOM) < int(maximum)


def test_a_level_where_other_processes_took_a_quarter_of_the_cpu_is_starved():
    assert level_starved(load=1.0, cores=2, bench_share=0.3, other_share=0.25)
    assert not level_starved(load=1.0, cores=2, bench_share=0.3, other_share=0.1)


def test_a_level_with_other_runnable_work_in_the_load_average_is_starved():
    # Load 3.0 on two cores, the bench keeping 0.8 of a core busy: 2.2 of other work.
    assert level_starved(load=3.0, cores=2, bench_share=0.4, other_share=0.1)
    # Load 1.6, all of it the bench's own: nobody else there.
    assert not level_starved(load=1.6, cores=2, bench_share=0.8, other_share=0.05)


def test_a_high_load_average_of_the_benchs_own_waiting_threads_is_not_starvation():
    # 64 closed-loop clients queue for two cores: load 12, yet nobody else took any CPU.
    assert not level_starved(load=12.0, cores=2, bench_share=0.97, other_share=0.03)


def test_a_levels_cpu_shares_come_from_the_machines_and_the_benchs_cpu_seconds():
    # 20 s on two cores: 40 CPU seconds; the machine busy for 30, the bench for 20 of them.
    load = level_load(elapsed=20, cores=2, machine=30, own=12, bench=20)

    assert load.own_share == pytest.approx(0.3)
    assert load.other_share == pytest.approx(0.25)
    assert load.bench_share == pytest.approx(0.5)
    assert load.cells()[1:] == ["30%", "0%", "25%"]
    assert load.starved


def scripted(outcomes: dict):
    """A measurement that holds or breaks as ``outcomes`` says, per rate, in turn."""
    calls = []

    def measure(rate, seed):
        calls.append((rate, seed))
        return SimpleNamespace(holds=outcomes[rate].pop(0))

    return measure, calls


def test_a_rate_that_breaks_once_is_tried_again_and_the_climb_goes_on():
    measure, calls = scripted({10: [True], 20: [False, True], 30: [True], 40: [False, False]})

    held, attempts = climb([10, 20, 30, 40, 50], measure)

    assert held == 30
    assert [(a.rate, a.holds, a.repeat) for a in attempts] == [
        (10, True, False),
        (20, False, False),
        (20, True, True),
        (30, True, False),
        (40, False, False),
        (40, False, True),
    ]
    # Every attempt its own arrivals: a new seed each time.
    assert [seed for _, seed in calls] == [0, 1, 2, 3, 4, 5]


def test_a_rate_that_breaks_twice_ends_the_climb():
    measure, calls = scripted({10: [False, False]})

    held, attempts = climb([10, 20], measure)

    assert held == 0.0
    assert [a.rate for a in attempts] == [10, 10]


def test_refining_tries_halfway_between_the_last_rate_that_held_and_the_first_that_broke():
    measure, _ = scripted({60: [True], 80: [False, False], 70: [True], 75: [False, False]})

    held, attempts = climb([60, 80, 100], measure, refine=2)

    assert held == 70
    assert [a.rate for a in attempts] == [60, 80, 80, 70, 75, 75]


def test_a_climb_that_never_breaks_is_not_refined():
    measure, _ = scripted({10: [True], 20: [True]})

    held, attempts = climb([10, 20], measure, refine=3)

    assert held == 20
    assert len(attempts) == 2


def test_a_port_in_use_is_not_free():
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        taken = listener.getsockname()[1]

        assert not port_free(taken)
    assert port_free(free_port())
