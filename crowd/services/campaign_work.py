"""The work a new campaign offers: HITs of one kind and tier that still want submissions,
that no other live campaign offers, and that are real work. Gold items are not: each is
answered once by every worker who meets it (its HITs' targets are a formality), and a
campaign's sessions are handed them anyway, so they never count as work wanted.
"""

from django.db.models import Exists, F, OuterRef, Sum

from paracrowd.wording import counted

from ..models import Campaign, CampaignHit, GoldItem, Hit, HitType
from .errors import WorkRefused

LIVE = (Campaign.State.DRAFT, Campaign.State.PUBLISHING, Campaign.State.PUBLISHED)


def campaign_postings(*, hit_type: HitType, tier: int, size: int) -> list[CampaignHit]:
    """The postings of a campaign of ``size`` HITs (the fewest submissions first), each
    wanting the submissions its HIT still needs, or ``WorkRefused`` when none is left. A
    video-collection campaign wants ``size`` tasks, each opening a HIT of its own. Call it
    inside a transaction: the HITs are locked (skipping those another creation holds)."""
    if hit_type.kind == HitType.Kind.VIDEO_COLLECTION:
        return [CampaignHit(hit=None, max_assignments=size)]
    taken = CampaignHit.objects.filter(campaign__state__in=LIVE, hit__isnull=False)
    hits = list(
        _real_work(hit_type=hit_type, tier=tier)
        .exclude(pk__in=taken.values("hit_id"))
        .order_by("submitted_count", "pk")
        .select_for_update(skip_locked=True, of=("self",))[:size]
    )
    if not hits:
        raise WorkRefused(
            f"No {hit_type.get_kind_display().lower()} HITs in tier {tier} want work "
            "outside other campaigns. Open HITs first (import_corpus --open-hits)."
        )
    return [
        CampaignHit(hit=hit, max_assignments=hit.max_assignments - hit.submitted_count)
        for hit in hits
    ]


def campaign_shortfall(*, campaign: Campaign, asked: int) -> str:
    """Why ``campaign`` offers fewer HITs than the ``asked`` its creator gave ("" when it
    offers them all): only so many of its kind and tier wanted work outside other live
    campaigns, and the campaign took those rather than refuse."""
    if campaign.hit_type.kind == HitType.Kind.VIDEO_COLLECTION:
        return ""
    made = campaign.postings.count()
    if made >= asked:
        return ""
    kind = campaign.hit_type.get_kind_display().lower()
    wants = "HIT wants" if made == 1 else "HITs want"
    return (
        # More were asked for than made, and a campaign is made of one HIT or more: "were".
        f"{counted(asked, 'HIT')} were asked for, but only {made} {kind} {wants} work in tier "
        f"{campaign.tier} outside other live campaigns, so the campaign offers {made}."
    )


def campaign_places_check(*, hit_type: HitType, tier: int, places: int) -> None:
    """Refuse (``WorkRefused``) a campaign that would offer more places than there are tasks
    left to do of its kind in its tier: every place must be able to do at least one."""
    if hit_type.kind == HitType.Kind.VIDEO_COLLECTION:
        return  # the worker brings the work: nothing is left or not
    left = (
        _real_work(hit_type=hit_type, tier=tier).aggregate(
            left=Sum(F("max_assignments") - F("submitted_count"))
        )["left"]
        or 0
    )
    if places > left:
        raise WorkRefused(
            f"This campaign asks for {counted(places, 'place')} but only "
            f"{counted(left, 'task')} {'is' if left == 1 else 'are'} left to do in tier {tier}: "
            "make it smaller."
        )


def _real_work(*, hit_type: HitType, tier: int):
    gold = GoldItem.objects.filter(item_id=OuterRef("item_id"))
    return Hit.objects.filter(
        hit_type=hit_type, tier=tier, submitted_count__lt=F("max_assignments")
    ).exclude(Exists(gold))
