"""Every Celery task the code queues by name (enqueue, enqueue_many, send_task, the beat schedule,
constants such as SCORE_SEGMENTS) is a task the Celery app has registered: a misspelt or renamed
task would otherwise only show as a message no worker ever takes."""

import ast
import re
from pathlib import Path

from paracrowd.celery import app

ROOT = Path(__file__).resolve().parents[2]
TASK_NAME = re.compile(r"[a-z_]+\.tasks\.[a-z_][a-z0-9_]*")
# The tests send made-up names on purpose.
NOT_SCANNED = {"tests"}


def task_names_in(source: str, path: str) -> list[tuple[str, int, str]]:
    """(path, line, name) of every string literal in ``source`` shaped like a task name."""
    return [
        (path, node.lineno, node.value)
        for node in ast.walk(ast.parse(source, path))
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and TASK_NAME.fullmatch(node.value)
    ]


def project_sources():
    """The project's Python files: its packages, bench/ and faults/, not a virtualenv or cache
    inside the checkout."""
    for folder in sorted(ROOT.iterdir()):
        hidden = folder.name.startswith(".") or (folder / "pyvenv.cfg").exists()
        if folder.is_dir() and not hidden and folder.name not in NOT_SCANNED:
            yield from sorted(folder.rglob("*.py"))


def queued_task_names() -> list[tuple[str, int, str]]:
    found = []
    for path in project_sources():
        found += task_names_in(path.read_text(), str(path.relative_to(ROOT)))
    return found


def registered_task_names() -> set[str]:
    app.loader.import_default_modules()  # every app's tasks module, as a worker loads them
    return set(app.tasks)


def test_every_task_queued_by_name_is_registered():
    found = queued_task_names()
    registered = registered_task_names()

    unregistered = [
        f"{path}:{line}: {name}" for path, line, name in found if name not in registered
    ]
    assert not unregistered, "not a registered Celery task:\n" + "\n".join(unregistered)


def test_the_scan_finds_the_names_queued_in_each_way():
    from collector.services.descriptions import SCORE_SEGMENTS
    from crowd.services.outbox import SEND_TASK

    found = queued_task_names()
    names = {name for _, _, name in found}
    assert len(found) >= 20 and len(names) >= 15
    assert {SCORE_SEGMENTS, SEND_TASK} <= names  # constants
    assert "research.tasks.run_export_job" in names  # enqueue("…", …)
    assert "scoring.tasks.sweep_unscored" in names  # app.send_task("…") and the beat schedule
    assert ("paracrowd/settings.py", "crowd.tasks.expire_assignments") in {
        (path, name) for path, _, name in found
    }


def test_a_name_no_task_has_is_reported_with_its_file_and_line():
    source = 'X = 1\nenqueue_many(("scoring.tasks.score_segmnets", (1,)))\n'

    assert task_names_in(source, "collector/example.py") == [
        ("collector/example.py", 2, "scoring.tasks.score_segmnets")
    ]
    assert "scoring.tasks.score_segmnets" not in registered_task_names()
