"""gunicorn as gunicorn.conf.py sets it up, running: the access log holds no query string (a
Prolific arrival's carries the participant's and the session's ids) and no response says which
server sent it."""

import http.client
import os
import re
import signal
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
ARRIVAL = "/external/describe/?PROLIFIC_PID=pid-secret&STUDY_ID=study-secret&SESSION_ID=sid-secret"
# What our own next page sends as its referrer after an arrival.
REFERRER = "https://paracrowd.example.org/external/describe/?SESSION_ID=referrer-secret#top"


def hello(environ, start_response):
    """The application gunicorn serves here: the headers in question are gunicorn's own, and
    the log's are written whatever the application answers."""
    start_response("200 OK", [("Content-Type", "text/plain")])
    return [b"hello"]


@contextmanager
def web_server(tmp_path, *options, environment=None):
    """gunicorn started as bin/run starts it, in the project's root (so that it reads
    gunicorn.conf.py), on a port the system chooses; yields (port, access log path). Its
    control socket is the test's own, never the checkout's (a running `make run` keeps it)."""
    access_log, error_log = tmp_path / "access.log", tmp_path / "error.log"
    command = [
        str(Path(sys.executable).parent / "gunicorn"),
        "tests.paracrowd.test_web_server:hello",
    ]
    command += ["--bind", "127.0.0.1:0", "--access-logfile", str(access_log), *options]
    environment = {
        "PATH": os.environ["PATH"],
        "WEB_WORKERS": "1",
        "WEB_THREADS": "1",
        "WEB_CONTROL_SOCKET": str(tmp_path / "gunicorn.ctl"),
        **(environment or {}),
    }
    with open(error_log, "wb") as errors:
        process = subprocess.Popen(  # noqa: S603 (our own gunicorn, arguments from this file)
            command, cwd=ROOT, env=environment, stderr=errors, start_new_session=True
        )
    try:
        yield _listening_port(process, error_log), access_log
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()


def _listening_port(process, error_log: Path, seconds: float = 30.0) -> int:
    # gunicorn says where it listens once its worker is about to start; the worker may still be
    # importing the application, which the first request waits for.
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        found = re.search(r"Listening at: http://127\.0\.0\.1:(\d+)", error_log.read_text())
        if found:
            return int(found[1])
        if process.poll() is not None:
            break
        time.sleep(0.05)
    raise AssertionError(f"gunicorn did not start:\n{error_log.read_text()}")


def get(port: int, path: str, headers: dict) -> http.client.HTTPResponse:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        connection.request("GET", path, headers=headers)
        response = connection.getresponse()
        response.read()
        return response
    finally:
        connection.close()


def access_lines(access_log: Path) -> list[str]:
    """The access log's lines, once gunicorn has written the request's."""
    deadline = time.monotonic() + 30
    while not access_log.exists() or not access_log.read_text().strip():
        assert time.monotonic() < deadline, "no access log line"
        time.sleep(0.05)
    return access_log.read_text().splitlines()


def test_the_access_log_keeps_the_path_and_leaves_out_every_query(tmp_path):
    with web_server(tmp_path) as (port, access_log):
        response = get(port, ARRIVAL, {"Referer": REFERRER, "User-Agent": "test-browser"})
        [line] = access_lines(access_log)

    assert response.status == 200
    assert '"GET /external/describe/ HTTP/1.1" 200 5' in line
    assert '"https://paracrowd.example.org/external/describe/" "test-browser"' in line
    assert "secret" not in line


def test_no_format_an_operator_sets_brings_the_query_back(tmp_path):
    every_place_of_the_query = (
        "%(r)s|%(q)s|%(f)s|%({query_string}e)s|%({raw_uri}e)s|%({referer}i)s|%(U)s"
    )
    with web_server(tmp_path, "--access-logformat", every_place_of_the_query) as (port, log):
        get(port, ARRIVAL, {"Referer": REFERRER})
        [line] = access_lines(log)

    assert "secret" not in line
    assert "/external/describe/" in line


@pytest.mark.parametrize("path", ["/", ARRIVAL])
def test_no_response_says_which_server_sent_it(tmp_path, path):
    with web_server(tmp_path) as (port, _):
        response = get(port, path, {})

    assert response.status == 200
    assert response.getheader("Server") is None
    assert response.getheader("Date")  # gunicorn's other headers are still written


def test_the_control_socket_is_the_one_the_site_names_not_one_shared_by_every_gunicorn(tmp_path):
    home, socket = tmp_path / "home", tmp_path / "site.ctl"
    home.mkdir()
    environment = {"HOME": str(home), "WEB_CONTROL_SOCKET": str(socket)}
    with web_server(tmp_path, environment=environment):
        deadline = time.monotonic() + 30
        while not socket.is_socket():
            assert time.monotonic() < deadline, "no control socket where the site named it"
            time.sleep(0.05)
    assert not (home / ".gunicorn").exists()


def test_without_a_name_the_control_socket_is_under_the_checkouts_var_run():
    read = "import runpy; print(runpy.run_path('gunicorn.conf.py')['control_socket'])"
    result = subprocess.run(  # noqa: S603 (our own script, run by our own interpreter)
        [sys.executable, "-c", read],
        cwd=ROOT,
        env={"PATH": os.environ["PATH"], "HOME": "/nonexistent"},
        capture_output=True,
        text=True,
        check=True,
    )
    assert result.stdout.strip() == str(ROOT / "var" / "run" / "gunicorn.ctl")
