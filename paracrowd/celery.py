import logging
import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "paracrowd.settings")

app = Celery("paracrowd")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
logger = logging.getLogger(__name__)


def enqueue_on_commit(task, *args) -> None:
    """Queue ``task(*args)`` once the current transaction commits.

    What the request stored stays stored even when the broker is unreachable: the failure is
    logged and the periodic sweep picks the work up later.
    """
    from django.db import transaction

    def send():
        try:
            task.apply_async(args=args, retry=False)
        except Exception:
            logger.warning(
                "Could not queue %s%r; the sweep will catch up", task.name, args, exc_info=True
            )

    transaction.on_commit(send)
