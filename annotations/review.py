"""Staff review of workers' alignments before they are paid.

A worker's alignment waits, submitted and unpaid, until staff accept it (it is paid) or reject
it with a reason (its HIT slot reopens and the platform is told). Each one is scored against
the other annotations of the same pair; one whose mean F1 with them is below
``FLAG_BELOW_F1`` is flagged, listed first, and never paid automatically, as is one with no link
that no other annotator of the pair confirms. Unflagged alignments nobody reviewed are paid
after the HIT type's ``auto_accept_after``, as descriptions are.
"""

from dataclasses import dataclass, field

from django.core.paginator import Page, Paginator
from django.db.models import Count, Q
from django.utils import timezone

from crowd import services as crowd
from crowd.models import HitType
from paracrowd.celery import enqueue
from paracrowd_metrics.alignment import link_counts, parse_pharaoh

from .consensus import AnnotatorWeights, ConsensusRow, consensus_rows
from .models import Alignment

# Mean F1 against the pair's other annotations (identical words included) below which an
# alignment is flagged: two careful annotators of a paraphrase pair rarely fall below it.
FLAG_BELOW_F1 = 0.5
# Alignments on one page of the review (its rows are one line each, as descriptions' are).
PAGE_SIZE = 50
# Accepted alignments are the supervised pre-aligner's gold (annotations.prealigner).
RETRAIN_ALIGNER = "annotations.tasks.retrain_aligner"


@dataclass(frozen=True)
class ReviewItem:
    alignment: Alignment
    others: int  # other annotations of the pair it was compared with
    agreement_f1: float | None  # mean F1 against them; None with nobody to compare
    # The pair's weighted consensus beside this alignment's links (empty with nobody to
    # compare), for the reviewer to adjudicate.
    consensus: list[ConsensusRow] = field(default_factory=list)
    # No link at all, and no other annotator of the pair left it unlinked too: a worker's
    # "nothing corresponds" waits for a second annotator's agreement or a person's decision.
    unlinked_alone: bool = False

    @property
    def flagged(self) -> bool:
        low = self.agreement_f1 is not None and self.agreement_f1 < FLAG_BELOW_F1
        return low or self.unlinked_alone


def _waiting():
    """Workers' alignments waiting for review (imported ones are accepted as imported)."""
    return Alignment.objects.pending().filter(assignment__isnull=False)


def agreement_with_others(alignment: Alignment, others: list[Alignment]) -> float | None:
    """Mean F1 of ``alignment`` against each other annotation of its pair (as reference)."""
    if not others:
        return None
    pair = alignment.pair
    mine = parse_pharaoh(alignment.links)
    scores = [
        link_counts(
            mine, parse_pharaoh(other.links), pair.tokens_a, pair.tokens_b, include_identical=True
        ).f1
        for other in others
    ]
    return sum(scores) / len(scores)


def _items(alignments, *, with_consensus: bool = False) -> list[ReviewItem]:
    alignments = list(alignments)
    pairs = {alignment.pair_id for alignment in alignments}
    every = {}
    for other in (
        Alignment.objects.filter(pair_id__in=pairs)
        .exclude(status=Alignment.Status.REJECTED)
        .select_related("worker__user")
    ):
        every.setdefault(other.pair_id, []).append(other)
    weights = None
    if with_consensus:
        workers = {a.worker_id for group in every.values() for a in group if a.worker_id}
        weights = AnnotatorWeights.read(worker_ids=workers)
    items = []
    for alignment in alignments:
        pair_alignments = every.get(alignment.pair_id, [])
        others = [a for a in pair_alignments if a.pk != alignment.pk]
        consensus = []
        if weights is not None and others:
            consensus = consensus_rows(weights.consensus(pair_alignments), alignment)
        unlinked_alone = not alignment.links.strip() and not any(
            not other.links.strip() and other.worker_id != alignment.worker_id for other in others
        )
        items.append(
            ReviewItem(
                alignment,
                len(others),
                agreement_with_others(alignment, others),
                consensus,
                unlinked_alone=unlinked_alone,
            )
        )
    return items


def alignment_review_page(*, number=1, size: int | None = None) -> tuple[Page, list[ReviewItem]]:
    """Page ``number`` (any value Django's ``Paginator.get_page`` takes) of the alignments
    waiting for review, oldest first in pages of ``size`` (``PAGE_SIZE``), flagged ones first
    on each page, each with its pair's weighted consensus."""
    waiting = (
        _waiting().select_related("pair", "worker__user", "assignment").order_by("created_at", "pk")
    )
    page = Paginator(waiting, size or PAGE_SIZE).get_page(number)
    items = sorted(_items(page.object_list, with_consensus=True), key=lambda i: not i.flagged)
    return page, items


def alignments_review(
    *, alignment_ids: list[int], accept: bool, reviewer, reason: str
) -> crowd.ReviewOutcome:
    """Accept (pay) or reject alignments still waiting through the one review
    (``crowd.services.review``: a rejection needs a reason, which the worker's platform also
    receives; an acceptance may go without). Alignments already decided are left alone, as
    is work a platform has not confirmed (the outcome says which)."""
    items = Alignment.objects.filter(pk__in=alignment_ids)
    decide = crowd.work_accept if accept else crowd.work_reject
    outcome = decide(items=items, reviewer=reviewer, reason=reason)
    if accept and outcome.changed:
        enqueue(RETRAIN_ALIGNER)  # the task itself decides whether enough gold is new
    return outcome


def alignments_auto_pay(*, now=None) -> int:
    """Accept and pay unflagged alignments nobody reviewed once the HIT type's delay has
    passed; flagged ones wait for staff. Returns how many were paid; nothing is paid twice."""
    now = now or timezone.now()
    hit_type = HitType.objects.for_kind(HitType.Kind.ALIGNMENT)
    due = _waiting().filter(
        assignment__verified_at__isnull=False,
        created_at__lte=now - hit_type.auto_accept_after,
    )
    held = [item.alignment.pk for item in _items(due.select_related("pair")) if item.flagged]
    paid = crowd.work_auto_accept(Alignment, kind=HitType.Kind.ALIGNMENT, now=now, hold=held)
    if paid:
        enqueue(RETRAIN_ALIGNER)
    return paid


def worker_suggestions_kept(*, worker) -> dict:
    """How many of ``worker``'s alignments there are and how many sent back the pre-alignment
    they were shown unchanged (``Alignment.unchanged_suggestion``), for the worker panel. One
    query."""
    return Alignment.objects.filter(worker=worker).aggregate(
        total=Count("pk"), unchanged=Count("pk", filter=Q(unchanged_suggestion=True))
    )


__all__ = [
    "FLAG_BELOW_F1",
    "ReviewItem",
    "alignment_review_page",
    "alignments_auto_pay",
    "alignments_review",
    "worker_suggestions_kept",
]
