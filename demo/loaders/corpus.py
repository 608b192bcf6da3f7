"""The demo corpus: the demo writers describe the four YouTube segments (each in their
tier), as a worker would, through the claim and the description service; the admin accepts
the descriptions, and the clusters are scored and the writers' review signals computed at
once (work the Celery worker would do), so the score and review pages, the rating batch, the
paraphrase sentences and the export have accepted, scored work to show. One description is
made gold, as staff do from the gold page, so its segment checks the workers who describe it.

The writers skip any other segment they are handed (the offline clip above all), so the clip
keeps no submission and stays the first task of the demo's own workers."""

import csv

from django.core.exceptions import ValidationError

from collector import services as collector
from collector.forms import DescriptionForm
from collector.models import Description, Segment
from crowd.models import GoldItem, HitType
from review.gold import gold_from_work
from review.services import worker_signals_refresh
from scoring.services import segments_score

from . import DATA
from .accounts import WRITERS, Accounts
from .segments import Segments
from .tasks import tasks_do, time_taken

DESCRIPTIONS = DATA / "descriptions.tsv"
# The description made gold: a Tier-2 writer's, of the squirrel.
GOLD_DESCRIPTION = ("-4wsuPCjDBc", "dee")
# What a demo writer spends writing, after watching the segment twice.
WRITING_SECONDS = 30


def descriptions_read() -> list[dict]:
    """The rows of ``descriptions.tsv`` (youtube_id, writer, text), each text checked by the
    rules a worker's description must pass."""
    with DESCRIPTIONS.open(encoding="utf-8", newline="") as rows:
        read = list(csv.DictReader(rows, delimiter="\t"))
    text_field = DescriptionForm().fields["text"]
    for line, row in enumerate(read, start=2):
        try:
            text_field.clean(row["text"])
        except ValidationError as error:
            raise ValueError(f"{DESCRIPTIONS}:{line}: {error.messages[0]}") from None
    return read


def corpus_load(*, accounts: Accounts, segments: Segments) -> list[int]:
    """Describe, accept and score; returns the ids of the segments described."""
    by_writer = {}
    for row in descriptions_read():
        segment = segments.youtube[row["youtube_id"]]
        by_writer.setdefault(row["writer"], {})[segment.pk] = row["text"]
    for name, texts in by_writer.items():
        _describe(accounts.writers[name], WRITERS[name], texts)
    pending = Description.objects.pending().filter(worker__in=accounts.writers.values())
    if pending.exists():
        collector.descriptions_review(
            description_ids=list(pending.values_list("pk", flat=True)),
            status=Description.Status.ACCEPTED,
            reviewed_by=accounts.admin,
            reason="Demo description, accepted.",
        )
    described = sorted(segment.pk for segment in segments.youtube.values())
    segments_score(segment_ids=described)
    for writer in accounts.writers.values():
        worker_signals_refresh(worker_id=writer.pk)
    youtube_id, name = GOLD_DESCRIPTION
    gold = Description.objects.get(
        segment=segments.youtube[youtube_id], worker=accounts.writers[name]
    )
    if not GoldItem.objects.filter(item_id=gold.segment.item_id).exists():
        gold_from_work(kind=HitType.Kind.DESCRIPTION, work_id=gold.pk, created_by=accounts.admin)
    return described


def _describe(writer, tier: int, texts: dict[int, str]) -> None:
    """``writer`` describes each segment of ``texts`` (segment id → text) in ``tier``, taking
    as long as a person who watches the segment twice and then writes."""
    segments = Segment.objects.filter(pk__in=list(texts))
    items = {segment.item_id: (texts[segment.pk], float(segment.length)) for segment in segments}

    def submit(assignment, answer):
        text, length = answer
        time_taken(assignment, 2 * length + WRITING_SECONDS)
        collector.description_submit(
            assignment_id=assignment.pk, worker=writer, text=text, language="en"
        )

    tasks_do(worker=writer, tier=tier, kind=HitType.Kind.DESCRIPTION, answers=items, submit=submit)
