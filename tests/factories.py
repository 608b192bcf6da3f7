"""Small factories for tests: each makes one valid object with sensible defaults."""

import itertools
from datetime import timedelta
from decimal import Decimal

from django.contrib.auth import get_user_model
from django.utils import timezone

from collector import services
from collector.models import Description, Segment, SegmentProposal
from crowd import services as crowd
from crowd.models import Campaign, CampaignHit, Hit, HitType, Tier, Worker
from crowd.platforms.mturk import client as mturk

_sequence = itertools.count(1)


def make_worker(*, tier: int = Tier.ONE, username: str | None = None) -> Worker:
    worker = crowd.worker_create(
        username=username or f"worker{next(_sequence)}", password="correct horse battery"
    )
    if tier == Tier.TWO:
        crowd.qualification_grant(worker=worker, tier=Tier.TWO, granted_by=None, reason="test")
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
    return HitType.objects.for_kind(HitType.Kind.DESCRIPTION)


def make_staff(*, username: str | None = None):
    """An admin account (staff, not a worker) with the tests' password."""
    return get_user_model().objects.create_user(
        username=username or f"staff{next(_sequence)}",
        password="correct horse battery",
        is_staff=True,
    )


def make_proposal(
    *, worker: Worker | None = None, tier: int = Tier.ONE, **fields
) -> SegmentProposal:
    """A pending proposal of a fresh YouTube video, submitted through a video-collection HIT."""
    worker = worker or make_worker(tier=tier)
    assignment = crowd.assignment_claim(
        worker=worker, tier=tier, kind=HitType.Kind.VIDEO_COLLECTION
    )
    fields = {
        "youtube_id": f"prop{next(_sequence):07d}",
        "start": Decimal(3),
        "end": Decimal(9),
        "event": "A dog catches a ball",
        **fields,
    }
    proposal, _ = services.proposal_submit(assignment_id=assignment.pk, worker=worker, **fields)
    return proposal


def make_description(
    segment: Segment,
    text: str,
    *,
    worker: Worker | None = None,
    tier: int | None = Tier.ONE,
    language: str = "en",
    status: str = Description.Status.ACCEPTED,
    **fields,
) -> Description:
    """A stored description, as an import or a reviewed submission leaves it (no HIT needed)."""
    return Description.objects.create(
        segment=segment,
        worker=worker,
        tier=tier,
        text=text,
        language=language,
        status=status,
        **fields,
    )


def make_researcher(username: str | None = None):
    """An account in the "researchers" group (not a worker, not staff)."""
    from research.services import researcher_create

    return researcher_create(
        username=username or f"researcher{next(_sequence)}", password="correct horse battery"
    )


def make_submitted_description(
    worker: Worker, text: str, *, language: str = "en", tier: int = Tier.ONE, typing=None
):
    """``worker`` describes a segment they have not described yet (a new one is offered);
    ``typing``: the page's record of how it was typed (a ``collector.provenance.TypingRecord``)."""
    make_segment()
    assignment = crowd.assignment_claim(worker=worker, tier=tier)
    description, _ = services.description_submit(
        assignment_id=assignment.pk, worker=worker, text=text, language=language, typing=typing
    )
    return description


def make_paraphrase_source(text: str = "A man is slicing a tomato.", *, language: str = "en"):
    """A sentence uploaded for direct paraphrasing, offered in both tiers."""
    choice = services.paraphrase_sources_from_file(
        content=text.encode(), name="sentences.txt", language=language
    )
    return choice.sources[0]


def make_paraphrase(worker: Worker, source, text: str, *, tier: int = Tier.ONE, typing=None):
    """``worker`` claims the paraphrasing task of ``source`` (the only one open) and submits,
    typed as ``typing`` says (a ``collector.provenance.TypingRecord``; None: no record)."""
    assignment = crowd.assignment_claim(worker=worker, tier=tier, kind=HitType.Kind.PARAPHRASE)
    assert assignment.hit.item_id == source.item_id
    paraphrase, _ = services.paraphrase_submit(
        assignment_id=assignment.pk,
        worker=worker,
        text=text,
        language=source.language,
        typing=typing,
    )
    return paraphrase


def make_mturk_campaign(
    *,
    size: int = 2,
    tier: int = Tier.ONE,
    kind: str = HitType.Kind.DESCRIPTION,
    targets: tuple[int, int] = (3, 3),
    lifetime: timedelta = timedelta(days=7),
    published_at=None,
    created_by=None,
) -> Campaign:
    """A Mechanical Turk campaign as publishing left it before the platform closed (nothing
    can publish one now): HIT type "HT1", and one platform HIT per local HIT, "HIT0", "HIT1",
    …, each wanting what its HIT still needs, over ``size`` fresh segments; a video-collection
    campaign is one platform HIT, "HITV", with ``size`` places. Published now by default."""
    hit_type = HitType.objects.for_kind(kind)
    if kind == HitType.Kind.VIDEO_COLLECTION:
        postings = [CampaignHit(hit=None, max_assignments=size, external_hit_id="HITV")]
    else:
        segments = [make_segment(targets=targets) for _ in range(size)]
        hits = Hit.objects.filter(
            hit_type=hit_type, tier=tier, item_id__in=[segment.item_id for segment in segments]
        ).order_by("pk")
        postings = [
            CampaignHit(hit=hit, max_assignments=hit.max_assignments, external_hit_id=f"HIT{n}")
            for n, hit in enumerate(hits)
        ]
    reward = hit_type.pay_cents(tier)
    published_at = published_at or timezone.now()
    campaign = Campaign.objects.create(
        name="Spring batch",
        platform=Campaign.Platform.MTURK,
        sandbox=True,
        hit_type=hit_type,
        tier=tier,
        reward_cents=reward,
        fee_cents=mturk.fee_cents(reward, max_assignments=max(p.max_assignments for p in postings)),
        lifetime=lifetime,
        external_id="HT1",
        created_by=created_by,
        state=Campaign.State.PUBLISHED,
        published_at=published_at,
        expires_at=published_at + lifetime,
    )
    for posting in postings:
        posting.campaign, posting.created_at = campaign, published_at
    CampaignHit.objects.bulk_create(postings)
    return campaign
