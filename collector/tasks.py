from celery import shared_task

from . import services


@shared_task
def expire_assignments() -> int:
    """Periodic: mark overdue assignments expired (idempotent; nothing is deleted)."""
    return services.assignments_expire()
