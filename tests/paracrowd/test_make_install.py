"""The virtualenv of ``make run`` and ``make test`` is installed again only when a requirements
file's contents change: a second run, or a file touched but unchanged, does no pip work. Run
with the checkout's own Makefile and requirements files, and a Python whose ``pip`` notes what
it was asked to do instead of installing."""

import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
FILES = ["Makefile", "requirements.txt", "requirements-dev.txt", "metrics/pyproject.toml"]


@pytest.fixture
def checkout(tmp_path) -> Path:
    root = tmp_path / "checkout"
    for name in FILES:
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(ROOT / name, root / name)
    return root


@pytest.fixture
def python(tmp_path) -> Path:
    """``python -m venv DIR`` makes DIR/bin/pip, which adds its arguments to pip.log."""
    log = tmp_path / "pip.log"
    log.touch()
    script = tmp_path / "python"
    script.write_text(
        "#!/bin/sh\n"
        '[ "$1 $2" = "-m venv" ] || exit 2\n'
        'mkdir -p "$3/bin"\n'
        f'printf \'#!/bin/sh\\necho "$*" >> {log}\\n\' > "$3/bin/pip"\n'
        'chmod +x "$3/bin/pip"\n'
    )
    script.chmod(0o755)
    return script


def pip_calls(python: Path) -> list[str]:
    return (python.parent / "pip.log").read_text().splitlines()


def make(checkout: Path, python: Path, target: str) -> None:
    environment = {key: value for key, value in os.environ.items() if not key.startswith("MAKE")}
    subprocess.run(  # noqa: S603 (make, on our own Makefile)
        ["make", "--no-print-directory", target, f"PYTHON={python}"],  # noqa: S607
        cwd=checkout,
        env=environment,
        check=True,
        capture_output=True,
    )


def test_a_second_install_does_no_pip_work(checkout, python):
    make(checkout, python, "install-run")
    assert any("-r requirements.txt" in call for call in pip_calls(python))
    calls = pip_calls(python)

    make(checkout, python, "install-run")

    assert pip_calls(python) == calls


def test_a_requirements_file_touched_but_unchanged_installs_nothing(checkout, python):
    make(checkout, python, "install")
    calls = pip_calls(python)
    for name in FILES[1:]:
        os.utime(checkout / name)  # newer than every stamp

    make(checkout, python, "install")

    assert pip_calls(python) == calls


def test_a_changed_requirements_file_installs_again(checkout, python):
    make(checkout, python, "install")
    calls = pip_calls(python)
    with (checkout / "requirements.txt").open("a") as requirements:
        requirements.write("# a new pin would go here\n")

    make(checkout, python, "install")

    new = pip_calls(python)[len(calls) :]
    assert "--quiet --disable-pip-version-check install -r requirements.txt" in new
    assert "--quiet --disable-pip-version-check install -r requirements-dev.txt" in new
    # One stamp each: the old ones are gone.
    assert len(list((checkout / ".venv").glob(".installed-run-*"))) == 1
    assert len(list((checkout / ".venv").glob(".installed-dev-*"))) == 1


def test_a_changed_dev_requirements_file_installs_the_test_tools_only(checkout, python):
    make(checkout, python, "install")
    calls = pip_calls(python)
    with (checkout / "requirements-dev.txt").open("a") as requirements:
        requirements.write("# a new test tool would go here\n")

    make(checkout, python, "install")

    assert pip_calls(python)[len(calls) :] == [
        "--quiet --disable-pip-version-check install -r requirements-dev.txt"
    ]
