"""Direct paraphrasing (Chen & Dolan 2011, §5.3): storing a worker's paraphrase of a sentence
once and queueing its PINC, and the review that accepts (and pays) or rejects it."""

from datetime import timedelta

from django.core.exceptions import ValidationError

from crowd import services as crowd
from crowd.models import HitType, Worker
from crowd.services import WorkRefused
from paracrowd.celery import enqueue

from ..canary import canary_found
from ..models import Paraphrase, ParaphraseSource
from ..provenance import TypingRecord
from ..validators import validate_not_a_copy
from .review import ReviewOutcome, submissions_review
from .typing import typing_check, typing_quality_record

# Scoring builds on this app: its task is queued by name.
SCORE_PARAPHRASES = "scoring.tasks.score_paraphrases"


def paraphrase_submit(
    *,
    assignment_id: int,
    worker: Worker,
    text: str,
    language: str,
    typing: TypingRecord | None = None,
) -> tuple[Paraphrase, bool]:
    """Store a worker's paraphrase for their assignment, exactly once, with how it was typed
    (``typing``, None when the page sent no record), and queue its PINC.

    The caller has validated the text (forms.ParaphraseForm); a copy of the sentence, or a
    sentence this worker has already paraphrased (in the other tier), is refused here too,
    whoever calls, and nothing is stored; so is a pasted text where the HIT type forbids
    pasting (``PasteForbidden``).
    """

    def record(assignment, hit, now):
        typing_check(typing, hit_type=hit.hit_type, noun="paraphrase")
        source = ParaphraseSource.objects.get(item_id=hit.item_id)
        try:
            validate_not_a_copy(text, source.text, source.language)
        except ValidationError as error:
            raise WorkRefused(error.messages[0]) from None
        if Paraphrase.objects.filter(source=source, worker=worker).exists():
            raise WorkRefused("You have already paraphrased this sentence; take another task.")
        paraphrase = Paraphrase.objects.create(
            source=source,
            assignment=assignment,
            worker=worker,
            tier=hit.tier,
            text=text,
            language=language,
            **Paraphrase.typing_values(
                typing, text, canary=canary_found(text, campaign_id=assignment.campaign_id)
            ),
            time_spent=max(now - assignment.accepted_at, timedelta(0)),
            created_at=now,
        )
        typing_quality_record(
            worker=worker,
            assignment=assignment,
            signals=paraphrase.typing_signals,
            source=f"paraphrase:{paraphrase.pk}",
        )
        enqueue(SCORE_PARAPHRASES, [paraphrase.pk])
        return paraphrase

    return crowd.assignment_submit(
        assignment_id=assignment_id,
        worker=worker,
        record=record,
        submission="paraphrase",
        related=("hit__hit_type",),
    )


def paraphrases_review(*, paraphrase_ids, status: str, reviewed_by, reason: str) -> ReviewOutcome:
    """Accept (and pay) or reject paraphrases, with a reason the worker is shown, as
    descriptions are reviewed (``crowd.services.review`` says what is guaranteed).
    Rejected paraphrases are kept, marked, and leave the comparison with descriptions."""
    return submissions_review(
        Paraphrase,
        ids=paraphrase_ids,
        status=status,
        reviewed_by=reviewed_by,
        reason=reason,
    )


def paraphrases_auto_accept(*, now=None, batch: int = 1000) -> int:
    """Accept, and pay, paraphrases nobody reviewed within their HIT type's
    ``auto_accept_after``. Returns how many were accepted."""

    return crowd.work_auto_accept(Paraphrase, kind=HitType.Kind.PARAPHRASE, now=now, batch=batch)
