"""Background work on alignments. Every task is idempotent."""

from celery import shared_task

from . import agreement_store, review


@shared_task
def refresh_agreement(pair_id: int | None = None) -> bool:
    """Bring the stored agreement table up to date: with one pair's alignments (queued when
    an alignment arrives), or with every pair that changed (periodically). Recomputes the
    pair's share rather than adding to it, so a retry counts nothing twice."""
    if pair_id is None:
        return agreement_store.agreement_refresh()
    return agreement_store.agreement_pair_update(pair_id=pair_id)


@shared_task
def recompute_agreement() -> bool:
    """Daily and on demand: recompute the whole table, refitting the annotators' edit models
    behind π̂₀. Concurrent calls leave the work to one."""
    return agreement_store.agreement_recompute()


@shared_task
def pay_alignments() -> int:
    """Periodic: pay unflagged alignments nobody reviewed once their HIT type's delay has
    passed (flagged ones wait for staff). Nothing is paid twice."""
    return review.alignments_auto_pay()
