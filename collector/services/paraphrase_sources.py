"""Choosing the sentences workers paraphrase directly: a seeded sample of accepted
descriptions from the corpus (one per segment), or a file of sentences. Either way every
sentence is checked first, and the sentences are stored and offered as HITs in one
transaction: a refusal stores nothing."""

import csv
import io
import random
from dataclasses import dataclass

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.db.models import Exists, OuterRef

from crowd import services as crowd
from crowd.models import HitType, Tier
from crowd.services import WorkRefused

from ..models import Description, ParaphraseSource
from ..validators import (
    LANGUAGE_CODES,
    validate_has_words,
    validate_language_name,
    validate_no_markup,
    validate_one_sentence,
    validate_starts_like_a_sentence,
)

# One choice stores and offers at most this many sentences, so a page's request stays bounded.
MAX_SENTENCES = 10_000

# A sentence in an uploaded file must pass what a description must (bar the video's rules).
SENTENCE_RULES = (
    validate_starts_like_a_sentence,
    validate_has_words,
    validate_no_markup,
    validate_one_sentence,
)


@dataclass(frozen=True)
class SourceChoice:
    """The sentences stored and offered now, and how many were left out as already offered."""

    sources: list[ParaphraseSource]
    already_offered: int = 0


def paraphrase_sources_from_corpus(
    *,
    count: int,
    seed: int = 0,
    tier2_only: bool = False,
    language: str = "",
    chosen_by=None,
) -> SourceChoice:
    """Offer ``count`` accepted descriptions for direct paraphrasing, one per segment, chosen
    at random with ``seed``: a segment is drawn, then one of its accepted descriptions (of
    Tier-2 workers only, in ``language`` only, when asked). Segments that already have a
    sentence offered are passed over, so choosing again adds new segments. Fewer than
    ``count`` are offered when fewer segments qualify."""
    if not 1 <= count <= MAX_SENTENCES:
        raise WorkRefused(f"Choose between 1 and {MAX_SENTENCES:,} sentences at a time.")
    described = Description.objects.filter(status=Description.Status.ACCEPTED).exclude(
        Exists(ParaphraseSource.objects.filter(segment_id=OuterRef("segment_id")))
    )
    if tier2_only:
        described = described.filter(tier=Tier.TWO)
    if language:
        described = described.filter(language=language)
    by_segment = {}
    rows = described.order_by("segment_id", "pk").values_list("segment_id", "pk")
    for segment_id, description_id in rows:
        by_segment.setdefault(segment_id, []).append(description_id)
    rng = random.Random(seed)
    segments = rng.sample(sorted(by_segment), min(count, len(by_segment)))
    chosen = sorted(rng.choice(by_segment[segment_id]) for segment_id in segments)
    texts = Description.objects.in_bulk(chosen)
    sources = [
        ParaphraseSource(
            origin=ParaphraseSource.Origin.CORPUS,
            text=texts[pk].text,
            language=texts[pk].language,
            description_id=pk,
            segment_id=texts[pk].segment_id,
            chosen_by=chosen_by,
        )
        for pk in chosen
    ]
    return _offer(sources, already_offered=0)


def paraphrase_sources_from_file(
    *, content: bytes, name: str, language: str = "", chosen_by=None
) -> SourceChoice:
    """Offer the sentences of an uploaded file for direct paraphrasing.

    A ``.csv`` file has a header row with a ``text`` column and, unless ``language`` is given,
    a ``language`` column; any other file is UTF-8 text with one sentence per line (blank
    lines skipped) in ``language``. Every sentence must read as one sentence of a description
    would (and start with a word, so that no export turns it into a formula); the first line
    that does not is named in the refusal and nothing is stored. Sentences already offered
    from a file are left out, and counted."""
    if language:
        _check_language(language, where="The language given")
    try:
        text = content.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise WorkRefused(
            f"The file is not UTF-8 text (byte {error.start + 1} cannot be read)."
        ) from None
    if name.lower().endswith(".csv"):
        rows = _csv_rows(text, language)
    else:
        if not language:
            raise WorkRefused("Say which language the sentences are in.")
        rows = [
            (number, line.strip(), language)
            for number, line in enumerate(text.splitlines(), start=1)
            if line.strip()
        ]
    if not rows:
        raise WorkRefused("The file holds no sentences.")
    if len(rows) > MAX_SENTENCES:
        raise WorkRefused(
            f"The file holds {len(rows):,} sentences; offer at most {MAX_SENTENCES:,} at a time "
            "(split the file)."
        )
    seen, sources = set(), []
    for number, sentence, sentence_language in rows:
        _check_sentence(sentence, where=f"Line {number}")
        _check_language(sentence_language, where=f"Line {number}")
        if (sentence, sentence_language) in seen:
            continue
        seen.add((sentence, sentence_language))
        sources.append(
            ParaphraseSource(
                origin=ParaphraseSource.Origin.UPLOAD,
                text=sentence,
                language=sentence_language,
                chosen_by=chosen_by,
            )
        )
    stored = set(
        ParaphraseSource.objects.filter(
            origin=ParaphraseSource.Origin.UPLOAD, text__in=[s.text for s in sources]
        ).values_list("text", "language")
    )
    new = [s for s in sources if (s.text, s.language) not in stored]
    return _offer(new, already_offered=len(sources) - len(new))


def _csv_rows(text: str, language: str) -> list[tuple[int, str, str]]:
    reader = csv.DictReader(io.StringIO(text, newline=""))
    columns = {name.strip().lower(): name for name in reader.fieldnames or []}
    if "text" not in columns:
        raise WorkRefused("Line 1: the header has no “text” column.")
    if not language and "language" not in columns:
        raise WorkRefused(
            "Line 1: the header has no “language” column; add one or give a language."
        )
    rows = []
    for row in reader:
        number = reader.line_num
        if None in row:
            raise WorkRefused(f"Line {number}: more fields than the header names.")
        sentence = (row[columns["text"]] or "").strip()
        if not sentence and not any((value or "").strip() for value in row.values()):
            continue  # a blank line
        row_language = language or (row[columns["language"]] or "").strip()
        rows.append((number, sentence, row_language))
    return rows


def _check_sentence(sentence: str, *, where: str) -> None:
    if not sentence:
        raise WorkRefused(f"{where}: the sentence is empty.")
    limit = settings.DESCRIPTION_MAX_LENGTH
    if len(sentence) > limit:
        raise WorkRefused(f"{where}: the sentence is longer than {limit} characters.")
    for rule in SENTENCE_RULES:
        try:
            rule(sentence)
        except ValidationError as error:
            raise WorkRefused(f"{where}: {error.messages[0]}") from None


def _check_language(language: str, *, where: str) -> None:
    if language in LANGUAGE_CODES:
        return
    try:
        validate_language_name(language)
    except ValidationError:
        raise WorkRefused(
            f"{where}: “{language}” is not a language code (such as en) or a language's name."
        ) from None


def _offer(sources: list[ParaphraseSource], *, already_offered: int) -> SourceChoice:
    try:
        with transaction.atomic():
            created = ParaphraseSource.objects.bulk_create(sources, batch_size=2000)
            rows = ParaphraseSource.objects.filter(pk__in=[s.pk for s in created])
            crowd.hits_open(rows=rows, kind=HitType.Kind.PARAPHRASE)
            stored = list(rows.order_by("pk"))
    except IntegrityError:
        # Another choice stored some of the same sentences meanwhile; this one stored nothing.
        raise WorkRefused(
            "Some of these sentences were offered by someone else at the same moment; nothing "
            "was stored. Try again."
        ) from None
    return SourceChoice(stored, already_offered)
