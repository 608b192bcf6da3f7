"""Background work on alignments. Every task is idempotent."""

from celery import shared_task

from . import agreement_store, prealigner, review


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


@shared_task
def retrain_aligner() -> int | None:
    """Queued when staff accept alignments, and hourly: train the supervised pre-aligner again
    once enough accepted alignments are new (``prealigner.retraining_due``); the new model
    pre-aligns only if it does as well on held-out gold (``prealigner.judgement``). Returns
    the new model's id, or None when nothing was due or another worker is training."""
    model = prealigner.supervised_aligner_train()
    return model.pk if model else None
