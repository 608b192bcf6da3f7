"""Work for the demo's workers besides descriptions and alignments: sentences to paraphrase,
and a draft campaign that would offer description tasks through a study link (a draft sends
nothing anywhere until staff publish it).

Three sentences of the corpus are offered too, and two demo writers paraphrase them
(``paraphrases.tsv``): one writer's paraphrases are accepted, the other's wait in the review
queue, and all are scored, so the paraphrase review page and the corpus page's comparison of
direct paraphrases with descriptions have something to show. The demo's own workers are
offered the sentences of ``paraphrase-sentences.txt``, which nobody has paraphrased."""

import csv
from datetime import timedelta

from collector.models import Paraphrase, ParaphraseSource
from collector.services import (
    paraphrase_sources_from_corpus,
    paraphrase_sources_from_file,
    paraphrase_submit,
    paraphrases_review,
)
from crowd import services as crowd
from crowd.models import Campaign, HitType, Tier
from scoring.paraphrases import paraphrases_score

from . import DATA
from .accounts import WRITERS, Accounts
from .tasks import tasks_do

PARAPHRASE_SENTENCES = DATA / "paraphrase-sentences.txt"
PARAPHRASES = DATA / "paraphrases.tsv"
CORPUS_SENTENCES = 3
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


def paraphrases_load(*, accounts: Accounts) -> None:
    """Offer ``CORPUS_SENTENCES`` sentences of the corpus (once) and have the demo writers
    paraphrase them; accept the paraphrases marked so and score them all."""
    if not ParaphraseSource.objects.filter(origin=ParaphraseSource.Origin.CORPUS).exists():
        paraphrase_sources_from_corpus(
            count=CORPUS_SENTENCES, seed=0, language="en", chosen_by=accounts.admin
        )
    sources = dict(
        ParaphraseSource.objects.filter(origin=ParaphraseSource.Origin.CORPUS).values_list(
            "text", "item_id"
        )
    )
    by_writer, accepted = {}, {}
    with PARAPHRASES.open(encoding="utf-8", newline="") as rows:
        for line, row in enumerate(csv.DictReader(rows, delimiter="\t"), start=2):
            if row["sentence"] not in sources:
                raise ValueError(f"{PARAPHRASES}:{line}: this sentence was not offered")
            by_writer.setdefault(row["writer"], {})[sources[row["sentence"]]] = row["text"]
            if row["review"] == "accepted":
                accepted[row["text"]] = row["writer"]
    for name, texts in by_writer.items():
        writer = accounts.writers[name]
        tasks_do(
            worker=writer,
            tier=WRITERS[name],
            kind=HitType.Kind.PARAPHRASE,
            answers=texts,
            submit=lambda assignment, text, writer=writer: paraphrase_submit(
                assignment_id=assignment.pk, worker=writer, text=text, language="en"
            ),
        )
    written = Paraphrase.objects.filter(worker__in=accounts.writers.values())
    to_accept = written.pending().filter(text__in=accepted)
    if to_accept.exists():
        paraphrases_review(
            paraphrase_ids=list(to_accept.values_list("pk", flat=True)),
            status=Paraphrase.Status.ACCEPTED,
            reviewed_by=accounts.admin,
            reason="Demo paraphrase, accepted.",
        )
    paraphrases_score(
        paraphrase_ids=list(written.filter(pinc__isnull=True).values_list("pk", flat=True))
    )


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
