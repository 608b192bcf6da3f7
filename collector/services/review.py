"""The review descriptions and direct paraphrases share, as one admin action over many rows:
accepting pending work (or overturning a rejection), or rejecting it. The decisions and their
rules are ``crowd.services.review``'s; this only says which decision each row gets."""

from collections.abc import Callable

from crowd.models import ReviewStatus
from crowd.services import ReviewOutcome, WorkRefused, work_accept, work_overturn, work_reject


def submissions_review(
    model,
    *,
    ids,
    status: str,
    reviewed_by,
    reason: str,
    after: Callable[[list, str, str], None] | None = None,
) -> ReviewOutcome:
    """Accept or reject rows of ``model`` with a reason the worker is shown. Accepting
    accepts pending rows and overturns rejected ones (which needs a reason); rejecting
    rejects pending rows. Accepted work is final. ``after(decided, status, previous)`` runs
    in the decision's transaction for what else the kind of work needs."""
    if status not in (ReviewStatus.ACCEPTED, ReviewStatus.REJECTED):
        raise WorkRefused("A review accepts or rejects.")
    items = model.objects.filter(pk__in=list(ids))
    decision = {"reviewer": reviewed_by, "reason": reason, "after": after}
    if status == ReviewStatus.REJECTED:
        return work_reject(items=items, **decision)
    outcome = ReviewOutcome()
    if items.rejected().exists():
        overturned = work_overturn(items=items.rejected(), **decision)
        outcome.changed += overturned.changed
        outcome.unverified += overturned.unverified
    accepted = work_accept(items=items.exclude(status=ReviewStatus.REJECTED), **decision)
    outcome.changed += accepted.changed
    outcome.unchanged += accepted.unchanged
    outcome.unverified += accepted.unverified
    return outcome
