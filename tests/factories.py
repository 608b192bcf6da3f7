"""Small factories for tests: each makes one valid object with sensible defaults."""

import itertools

from collector import services
from collector.models import HitType, Segment, Tier, Worker

_sequence = itertools.count(1)


def make_worker(*, tier: int = Tier.ONE, username: str | None = None) -> Worker:
    worker = services.worker_create(
        username=username or f"worker{next(_sequence)}", password="correct horse battery"
    )
    if tier == Tier.TWO:
        services.qualification_grant(worker=worker, tier=Tier.TWO, granted_by=None, reason="test")
    return worker


def make_segment(*, targets: tuple[int, int] | None = None, **fields) -> Segment:
    """A YouTube segment offered in both tiers; ``targets`` overrides (tier 1, tier 2) targets."""
    n = next(_sequence)
    fields = {
        "source": Segment.Source.YOUTUBE,
        "youtube_id": f"vid{n:08d}",
        "start": 1,
        "end": 6,
        **fields,
    }
    segment = services.segment_create(**fields)
    if targets:
        for tier, target in zip(Tier.values, targets, strict=True):
            segment.hits.filter(tier=tier).update(max_assignments=target)
    return segment


def description_hit_type() -> HitType:
    return HitType.for_kind(HitType.Kind.DESCRIPTION)


def make_description(worker: Worker, text: str, *, language: str = "en", tier: int = Tier.ONE):
    """``worker`` describes a segment they have not described yet (a new one is offered)."""
    make_segment()
    assignment = services.assignment_claim(worker=worker, tier=tier)
    description, _ = services.description_submit(
        assignment_id=assignment.pk, worker=worker, text=text, language=language
    )
    return description
