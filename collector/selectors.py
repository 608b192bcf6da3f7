"""Reads that pages and other apps share: a worker's dashboard, the members of clusters."""

from collections import defaultdict

from django.db.models import Count, Q, Sum
from django.db.models.functions import Coalesce

from crowd.models import Assignment, Hit, HitType, LedgerEntry, Qualification, Tier, Worker
from crowd.next_task import task_page
from crowd.selectors import worker_pending_pay
from crowd.services import assignments_held, quality_notice, worker_has_access

from .models import Description, Paraphrase, SegmentProposal
from .provenance import SIGNALS as TYPING_SIGNALS
from .provenance import UNKNOWN


def cluster_descriptions(segment_ids, *, accepted_only: bool = False):
    """Members of the clusters of ``segment_ids``: {(segment_id, language): [(id, text), …]}.
    Rejected descriptions are not members; with ``accepted_only``, neither is work awaiting
    review (what the cluster scores count)."""
    clusters = defaultdict(list)
    members = Description.objects.filter(segment_id__in=segment_ids)
    if accepted_only:
        members = members.accepted()
    else:
        members = members.exclude(status=Description.Status.REJECTED)
    members = members.order_by("segment_id", "language", "id").values_list(
        "segment_id", "language", "id", "text"
    )
    for segment_id, language, description_id, text in members:
        clusters[segment_id, language].append((description_id, text))
    return clusters


def worker_dashboard(worker: Worker) -> dict:
    """What a worker's dashboard shows: counts of their work by status, earnings per tier
    (credited from the ledger, pending at the current pay), bonuses and payouts, their standing,
    recent work with review reasons, and which tasks they may take."""
    hit_types = HitType.objects.by_kind()
    describing = hit_types[HitType.Kind.DESCRIPTION]
    aligning = hit_types[HitType.Kind.ALIGNMENT]
    collecting = hit_types[HitType.Kind.VIDEO_COLLECTION]
    rating = hit_types[HitType.Kind.RATING]
    tier = worker.current_tier
    counts = dict.fromkeys(Description.Status.values, 0)
    earnings = {t: {"tier": t, "earned": 0, "pending": 0} for t in Tier.values}
    rows = worker.descriptions.values("tier", "status").annotate(n=Count("id")).order_by()
    for row in rows:
        counts[row["status"]] += row["n"]
    # Every kind of work waiting for review, at what the ledger will credit once accepted.
    for t, cents in worker_pending_pay(worker=worker, hit_types=hit_types).items():
        earnings[t]["pending"] += cents
    credited = (
        worker.ledger_entries.filter(kind__in=[LedgerEntry.Kind.TASK, LedgerEntry.Kind.REWARD])
        .values("tier")
        .annotate(cents=Sum("amount_cents"))
        .order_by()
    )
    for row in credited:
        earnings[row["tier"]]["earned"] += row["cents"]
    totals = worker.ledger_entries.aggregate(
        total=Coalesce(Sum("amount_cents"), 0),
        bonus=Coalesce(Sum("amount_cents", filter=Q(kind=LedgerEntry.Kind.BONUS)), 0),
        paid=Coalesce(Sum("amount_cents", filter=Q(payout__isnull=False)), 0),
    )
    proposals = dict.fromkeys(SegmentProposal.Status.values, 0)
    rows = worker.proposals.values("tier", "status").annotate(n=Count("id")).order_by()
    for row in rows:
        proposals[row["status"]] += row["n"]
    paraphrasing = hit_types[HitType.Kind.PARAPHRASE]
    paraphrases = dict.fromkeys(Paraphrase.Status.values, 0)
    rows = worker.paraphrases.values("tier", "status").annotate(n=Count("id")).order_by()
    for row in rows:
        paraphrases[row["status"]] += row["n"]
    tiers_open = [t for t in reversed(Tier.values) if t <= tier]
    # Which kinds of shared work have something left for this worker, per tier (one query).
    open_work = set(
        Hit.objects.filter(hit_type__in=[describing, rating, paraphrasing], tier__in=tiers_open)
        .open_to(worker)
        .values_list("hit_type_id", "tier")
        .distinct()
    )
    # Alignment HITs behind the trial (see annotations.trial): the dashboard links to it instead.
    alignment_locked = aligning.qualification_required and not worker_has_access(
        worker=worker, kind=HitType.Kind.ALIGNMENT
    )
    rating_locked = rating.qualification_required and not worker_has_access(
        worker=worker, kind=HitType.Kind.RATING
    )
    done = dict(
        worker.assignments.filter(
            hit__hit_type__in=[aligning, rating],
            status__in=[Assignment.Status.SUBMITTED, Assignment.Status.REJECTED],
        )
        .values("hit__hit_type")
        .annotate(n=Count("pk"))
        .values_list("hit__hit_type", "n")
        .order_by()
    )
    # Every task the worker opened and has not finished, while it is still theirs.
    held = [(assignment, task_page(assignment)) for assignment in assignments_held(worker=worker)]
    return {
        "worker": worker,
        "tier": tier,
        "quality_notice": quality_notice(worker),
        "held": held,
        "describing_held": any(a.hit.hit_type_id == describing.pk for a, _ in held),
        "alignment_locked": alignment_locked,
        "promotion": Qualification.objects.active()
        .filter(worker=worker, tier=Tier.TWO)
        .only("granted_at")
        .first(),
        "counts": counts,
        "submitted": sum(counts.values()),
        "earnings": list(earnings.values()),
        "bonuses": worker.ledger_entries.filter(kind=LedgerEntry.Kind.BONUS).order_by(
            "-created_at"
        )[:10],
        "totals": totals,
        # Every tier the worker may describe in; one with no segment left for them shows its
        # button disabled, with the reason, instead of leading to "none left" (one query).
        "tiers": [
            (t, describing.pay_cents(t), (describing.pk, t) in open_work) for t in tiers_open
        ],
        "alignment_tiers": [(t, aligning.pay_cents(t)) for t in tiers_open]
        if not alignment_locked and Hit.objects.filter(hit_type=aligning).exists()
        else [],
        "alignments": done.get(aligning.pk, 0),
        # Rating HITs are offered in Tier 1 only (see research.models.RatingBatch), open to all.
        "rating_tiers": [
            (t, rating.pay_cents(t)) for t in tiers_open if (rating.pk, t) in open_work
        ]
        if not rating_locked
        else [],
        "rating_locked": rating_locked,
        "ratings": done.get(rating.pk, 0),
        "proposal_tiers": [(t, collecting.pay_cents(t)) for t in tiers_open],
        "paraphrase_tiers": [
            (t, paraphrasing.pay_cents(t)) for t in tiers_open if (paraphrasing.pk, t) in open_work
        ],
        "paraphrases": paraphrases,
        "paraphrased": sum(paraphrases.values()),
        "recent_paraphrases": worker.paraphrases.select_related("source").order_by("-created_at")[
            :5
        ],
        "proposals": proposals,
        "proposed": sum(proposals.values()),
        "recent_proposals": worker.proposals.order_by("-created_at")[:5],
        "recent": worker.descriptions.select_related("segment", "score").order_by("-created_at")[
            :10
        ],
    }


def typing_summary(worker: Worker) -> list[dict]:
    """How one worker's texts came into the box, for their page: per kind of work (their
    descriptions, their paraphrases) how many there are, how many read as typed on the page,
    how many have no record (unknown), and how many raised each signal. Two queries."""
    flagged = [key for key in TYPING_SIGNALS if key != UNKNOWN]
    counts = {
        "total": Count("pk"),
        "clean": Count("pk", filter=Q(typing_signals=[])),
        **{key: Count("pk", filter=Q(typing_signals__contains=[key])) for key in TYPING_SIGNALS},
    }
    rows = []
    for noun, model in (("descriptions", Description), ("paraphrases", Paraphrase)):
        found = model.objects.filter(worker=worker).aggregate(**counts)
        if found["total"]:
            found["signals"] = [(TYPING_SIGNALS[key], found[key]) for key in flagged]
            rows.append({"noun": noun, **found})
    return rows
