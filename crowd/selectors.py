"""Reads of crowd work that other apps' pages share."""

from django.db.models import CharField, Count, Exists, F, OuterRef, Q, Value
from django.db.models.functions import Cast, Concat

from .models import Assignment, HitType, LedgerEntry, Worker
from .services.sessions import session_positions


def worker_pending_pay(*, worker: Worker, hit_types: dict | None = None) -> dict[int, int]:
    """What the ledger would credit ``worker`` per tier, in cents, if every task they submitted
    and that is not yet paid nor rejected were accepted now: every kind of work, at the pay
    ``crowd.services.ledger.ledger_pay_assignments`` books (the campaign's pay per task where it
    sets one, else the HIT type's pay in the tier; work in a platform session as the session:
    its reward once, and the tasks past its minimum). Two queries, however much work, and one
    more unless ``hit_types`` (``HitType.objects.by_kind()``) is given."""
    waiting = worker.assignments.filter(
        status=Assignment.Status.SUBMITTED, ledger_entry__isnull=True
    )
    hit_types = hit_types or HitType.objects.by_kind()
    pay_by_id = {hit_type.pk: hit_type for hit_type in hit_types.values()}
    pending: dict[int, int] = {}

    def add(tier, cents):
        pending[tier] = pending.get(tier, 0) + cents

    def task_cents(row):
        return row["campaign__task_cents"] or pay_by_id[row["hit__hit_type"]].pay_cents(
            row["hit__tier"]
        )

    # As the ledger: work pays as a session's only where it came through a campaign.
    alone = (
        waiting.filter(Q(session__isnull=True) | Q(campaign__isnull=True))
        .values("hit__tier", "hit__hit_type", "campaign__task_cents")
        .annotate(n=Count("pk"))
        .order_by()
    )
    for row in alone:
        add(row["hit__tier"], task_cents(row) * row["n"])

    # A task's place in its session counts every submitted task of the session, paid or not.
    in_sessions = session_positions(
        Assignment.objects.filter(
            session__in=waiting.filter(session__isnull=False, campaign__isnull=False).values(
                "session"
            )
        )
    ).annotate(
        waiting=Exists(waiting.filter(pk=OuterRef("pk"))),
        reward_booked=Exists(
            LedgerEntry.objects.filter(
                source=Concat(
                    Value("session:"),
                    Cast(OuterRef("session_id"), CharField()),
                    output_field=CharField(),
                )
            )
        ),
        task_minimum=F("session__task_minimum"),
        reward_cents=F("campaign__reward_cents"),
    )
    rewarded = set()
    for row in in_sessions.values(
        "pk",
        "session",
        "position",
        "waiting",
        "reward_booked",
        "task_minimum",
        "reward_cents",
        "hit__tier",
        "hit__hit_type",
        "campaign__task_cents",
    ):
        if not row["waiting"]:
            continue
        if not row["reward_booked"] and row["session"] not in rewarded:
            rewarded.add(row["session"])
            add(row["hit__tier"], row["reward_cents"])
        if row["position"] > row["task_minimum"]:
            add(row["hit__tier"], task_cents(row))
    return pending
