"""Storing what judges submit, and staff's review of it (accept and pay, or reject).

A rating goes through the shared HIT machinery: ``crowd.assignment_submit`` stores it once per
assignment, and a HIT never takes more ratings than the batch's judges. The database also
keeps a worker from rating one item twice (``rating_once_per_worker``) and every value within
1–4 (``rating_values_1_to_4``).
"""

from crowd import services as crowd
from crowd.models import HitType, Worker
from crowd.services import WorkRefused

from ..models import Rating, RatingItem

SCALE = range(1, 5)
LABELS = {
    "semantic": "meaning",
    "dissimilarity": "difference in wording",
    "overall": "overall quality",
}


def rating_values(values: dict) -> dict[str, int]:
    """The three ratings as whole numbers 1–4, from form or API values; ``WorkRefused``
    naming the first that is missing or out of range (nothing is stored)."""
    parsed = {}
    for dimension in Rating.DIMENSIONS:
        raw = values.get(dimension)
        try:
            value = int(str(raw).strip())
        except ValueError:
            value = None
        if value not in SCALE:
            if raw in (None, ""):
                raise WorkRefused(f"Choose a rating from 1 to 4 for {LABELS[dimension]}.")
            raise WorkRefused(
                f"The rating for {LABELS[dimension]} must be a whole number from 1 to 4."
            )
        parsed[dimension] = value
    return parsed


def rating_submit(*, assignment_id: int, worker: Worker, values: dict) -> tuple[Rating, bool]:
    """Store ``worker``'s three ratings for their assignment, exactly once: ``(rating,
    created)``; a repeat returns the stored rating unchanged. Bad values are refused
    (``WorkRefused``) before anything is stored."""
    parsed = rating_values(values)

    def record(assignment, hit, now):
        item = RatingItem.objects.get(item_id=hit.item_id)
        return Rating.objects.create(
            item=item, assignment=assignment, worker=worker, created_at=now, **parsed
        )

    return crowd.assignment_submit(
        assignment_id=assignment_id, worker=worker, record=record, submission="rating"
    )


def _waiting():
    """Ratings waiting for review."""
    return Rating.objects.pending()


def rating_review_queue(*, batch=None, size: int = 50) -> list[Rating]:
    """The oldest ``size`` ratings waiting for review (of ``batch``, when given), those that
    misrate a copy (``Rating.misrates_a_copy``) first."""
    waiting = _waiting()
    if batch is not None:
        waiting = waiting.filter(item__batch=batch)
    oldest = waiting.select_related("item", "worker").order_by("created_at", "pk")[:size]
    return sorted(oldest, key=lambda rating: not rating.misrates_a_copy)


def ratings_review(*, rating_ids: list[int], accept: bool, reviewer, reason: str) -> int:
    """Accept (pay through the ledger) or reject ratings still waiting through the one
    review (``crowd.services.review``): a rejection needs a reason (the worker's platform
    receives it) and reopens the HIT's slot for another judge. Ratings already decided, and
    ratings a crowd platform has not confirmed yet (for acceptance), are left alone. Returns
    how many were decided now."""
    items = Rating.objects.filter(pk__in=rating_ids)
    decide = crowd.work_accept if accept else crowd.work_reject
    return len(decide(items=items, reviewer=reviewer, reason=reason).changed)


def ratings_auto_pay(*, now=None) -> int:
    """Accept and pay the ratings nobody reviewed once the rating HIT type's
    ``auto_accept_after`` has passed; ratings that misrate a copy wait for staff. Nothing is
    paid twice. Returns how many were paid."""
    held = _waiting().misrating_copies().values_list("pk", flat=True)
    return crowd.work_auto_accept(Rating, kind=HitType.Kind.RATING, now=now, hold=list(held))
