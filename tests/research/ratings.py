"""Rating batches for tests: made through the service, with the judges a test asks for."""

from crowd import services as crowd
from crowd.models import HitType, Tier
from research.ratings.batches import ItemDraft, rating_batch_create
from research.ratings.services import rating_submit
from tests.factories import make_researcher

PAIRS = [
    ("A man plays a guitar.", "Someone strums a guitar."),
    ("A woman slices an onion.", "An onion is being cut by a lady."),
    ("A dog catches a ball.", "A dog catches a ball."),
]


def make_batch(*, pairs=PAIRS, items=None, judges=2, name="pilot", system="sys-a", **fields):
    return rating_batch_create(
        name=name,
        origin=fields.pop("origin", "upload"),
        language=fields.pop("language", "en"),
        items=items or [ItemDraft(source, candidate) for source, candidate in pairs],
        created_by=fields.pop("created_by", None) or make_researcher(),
        system=system,
        judges=judges,
        **fields,
    )


def rate_next(worker, values=(4, 3, 3)):
    """``worker`` claims the next rating task and rates it; the rating (None: nothing left)."""
    assignment = crowd.assignment_claim(worker=worker, tier=Tier.ONE, kind=HitType.Kind.RATING)
    if assignment is None:
        return None
    rating, _ = rating_submit(
        assignment_id=assignment.pk,
        worker=worker,
        values=dict(zip(("semantic", "dissimilarity", "overall"), values, strict=True)),
    )
    return rating
