"""Background work on what is collected. Every task is idempotent."""

from celery import shared_task

from . import services


@shared_task
def auto_accept_descriptions() -> int:
    """Periodic: accept, and pay, descriptions left unreviewed past their HIT type's delay."""
    return services.descriptions_auto_accept()


@shared_task
def auto_accept_paraphrases() -> int:
    """Periodic: accept, and pay, direct paraphrases left unreviewed past their HIT type's
    delay."""
    return services.paraphrases_auto_accept()
