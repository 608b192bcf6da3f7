"""What the review pages show, each as a fixed number of queries whatever the corpus size:
the qualification queue, the study's Table 1, daily activity, and the ledger's totals."""

from dataclasses import dataclass
from datetime import date, datetime, time, timedelta

from django.conf import settings
from django.db import connection
from django.db.models import Count, Exists, F, OuterRef, Q, Sum
from django.db.models.functions import Coalesce, TruncDate, TruncMonth
from django.utils import timezone

from collector.models import Description, Segment
from crowd import services as crowd
from crowd.models import Hit, HitType, LedgerEntry, Qualification, Tier, Worker
from crowd.services import fee_on, ledger_fee
from paracrowd.charts import grouped_bars

ENGLISH = Q(language="en") | Q(language__startswith="en-")


@dataclass(frozen=True)
class Period:
    """Whole days, ``since`` and ``until`` included; either may be open."""

    since: date | None = None
    until: date | None = None

    def bounds(self):
        start = since_start(self.since) if self.since else None
        end = since_start(self.until + timedelta(days=1)) if self.until else None
        return start, end

    def q(self, field: str) -> Q:
        start, end = self.bounds()
        q = Q()
        if start:
            q &= Q(**{f"{field}__gte": start})
        if end:
            q &= Q(**{f"{field}__lt": end})
        return q

    @property
    def is_open(self) -> bool:
        return self.since is None and self.until is None


def since_start(day: date) -> datetime:
    return datetime.combine(day, time.min, tzinfo=timezone.get_current_timezone())


def qualification_queue(
    *,
    period: Period | None = None,
    language: str = "",
    signal: str = "",
    include_blocked: bool = False,
) -> "RankedWorkers":
    """Tier-1 workers with submissions in the period, the most prolific first, with their
    signals; for a Paginator. Ranking is one aggregate over the narrow description rows; the
    page's workers are then loaded with their accounts and signals: three queries in all,
    however many workers and descriptions there are."""
    period = period or Period()
    # NOT EXISTS rather than with_tier()'s CASE: the planner estimates an anti-join well.
    tier2 = Qualification.objects.active().filter(worker=OuterRef("pk"), tier=Tier.TWO)
    eligible = Worker.objects.exclude(Exists(tier2))
    if not include_blocked:
        eligible = eligible.filter(blocked_at__isnull=True)
    if language:
        eligible = eligible.filter(signals__languages__contains=[language])
    if signal == "any":
        eligible = eligible.exclude(signals__flags=[]).filter(signals__isnull=False)
    elif signal == "none":
        eligible = eligible.filter(signals__flags=[])
    elif signal:
        eligible = eligible.filter(signals__flags__contains=[signal])
    in_period = Description.objects.filter(period.q("created_at"))
    ranking = (
        in_period.filter(worker__in=eligible.values("pk"))
        .values("worker")
        .annotate(submitted=Count("id"))
        .order_by("-submitted", "worker")
    )
    # Counting the ranked workers needs no counting of descriptions: one probe each.
    ranked = eligible.filter(Exists(in_period.filter(worker=OuterRef("pk"))))
    return RankedWorkers(ranking, ranked)


class RankedWorkers:
    """Workers in the order of a ranking of (worker, submitted) rows, loaded a page at a time
    (Paginator counts it and slices it)."""

    def __init__(self, ranking, ranked):
        self.ranking, self.ranked = ranking, ranked

    def count(self) -> int:
        return self.ranked.count()

    def __len__(self) -> int:
        return self.count()

    def __getitem__(self, index):
        if not isinstance(index, slice):
            return self[index : index + 1][0]
        rows = list(self.ranking[index])
        loaded = crowd.workers_with_quality(Worker.objects.select_related("user", "signals"))
        workers = loaded.in_bulk([row["worker"] for row in rows])
        page = []
        for row in rows:
            worker = workers[row["worker"]]
            worker.submitted = row["submitted"]
            page.append(worker)
        return page


def table_one(*, period: Period | None = None) -> list[dict]:
    """The study's Table 1, per tier: pay, workers, descriptions submitted and accepted, in
    English and in total. Imported descriptions without a tier are left out."""
    period = period or Period()
    hit_type = HitType.objects.for_kind(HitType.Kind.DESCRIPTION)
    accepted = Q(status=Description.Status.ACCEPTED)
    rows = (
        Description.objects.filter(period.q("created_at"), tier__isnull=False)
        .values("tier")
        .annotate(
            workers=Count("worker", distinct=True),
            workers_english=Count("worker", distinct=True, filter=ENGLISH),
            submitted=Count("id"),
            submitted_english=Count("id", filter=ENGLISH),
            accepted=Count("id", filter=accepted),
            accepted_english=Count("id", filter=accepted & ENGLISH),
        )
        .order_by("tier")
    )
    found = {row["tier"]: row for row in rows}
    empty = dict.fromkeys(
        [
            "workers",
            "workers_english",
            "submitted",
            "submitted_english",
            "accepted",
            "accepted_english",
        ],
        0,
    )
    return [
        {"tier": tier, "pay_cents": hit_type.pay_cents(tier), **empty, **found.get(tier, {})}
        for tier in Tier.values
    ]


def days_of(period: Period, default_days: int = 30) -> list[date]:
    today = timezone.localdate()
    until = period.until or today
    since = period.since or until - timedelta(days=default_days - 1)
    return [since + timedelta(days=n) for n in range((until - since).days + 1)][-366:]


def daily_activity(*, period: Period | None = None) -> dict:
    """Descriptions per day per tier, active workers per day, and segments reaching their
    target per day per tier, over the period (by default the last 30 days): day labels and,
    per chart, its series of daily counts (JSON, for the overview report; see
    ``activity_charts``)."""
    days = days_of(period or Period())
    window = Period(days[0], days[-1])
    per_tier = {tier: dict.fromkeys(days, 0) for tier in Tier.values}
    active = dict.fromkeys(days, 0)
    rows = (
        Description.objects.filter(window.q("created_at"), tier__isnull=False)
        .annotate(day=TruncDate("created_at"))
        .values("day", "tier")
        .annotate(n=Count("id"), workers=Count("worker", distinct=True))
        .order_by()
    )
    for row in rows:
        per_tier[row["tier"]][row["day"]] = row["n"]
    workers = (
        Description.objects.filter(window.q("created_at"))
        .annotate(day=TruncDate("created_at"))
        .values("day")
        .annotate(n=Count("worker", distinct=True))
        .order_by()
    )
    for row in workers:
        active[row["day"]] = row["n"]
    reached = segments_reaching_target(window)
    return {
        "labels": [day.strftime("%m-%d") for day in days],
        "descriptions": {f"Tier {t}": list(per_tier[t].values()) for t in Tier.values},
        "workers": {"Workers": list(active.values())},
        "reached": {f"Tier {t}": [reached.get((day, t), 0) for day in days] for t in Tier.values},
        "totals": {
            "descriptions": sum(sum(values.values()) for values in per_tier.values()),
            "reached": sum(reached.values()),
        },
    }


ACTIVITY_CHARTS = {
    "descriptions": "Descriptions per day",
    "workers": "Active workers per day",
    "reached": "Segments reaching their target per day",
}


def activity_charts(activity: dict) -> dict:
    """The charts of ``daily_activity``'s counts, keyed as it is."""

    def chart(title, series):
        top = max((v for values in series.values() for v in values), default=0) or 1
        return grouped_bars(title, activity["labels"], series, top=top, value_format="{:.0f}")

    return {key: chart(title, activity[key]) for key, title in ACTIVITY_CHARTS.items()}


def collection_overview(*, period: Period | None = None) -> dict:
    """Everything the overview page shows, as JSON: Table 1, the daily activity and the
    description HITs at their target. Scans every description of the period: computed by a
    Celery worker into an overview report, never for a request."""
    return {
        "table": table_one(period=period),
        "activity": daily_activity(period=period),
        "hits": hits_at_target(),
    }


def segments_reaching_target(period: Period) -> dict[tuple[date, int], int]:
    """{(day, tier): HITs whose target-th description arrived that day}, for description HITs.
    The target-th description is found with a window function, in one query."""
    start, end = period.bounds()
    description, hit = Description._meta.db_table, Hit._meta.db_table
    segment = Segment._meta.db_table
    hit_type = HitType.objects.for_kind(HitType.Kind.DESCRIPTION)
    sql = f"""
        SELECT (ranked.created_at AT TIME ZONE %s)::date AS day, ranked.tier, count(*)
        FROM (
            SELECT d.created_at, d.tier, h.max_assignments,
                   row_number() OVER (PARTITION BY d.segment_id, d.tier ORDER BY d.created_at, d.id)
                   AS position
            FROM {description} d
            JOIN {segment} s ON s.id = d.segment_id
            JOIN {hit} h ON h.item_id = s.item_id AND h.tier = d.tier AND h.hit_type_id = %s
            WHERE d.assignment_id IS NOT NULL
        ) ranked
        WHERE ranked.position = ranked.max_assignments
          AND ranked.created_at >= %s AND ranked.created_at < %s
        GROUP BY 1, 2
    """  # noqa: S608 (table names from the models; values are parameters)
    with connection.cursor() as cursor:
        cursor.execute(sql, [settings.TIME_ZONE, hit_type.pk, start, end])
        return {(day, tier): n for day, tier, n in cursor.fetchall()}


def hits_at_target() -> list[dict]:
    """Per tier: description HITs open, and how many have all the descriptions they want."""
    rows = (
        Hit.objects.filter(hit_type__kind=HitType.Kind.DESCRIPTION)
        .values("tier")
        .annotate(
            total=Count("id"), full=Count("id", filter=Q(submitted_count__gte=F("max_assignments")))
        )
        .order_by("tier")
    )
    return list(rows)


# The ledger --------------------------------------------------------------------------------


def ledger_totals(*, period: Period | None = None):
    """Per worker with credits in the period: entries, task pay, bonuses, total, unpaid."""
    period = period or Period()

    def cents(condition=None):
        return Coalesce(Sum("ledger_entries__amount_cents", filter=condition), 0)

    # One filter() call: the sums run over the entries of the period only.
    return (
        Worker.objects.filter(period.q("ledger_entries__created_at"), ledger_entries__isnull=False)
        .annotate(
            entries=Count("ledger_entries"),
            task_cents=cents(Q(ledger_entries__kind=LedgerEntry.Kind.TASK)),
            bonus_cents=cents(Q(ledger_entries__kind=LedgerEntry.Kind.BONUS)),
            total_cents=cents(),
            unpaid_cents=cents(Q(ledger_entries__payout__isnull=True)),
        )
        .select_related("user")
        .order_by("-total_cents", "pk")
    )


def ledger_summary(*, period: Period | None = None) -> dict:
    """Totals over the period by kind and tier, and per month, with the platform's fee."""
    # The platforms' fees booked in the ledger are not credits; the fee column estimates them.
    entries = LedgerEntry.objects.earnings().filter((period or Period()).q("created_at"))
    by_kind = list(
        entries.values("kind", "tier")
        .annotate(n=Count("id"), cents=Sum("amount_cents"), fee=Sum(ledger_fee()))
        .order_by("kind", "tier")
    )
    by_month = list(
        entries.annotate(month=TruncMonth("created_at"))
        .values("month")
        .annotate(n=Count("id"), cents=Sum("amount_cents"), fee=Sum(ledger_fee()))
        .order_by("month")
    )
    paid = sum(row["cents"] for row in by_kind)
    fee = sum(row["fee"] for row in by_kind)
    return {
        "by_kind": by_kind,
        "by_month": by_month,
        "credited_cents": paid,
        "credited_fee_cents": fee,
        "unpaid_cents": entries.filter(payout__isnull=True).aggregate(
            cents=Coalesce(Sum("amount_cents"), 0)
        )["cents"],
    }


def cost_estimate() -> list[dict]:
    """What the collection costs: accepted work (in the ledger), work awaiting review, and
    what the open description HITs still want, each with the platform's fee (none on local
    sign-ups' work; what open HITs want is priced as a platform's, not knowing who takes it)."""
    hit_type = HitType.objects.for_kind(HitType.Kind.DESCRIPTION)
    credited = LedgerEntry.objects.earnings().aggregate(
        cents=Coalesce(Sum("amount_cents"), 0), fee=Coalesce(Sum(ledger_fee()), 0)
    )
    rows = [{"what": "Credited so far", "cents": credited["cents"], "fee": credited["fee"]}]
    pending = (
        Description.objects.filter(status=Description.Status.PENDING, assignment__isnull=False)
        .values("tier", platform=F("assignment__worker__platform"))
        .annotate(n=Count("id"))
        .order_by()
    )
    remaining = (
        Hit.objects.filter(hit_type=hit_type, submitted_count__lt=F("max_assignments"))
        .values("tier")
        .annotate(n=Sum(F("max_assignments") - F("submitted_count")))
        .order_by()
    )
    for what, counts in (("Awaiting review", pending), ("Still wanted by open HITs", remaining)):
        cents = fee = 0
        for row in counts:
            pay = hit_type.pay_cents(row["tier"])
            cents += pay * row["n"]
            fee += fee_on(pay, platform=row.get("platform")) * row["n"]
        rows.append({"what": what, "cents": cents, "fee": fee})
    rows.append(
        {
            "what": "Total",
            "cents": sum(r["cents"] for r in rows),
            "fee": sum(r["fee"] for r in rows),
        }
    )
    for row in rows:
        row["with_fee"] = row["cents"] + row["fee"]
    return rows
