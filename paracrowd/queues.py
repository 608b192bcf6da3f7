"""The site's Celery queues, one per kind of work, under a prefix of the site's own.

Settings declare the kinds and which tasks go to each (``CELERY_QUEUE_KINDS``,
``CELERY_QUEUE_ROUTES``); this module turns them into Celery's own settings for one prefix, so
the settings, the tests (a prefix per run) and the workers' ``-Q`` lists are built from the
same data. Nothing here imports Django: settings.py uses it while it is being read.

    python -m paracrowd.queues platform         # the platform queue's name, for `worker -Q`
    python -m paracrowd.queues default scoring  # two queues, comma-separated
    python -m paracrowd.queues                  # every queue of the site
"""

import os
import re
import sys

from django.core.exceptions import ImproperlyConfigured


def queue_name(prefix: str, kind: str) -> str:
    """The name in the broker of the queue of ``kind`` under ``prefix``."""
    return f"{prefix}.{kind}"


def queue_prefix(prefix: str) -> str:
    """``prefix`` if it can start a queue's name; else ImproperlyConfigured."""
    if not re.fullmatch(r"[A-Za-z0-9_.:-]+", prefix):
        raise ImproperlyConfigured(
            f"CELERY_QUEUE_PREFIX may hold letters, digits and _ . : - only, not {prefix!r}"
        )
    return prefix


def celery_queue_settings(*, prefix: str, kinds: tuple[str, ...], routes: dict) -> dict:
    """Celery's ``task_default_queue``, ``task_queues`` and ``task_routes`` for ``prefix``:
    ``routes`` maps task-name patterns (exact names win over patterns) to kinds, and a task
    no pattern names goes to the first kind."""
    unknown = sorted({kind for kind in routes.values() if kind not in kinds})
    if unknown:
        raise ValueError(f"CELERY_QUEUE_ROUTES names kinds with no queue: {', '.join(unknown)}")
    return {
        "task_default_queue": queue_name(prefix, kinds[0]),
        # name → options: Celery declares each with a routing key of its own name.
        "task_queues": {queue_name(prefix, kind): {} for kind in kinds},
        "task_routes": {
            pattern: {"queue": queue_name(prefix, kind)} for pattern, kind in routes.items()
        },
    }


def queue_names(kinds: list[str]) -> str:
    """The comma-separated names of the site's queues of ``kinds`` (all when empty), as the
    settings name them; raises ValueError for a kind the settings do not declare."""
    from django.conf import settings

    declared = settings.CELERY_QUEUE_KINDS
    unknown = [kind for kind in kinds if kind not in declared]
    if unknown:
        raise ValueError(
            f"No Celery queue of kind {', '.join(unknown)}; the kinds are {', '.join(declared)}."
        )
    return ",".join(queue_name(settings.CELERY_QUEUE_PREFIX, kind) for kind in kinds or declared)


if __name__ == "__main__":
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "paracrowd.settings")
    try:
        print(queue_names(sys.argv[1:]))
    except ValueError as error:
        sys.exit(str(error))
