"""bin/run (what `make run` ends with) says where the site is only once the site answers, and
how long each of `make run`'s phases took (bin/phase notes them)."""

import contextlib
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
RUNNING = "ParaCrowd is running at"


def stub(path: Path, text: str) -> None:
    path.write_text(text)
    path.chmod(0o755)


def stub_virtualenv(tmp_path: Path) -> Path:
    """A virtualenv whose Django, Celery and gunicorn are stand-ins: the web server starts
    answering /healthz only a while after it is started, as a real first start does."""
    venv = tmp_path / "venv"
    (venv / "bin").mkdir(parents=True)
    site = tmp_path / "site"
    site.mkdir()
    (site / "healthz").write_text("ok")
    stub(
        venv / "bin" / "python",
        "#!/bin/sh\n"
        'case "$1" in manage.py) exit 0;; esac\n'
        'if [ "$1" = -m ] && [ "$2" = paracrowd.queues ]; then echo queue; exit 0; fi\n'
        f'exec {sys.executable} "$@"\n',
    )
    stub(venv / "bin" / "celery", "#!/bin/sh\nexec sleep 600\n")
    stub(
        venv / "bin" / "gunicorn",
        "#!/bin/sh\n"
        f'echo "$@" > {tmp_path / "gunicorn-arguments"}\n'
        "sleep 2\n"
        f'exec {sys.executable} -m http.server --bind 127.0.0.1 --directory {site} "$PORT"\n',
    )
    return venv


def free_port() -> int:
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        return listener.getsockname()[1]


def start(tmp_path, **environment) -> tuple[subprocess.Popen, int]:
    port = free_port()
    process = subprocess.Popen(  # noqa: S603 (our own script)
        [str(ROOT / "bin" / "run")],
        cwd=ROOT,
        env={
            **os.environ,
            "VENV": str(stub_virtualenv(tmp_path)),
            "PORT": str(port),
            **environment,
        },
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        start_new_session=True,
    )
    return process, port


def stop(process: subprocess.Popen) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGTERM)
    process.wait(timeout=30)
    # Whatever of the session is left (a stand-in started as it was being stopped).
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGKILL)


def lines_until(process: subprocess.Popen, start: str) -> list[str]:
    """The lines printed up to the one beginning with ``start``; all of them if none does within
    a minute (the script is stopped then, so that its output ends)."""
    deadline = threading.Timer(60, os.killpg, (process.pid, signal.SIGTERM))
    deadline.start()
    lines = []
    try:
        for line in process.stdout:
            lines.append(line)
            if line.startswith(start):
                break
    finally:
        deadline.cancel()
    return lines


def test_the_address_is_printed_only_once_the_site_answers(tmp_path):
    process, port = start(tmp_path)
    try:
        line = lines_until(process, RUNNING)[-1]
        assert line == f"{RUNNING} http://127.0.0.1:{port}/  (Ctrl-C stops it)\n"
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=10) as answer:
            assert answer.status == 200
    finally:
        stop(process)


def test_the_site_is_imported_once_before_the_web_workers_are_forked(tmp_path):
    process, _ = start(tmp_path)
    try:
        lines_until(process, RUNNING)
    finally:
        stop(process)

    assert "--preload" in (tmp_path / "gunicorn-arguments").read_text().split()


def test_the_address_comes_with_how_long_each_phase_took(tmp_path):
    phases = tmp_path / "run-phases"
    # As `make run` leaves it: the database phase's line comes after its steps'.
    phases.write_text("install 24.125\nmigrate 15.25\ndemo 6.75\ndatabase 22.5\n")
    process, _ = start(tmp_path, RUN_PHASES=str(phases))
    try:
        lines = lines_until(process, "Ready after")
    finally:
        stop(process)

    assert any(line.startswith(RUNNING) for line in lines)
    assert re.fullmatch(
        r"Ready after \d+\.\d s: install 24\.1 s, database 22\.5 s "
        r"\(migrate 15\.2 s, demo 6\.8 s\), start \d+\.\d s\.\n",
        lines[-1],
    )


def test_a_phase_is_noted_only_when_it_succeeds(tmp_path):
    phases = tmp_path / "run-phases"
    environment = {**os.environ, "RUN_PHASES": str(phases)}
    phase = str(ROOT / "bin" / "phase")

    subprocess.run([phase, "install", "true"], env=environment, check=True)  # noqa: S603, S607
    failed = subprocess.run([phase, "database", "sh", "-c", "exit 3"], env=environment)  # noqa: S603

    assert failed.returncode == 3
    [line] = phases.read_text().splitlines()
    assert re.fullmatch(r"install \d+\.\d{6}", line)


def test_the_web_application_is_imported_with_its_urls():
    # In a process of its own: this one imported the URLs long ago.
    imported = subprocess.run(  # noqa: S603 (our own module)
        [
            sys.executable,
            "-c",
            "import sys, paracrowd.wsgi; from django.conf import settings; "
            "print(settings.ROOT_URLCONF in sys.modules)",
        ],
        cwd=ROOT,
        env={**os.environ, "DEBUG": "True"},
        capture_output=True,
        text=True,
        check=True,
    )
    assert imported.stdout == "True\n"
