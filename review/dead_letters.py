"""Tasks that keep failing, kept where staff can see them (the admin's *Failed tasks*).

Every task of ours retries what is worth retrying (paracrowd.celery); what still fails is
recorded here by the worker, from Celery's own signals, instead of living only in a log.
"""

import hashlib
import json

from celery import signals
from django.db import transaction
from django.db.models import F
from django.utils import timezone

from paracrowd.celery import enqueue

from .models import FailedTask


def failed_task_record(*, task: str, arguments: list, error: str) -> FailedTask:
    """Record one final failure of ``task`` with ``arguments``; the same work failing again
    counts on the same row."""
    key = _key(task, arguments)
    now = timezone.now()
    with transaction.atomic():
        record, created = FailedTask.objects.select_for_update().get_or_create(
            key=key, defaults={"task": task, "arguments": arguments, "error": error[:5000]}
        )
        if not created:
            FailedTask.objects.filter(pk=record.pk).update(
                failures=F("failures") + 1, error=error[:5000], last_failed_at=now
            )
    return record


def failed_task_clear(*, task: str, arguments: list) -> int:
    """The work succeeded after all: it is no longer a dead letter."""
    deleted, _ = FailedTask.objects.filter(key=_key(task, arguments)).delete()
    return deleted


def failed_tasks_retry(*, failed_task_ids) -> int:
    """Queue the failed tasks again, with their arguments (each stays listed until it
    succeeds). Returns how many were queued."""
    records = list(FailedTask.objects.filter(pk__in=list(failed_task_ids)))
    for record in records:
        enqueue(record.task, *record.arguments)
    return len(records)


def _key(task: str, arguments: list) -> str:
    return hashlib.sha256(json.dumps([task, arguments], sort_keys=True).encode()).hexdigest()


def _arguments(args) -> list:
    # Our tasks take ids and lists of ids; anything else is kept as its text.
    try:
        return json.loads(json.dumps(list(args or ())))
    except (TypeError, ValueError):
        return [repr(argument) for argument in args]


def _on_failure(sender=None, args=None, exception=None, **_):
    failed_task_record(
        task=sender.name,
        arguments=_arguments(args),
        error=f"{type(exception).__name__}: {exception}",
    )


def _on_success(sender=None, **_):
    request = sender.request
    # Cheap when nothing failed: one indexed DELETE that usually finds no row.
    failed_task_clear(task=sender.name, arguments=_arguments(request.args))


def connect() -> None:
    """Called once per process (ReviewConfig.ready); the worker records its own failures."""
    signals.task_failure.connect(_on_failure, weak=False, dispatch_uid="review-dead-letters")
    signals.task_success.connect(_on_success, weak=False, dispatch_uid="review-dead-letters-ok")
