"""The Celery app and the one task base every task of ours uses.

A task is queued only once the transaction that asked for it commits (so it never reads rows
that are not there yet), and a broker that cannot be reached never fails the request: what the
request stored stays stored, the failure is logged, and each app's periodic sweep picks the work
up later. Apps queue each other's work by task name, never by importing each other.
"""

import logging
import os

from celery import Celery, Task
from django.db import InterfaceError, OperationalError, transaction

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "paracrowd.settings")

logger = logging.getLogger(__name__)


class ParacrowdTask(Task):
    """Late acknowledgement (a worker that dies mid-task leaves it to another) and retries with
    backoff on database trouble. Every task is written to be idempotent, which both need; a
    task that is not sets ``acks_late=False`` itself."""

    acks_late = True
    autoretry_for = (OperationalError, InterfaceError)
    retry_backoff = True
    max_retries = 8

    @property
    def retry_backoff_max(self) -> int:
        # A retry waits in the worker unacknowledged; past the broker's visibility timeout
        # Redis would hand it to a second worker as well, so no wait may reach it.
        return int(self.app.conf.broker_transport_options["visibility_timeout"] * 0.8)

    def enqueue(self, *args) -> None:
        """Queue this task with ``args`` once the current transaction commits."""
        enqueue(self.name, *args)


app = Celery("paracrowd", task_cls=ParacrowdTask)
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


def enqueue(task_name: str, *args) -> None:
    """Queue the task called ``task_name`` with ``args`` once the current transaction commits
    (at once outside a transaction). Never raises for a broker that is down."""
    enqueue_many((task_name, args))


def enqueue_many(*tasks: tuple[str, tuple]) -> None:
    """Queue each ``(task_name, args)`` once the current transaction commits, as ``enqueue``
    does, sent together: one round trip to the broker for all of them, where each message
    alone costs one (a submission queues two)."""

    def send():
        try:
            with app.producer_or_acquire() as producer, producer.batch():
                for task_name, args in tasks:
                    app.send_task(task_name, args=args, retry=False, producer=producer)
        except Exception:
            logger.warning("Could not queue %r; the sweep will catch up", tasks, exc_info=True)

    transaction.on_commit(send)
