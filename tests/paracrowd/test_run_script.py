"""bin/run (what `make run` ends with) says where the site is only once the site answers."""

import contextlib
import os
import signal
import socket
import subprocess
import sys
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
        "sleep 2\n"
        f'exec {sys.executable} -m http.server --bind 127.0.0.1 --directory {site} "$PORT"\n',
    )
    return venv


def free_port() -> int:
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        return listener.getsockname()[1]


def test_the_address_is_printed_only_once_the_site_answers(tmp_path):
    port = free_port()
    environment = {**os.environ, "VENV": str(stub_virtualenv(tmp_path)), "PORT": str(port)}
    process = subprocess.Popen(  # noqa: S603 (our own script)
        [str(ROOT / "bin" / "run")],
        cwd=ROOT,
        env=environment,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        start_new_session=True,
    )
    try:
        for line in process.stdout:
            if line.startswith(RUNNING):
                break
        assert line == f"{RUNNING} http://127.0.0.1:{port}/  (Ctrl-C stops it)\n"
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=10) as answer:
            assert answer.status == 200
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        process.wait(timeout=30)
        # Whatever of the session is left (a stand-in started as it was being stopped).
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
