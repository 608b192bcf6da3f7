"""Work for the demo's workers besides descriptions and alignments: sentences to paraphrase,
and a draft campaign that would offer description tasks through a study link (a draft sends
nothing anywhere until staff publish it)."""

from datetime import timedelta

from collector.models import ParaphraseSource
from collector.services import paraphrase_sources_from_file
from crowd import services as crowd
from crowd.models import Campaign, HitType, Tier

from . import DATA

PARAPHRASE_SENTENCES = DATA / "paraphrase-sentences.txt"
CAMPAIGN_NAME = "Demo study: describe short videos"
CAMPAIGN_HITS = 3


def paraphrase_sentences_load(*, chosen_by) -> list[ParaphraseSource]:
    """Offer the demo's sentences for paraphrasing (sentences offered already are left out)."""
    paraphrase_sources_from_file(
        content=PARAPHRASE_SENTENCES.read_bytes(),
        name=PARAPHRASE_SENTENCES.name,
        language="en",
        chosen_by=chosen_by,
    )
    return list(ParaphraseSource.objects.filter(origin=ParaphraseSource.Origin.UPLOAD))


def campaign_load(*, created_by) -> Campaign:
    """A draft study-link campaign of Tier-1 description tasks."""
    campaign = Campaign.objects.filter(name=CAMPAIGN_NAME).first()
    return campaign or crowd.campaign_create(
        name=CAMPAIGN_NAME,
        platform=Campaign.Platform.STUDY_LINK,
        kind=HitType.Kind.DESCRIPTION,
        tier=Tier.ONE,
        size=CAMPAIGN_HITS,
        lifetime=timedelta(days=7),
        created_by=created_by,
        tasks_per_session=3,
        languages=["en"],
    )
