"""Descriptions: storing a worker's description once and queueing its scoring, and the review
that accepts (and pays) or rejects them."""

from datetime import timedelta

from crowd import services as crowd
from crowd.models import HitType, Worker
from paracrowd.celery import enqueue_many

from ..canary import canary_found
from ..models import Description
from ..provenance import TypingRecord
from .review import ReviewOutcome, submissions_review
from .typing import typing_check, typing_quality_record

# Work queued in the apps that build on this one, by task name.
SCORE_SEGMENTS = "scoring.tasks.score_segments"
REFRESH_WORKER_SIGNALS = "review.tasks.refresh_worker_signals"


def description_submit(
    *,
    assignment_id: int,
    worker: Worker,
    text: str,
    language: str,
    comment: str = "",
    typing: TypingRecord | None = None,
) -> tuple[Description, bool]:
    """Store a worker's description for their assignment, exactly once, with how it was typed
    (``typing``, None when the page sent no record), and queue its scoring.

    The caller has validated the text (forms.DescriptionForm). An assignment that is not the
    worker's own description task is refused (``WorkRefused``), whoever's it is; so is a
    pasted text where the HIT type forbids pasting (``PasteForbidden``).
    """

    def record(assignment, hit, now):
        typing_check(typing, hit_type=hit.hit_type, noun="description")
        segment_id = hit.item.segment.pk
        description = Description.objects.create(
            segment_id=segment_id,
            assignment=assignment,
            worker=worker,
            tier=hit.tier,
            text=text,
            language=language,
            comment=comment,
            **Description.typing_values(
                typing, text, canary=canary_found(text, campaign_id=assignment.campaign_id)
            ),
            time_spent=max(now - assignment.accepted_at, timedelta(0)),
            created_at=now,
        )
        typing_quality_record(
            worker=worker,
            assignment=assignment,
            signals=description.typing_signals,
            source=f"description:{description.pk}",
        )
        enqueue_many((SCORE_SEGMENTS, ([segment_id],)), (REFRESH_WORKER_SIGNALS, (worker.pk,)))
        return description

    return crowd.assignment_submit(
        assignment_id=assignment_id,
        worker=worker,
        record=record,
        submission="description",
        kind=HitType.Kind.DESCRIPTION,
        related=("hit__item__segment", "hit__hit_type"),
    )


def descriptions_review(*, description_ids, status: str, reviewed_by, reason: str) -> ReviewOutcome:
    """Accept or reject descriptions as one admin action, with a reason the worker is shown
    (``crowd.services.review`` says what is guaranteed).

    Rejected descriptions are kept, marked, and never count in the corpus's scores; accepted
    ones are final, exported as accepted and counted in their cluster's scores. Every
    decision rescores the clusters concerned.
    """
    return submissions_review(
        Description,
        ids=description_ids,
        status=status,
        reviewed_by=reviewed_by,
        reason=reason,
        after=description_rescore,
    )


def description_rescore(decided, status: str, previous: str) -> None:
    """What a decision on descriptions changes besides their rows: a cluster's scores count
    its accepted descriptions and set apart those awaiting review, so any decision changes
    its members and it is scored again; so are the workers' review signals. Pass it as the
    review services' ``after``."""
    # Sent together: the automatic acceptance decides up to a thousand at a time.
    enqueue_many(
        *[
            (SCORE_SEGMENTS, ([segment_id],))
            for segment_id in sorted({d.segment_id for d in decided})
        ],
        *[
            (REFRESH_WORKER_SIGNALS, (worker_id,))
            for worker_id in sorted({d.worker_id for d in decided if d.worker_id is not None})
        ],
    )


def descriptions_auto_accept(*, now=None, batch: int = 1000) -> int:
    """Accept, and pay, collected descriptions nobody reviewed within their HIT type's
    ``auto_accept_after``, as crowd platforms do. Returns how many were accepted."""
    return crowd.work_auto_accept(
        Description, kind=HitType.Kind.DESCRIPTION, now=now, batch=batch, after=description_rescore
    )
