"""Background work on alignments. Every task is idempotent."""

from celery import shared_task

from . import agreement, review


@shared_task
def refresh_agreement() -> bool:
    """Bring the corpus agreement table up to date with the stored alignments (after an
    alignment arrives, and periodically). Concurrent calls leave the work to one refresh."""
    return agreement.agreement_refresh()


@shared_task
def pay_alignments() -> int:
    """Periodic: pay unflagged alignments nobody reviewed once their HIT type's delay has
    passed (flagged ones wait for staff). Nothing is paid twice."""
    return review.alignments_auto_pay()
