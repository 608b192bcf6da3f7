"""Making rating batches: the items to rate come from a system's outputs (a stored scoring
job), from the corpus (two descriptions of one cluster, drawn with a seed), or from a CSV file
(``source,candidate[,cluster][,language]``).

A batch is all or nothing: any bad row refuses the whole batch with a message naming its line
(or pair), and nothing is stored. Every item of a stored batch is offered at once as one
Tier-1 rating HIT wanting the batch's number of judges (see ``RatingBatch``).
"""

import csv
import io
import random
from dataclasses import dataclass

from django.db import transaction
from django.db.models import Count

from collector.models import Description, Segment
from crowd import services as crowd
from crowd.models import HitType, Tier

from ..models import RatingBatch, RatingItem, SystemScoreJob

# More items than this in one batch are refused: a batch's summary is computed on its page.
MAX_ITEMS = 5000
MAX_JUDGES = 10
CSV_COLUMNS = ("source", "candidate", "cluster", "language")


class BatchRefused(ValueError):
    """A batch that cannot be made, with what is wrong (and where) in words a researcher acts
    on. Nothing was stored."""


@dataclass(frozen=True)
class ItemDraft:
    source: str
    candidate: str
    segment_id: int | None = None


def rating_batch_create(
    *,
    name: str,
    origin: str,
    language: str,
    items: list[ItemDraft],
    created_by,
    system: str = "",
    judges: int = 2,
    show_video: bool = False,
) -> RatingBatch:
    """Store a batch and its items and offer each item as a Tier-1 HIT wanting ``judges``
    ratings, in one transaction. Refused (``BatchRefused``) with no name, no items, more than
    ``MAX_ITEMS`` items or a number of judges outside 1..``MAX_JUDGES``."""
    name = name.strip()
    if not name:
        raise BatchRefused("Give the batch a name.")
    if not 1 <= judges <= MAX_JUDGES:
        raise BatchRefused(f"Judges per item must be between 1 and {MAX_JUDGES}.")
    if not items:
        raise BatchRefused("There is nothing to rate: the batch would have no items.")
    if len(items) > MAX_ITEMS:
        raise BatchRefused(
            f"A batch takes at most {MAX_ITEMS:,} items; this one has {len(items):,}."
        )
    with transaction.atomic():
        batch = RatingBatch.objects.create(
            name=name,
            origin=origin,
            system=system.strip(),
            judges=judges,
            language=language,
            show_video=show_video,
            created_by=created_by,
        )
        RatingItem.objects.bulk_create(
            [
                RatingItem(
                    batch=batch,
                    source=item.source,
                    candidate=item.candidate,
                    segment_id=item.segment_id,
                )
                for item in items
            ],
            batch_size=1000,
        )
        crowd.hits_open(
            rows=batch.items.all(),
            kind=HitType.Kind.RATING,
            tiers=(Tier.ONE,),
            max_assignments=judges,
        )
    return batch


def items_from_csv(text: str, *, language: str, name: str = "the file") -> list[ItemDraft]:
    """The items of a CSV with a header naming ``source`` and ``candidate`` (and optionally
    ``cluster``, a segment id whose descriptions are the references, and ``language``).
    Refused, naming the line, for a missing column, an empty text, a cluster that does not
    exist or has no description in ``language``, a row in another language, or too many rows."""
    reader = csv.DictReader(io.StringIO(text.lstrip("\ufeff")))
    header = [column.strip().lower() for column in reader.fieldnames or []]
    missing = [column for column in ("source", "candidate") if column not in header]
    if missing:
        raise BatchRefused(
            f"{name}:1: the header must name the columns source and candidate "
            f"(missing: {', '.join(missing)}); cluster and language are optional."
        )
    reader.fieldnames = header
    rows = []
    for row in reader:
        line = reader.line_num
        if len(rows) == MAX_ITEMS:
            raise BatchRefused(f"{name}:{line}: a batch takes at most {MAX_ITEMS:,} items.")
        if None in row:
            raise BatchRefused(f"{name}:{line}: more fields than the header names.")
        source, candidate = ((row.get(column) or "").strip() for column in ("source", "candidate"))
        for column, value in (("source", source), ("candidate", candidate)):
            if not value:
                raise BatchRefused(f"{name}:{line}: the {column} is empty.")
        row_language = (row.get("language") or "").strip()
        if row_language and row_language != language:
            raise BatchRefused(
                f"{name}:{line}: the row is in {row_language!r} but the batch is in "
                f"{language!r}; a batch holds one language."
            )
        cluster = (row.get("cluster") or "").strip()
        segment_id = None
        if cluster:
            try:
                segment_id = int(cluster)
            except ValueError:
                raise BatchRefused(
                    f"{name}:{line}: cluster {cluster!r} is not a segment id."
                ) from None
        rows.append((line, ItemDraft(source, candidate, segment_id)))
    _check_clusters(rows, language, name)
    return [item for _, item in rows]


def _check_clusters(rows, language: str, name: str) -> None:
    wanted = {item.segment_id for _, item in rows if item.segment_id is not None}
    if not wanted:
        return
    existing = set(Segment.objects.filter(pk__in=wanted).values_list("pk", flat=True))
    described = set(
        Description.objects.filter(segment_id__in=wanted, language=language)
        .exclude(status=Description.Status.REJECTED)
        .values_list("segment_id", flat=True)
    )
    for line, item in rows:
        if item.segment_id is None:
            continue
        if item.segment_id not in existing:
            raise BatchRefused(f"{name}:{line}: cluster {item.segment_id} does not exist.")
        if item.segment_id not in described:
            raise BatchRefused(
                f"{name}:{line}: cluster {item.segment_id} has no descriptions in {language!r}."
            )


def items_from_corpus(*, language: str, count: int, seed: int = 0) -> list[ItemDraft]:
    """``count`` pairs of two different accepted descriptions of one cluster in ``language``, drawn
    with ``seed``: a cluster at random (among those with two descriptions or more), then an
    ordered pair of its members. No pair is drawn twice; fewer come back when the corpus has
    fewer pairs."""
    if not 1 <= count <= MAX_ITEMS:
        raise BatchRefused(f"Ask for between 1 and {MAX_ITEMS:,} pairs.")
    # Accepted descriptions only: work still pending review (or not yet shown submitted on its
    # platform) may yet be rejected, and judges would have rated what the corpus leaves out.
    live = Description.objects.accepted().filter(language=language)
    clusters = sorted(
        live.values("segment_id")
        .annotate(n=Count("id"))
        .filter(n__gte=2)
        .values_list("segment_id", flat=True)
    )
    if not clusters:
        raise BatchRefused(f"No cluster in {language!r} has two descriptions to pair.")
    rng = random.Random(seed)
    # Draw the clusters first, so only their members are read; each pick is one pair.
    picks = [rng.choice(clusters) for _ in range(count)]
    members = {}
    for segment_id, text in (
        live.filter(segment_id__in=set(picks)).order_by("id").values_list("segment_id", "text")
    ):
        members.setdefault(segment_id, []).append(text)
    drawn, items = set(), []
    for segment_id in picks:
        texts = members[segment_id]
        source, candidate = rng.sample(range(len(texts)), 2)
        if (segment_id, source, candidate) in drawn:
            continue
        drawn.add((segment_id, source, candidate))
        items.append(ItemDraft(texts[source], texts[candidate], segment_id))
    return items


def items_from_system(*, job: SystemScoreJob, system: str, language: str) -> list[ItemDraft]:
    """The (source, output) pairs of ``system`` in scoring job ``job``. A pair's cluster is
    the segment given with it, else the one segment whose description is the source (none
    when the text is no description, or is one in several clusters). Refused for a system
    the job does not hold, an empty text, or a source found only in another language."""
    pairs = next((s["pairs"] for s in job.systems if s["name"] == system), None)
    if pairs is None:
        names = ", ".join(repr(s["name"]) for s in job.systems)
        raise BatchRefused(f"Scoring job {job.pk} has no system {system!r} (it has {names}).")
    if len(pairs) > MAX_ITEMS:
        raise BatchRefused(
            f"A batch takes at most {MAX_ITEMS:,} items; {system!r} has {len(pairs):,}."
        )
    found = {}
    for text, segment_id, found_language in Description.objects.filter(
        text__in={source for source, _, _ in pairs}
    ).values_list("text", "segment_id", "language"):
        found.setdefault(text, set()).add((segment_id, found_language))
    items = []
    for number, (source, output, segment_id) in enumerate(pairs, start=1):
        if not source.strip() or not output.strip():
            raise BatchRefused(f"{system}: pair {number} has an empty source or output.")
        matches = found.get(source, set())
        if segment_id is not None:
            matches = {match for match in matches if match[0] == segment_id}
        if matches and not any(match_language == language for _, match_language in matches):
            other = sorted(match_language for _, match_language in matches)[0]
            raise BatchRefused(
                f"{system}: pair {number}'s source is a description in {other!r}, but the "
                f"batch is in {language!r}; a batch holds one language."
            )
        clusters = {match[0] for match in matches if match[1] == language}
        if segment_id is None and len(clusters) == 1:
            segment_id = next(iter(clusters))
        items.append(ItemDraft(source, output, segment_id))
    return items


__all__ = [
    "MAX_ITEMS",
    "BatchRefused",
    "ItemDraft",
    "items_from_corpus",
    "items_from_csv",
    "items_from_system",
    "rating_batch_create",
]
