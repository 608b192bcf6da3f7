"""Quality checks of a worker's work and the rules that act on them.

Any check feeds the same record: ``quality_check_record`` stores one passed or failed check of
some ``kind`` ("gold" for gold items; a new kind needs nothing but its name) and applies the
staff's rule for that kind at once: warn the worker after ``warn_after`` failures among their
last ``window`` checks of the kind, stop handing them work after ``stop_after``. Both are
audit-logged; a stop is a block by the automatic rule, which staff lift by unblocking the
worker, and checks made before that no longer count.

Gold items (``GoldItem``) are made here from an item whose right answer is known; how an
answer is compared with it belongs to the app that knows the kind of work (``review.gold``).
"""

from dataclasses import dataclass
from datetime import UTC, datetime

from django.db import IntegrityError, transaction
from django.db.models import Count, Exists, F, OuterRef, Subquery, Value
from django.db.models.functions import Coalesce
from django.utils import timezone

from ..models import (
    Assignment,
    AuditEntry,
    GoldItem,
    Hit,
    HitType,
    Item,
    QualityCheck,
    QualityRule,
    Tier,
    Worker,
)
from .errors import WorkRefused
from .workers import audit_record, worker_block

GOLD = "gold"
# A gold item is answered once by every worker who meets it; its HITs' targets only keep the
# "never over target" constraint meaningful.
GOLD_ANSWERS_PER_HIT = 100_000
# What a stop by the rule is recorded with, so pages can tell it from a block by staff.
RULE = "quality"
EPOCH = datetime(2000, 1, 1, tzinfo=UTC)


# Rules ---------------------------------------------------------------------------------------


def quality_rule(kind: str) -> QualityRule:
    """The staff's rule for checks of ``kind``; the defaults (warn after 2 failures, stop
    after 5, among the last 10) until staff have saved one."""
    return QualityRule.objects.filter(check_kind=kind).first() or QualityRule(check_kind=kind)


# Recording -----------------------------------------------------------------------------------


def quality_check_record(
    *,
    worker: Worker,
    kind: str,
    source: str,
    passed: bool,
    score: float | None = None,
    details: dict | None = None,
    assignment: Assignment | None = None,
) -> QualityCheck:
    """Record that ``worker``'s work named ``source`` passed or failed the check ``kind``, and
    apply the rule for ``kind`` (``quality_rules_apply``).

    - ``kind``: the check's name, e.g. ``"gold"``; any short non-empty name starts a new kind,
      with its own rule (``QualityRule.check_kind``, the defaults until staff save one).
    - ``source``: what was checked, e.g. ``"assignment:12"`` or ``"description:40"``; one
      check per (kind, source): recording it again returns the first record unchanged (a task
      run twice, a reload) and applies nothing twice.
    - ``score``: the figure it was judged on (an F1, a BLEU), shown to staff; optional.
    - ``details``: a small JSON-able dict of what a reviewer needs to see why.
    - ``assignment``: the task checked, when there is one.

    Returns the stored check. Safe under concurrency; the check and whatever the rule does
    (a warning, a stop, each audit-logged) are committed together.
    """
    if not kind.strip() or len(kind) > 30:
        raise ValueError("a check kind is a short non-empty name")
    try:
        with transaction.atomic():
            check = QualityCheck.objects.create(
                worker=worker,
                kind=kind,
                source=source,
                assignment=assignment,
                passed=passed,
                score=score,
                details=details or {},
            )
            quality_rules_apply(worker=worker, kind=kind)
            return check
    except IntegrityError:
        return QualityCheck.objects.get(kind=kind, source=source)


@dataclass(frozen=True)
class CheckStanding:
    """Where a worker stands with one kind of check."""

    kind: str
    answered: int
    passed: int
    # The last ``window`` results counted by the rule, oldest first (True: passed).
    recent: tuple[bool, ...]
    failures: int  # among ``recent``
    rule: QualityRule
    warned: bool
    stopped: bool

    @property
    def failed(self) -> int:
        return self.answered - self.passed

    @property
    def pass_rate(self) -> float | None:
        return self.passed / self.answered if self.answered else None

    @property
    def recent_pass_rate(self) -> float | None:
        return sum(self.recent) / len(self.recent) if self.recent else None

    @property
    def trend(self) -> str:
        """ "better", "worse" or "steady": the recent pass rate against the overall one."""
        if self.recent_pass_rate is None or len(self.recent) == self.answered:
            return "steady"
        difference = self.recent_pass_rate - self.pass_rate
        return "better" if difference > 0.1 else "worse" if difference < -0.1 else "steady"


def quality_standing(*, worker: Worker, kind: str = GOLD) -> CheckStanding:
    """``worker``'s checks of ``kind``: how many answered and passed, the recent results the
    rule counts (since staff last lifted a stop), and whether it warns or stops them now."""
    rule = quality_rule(kind)
    checks = QualityCheck.objects.filter(worker=worker, kind=kind)
    totals = list(checks.values_list("passed", flat=True))
    lifted = _last_lift(worker)
    counted = checks.filter(at__gt=lifted) if lifted else checks
    latest = counted.order_by("-at", "-pk").values_list("passed", flat=True)[: rule.window]
    recent = tuple(reversed(latest))
    failures = recent.count(False)
    return CheckStanding(
        kind=kind,
        answered=len(totals),
        passed=sum(totals),
        recent=recent,
        failures=failures,
        rule=rule,
        warned=bool(rule.warn_after) and failures >= rule.warn_after,
        stopped=_stopped_by_rule(worker),
    )


def quality_rules_apply(*, worker: Worker, kind: str) -> CheckStanding:
    """Apply the rule for ``kind`` to ``worker`` now: a warning (once until staff lift a stop)
    when their recent failures reach ``warn_after``; a stop (a block by the automatic rule)
    when they reach ``stop_after``. Both audit-logged with the figures. A worker already
    blocked, by staff or the rule, is left as they are."""
    with transaction.atomic():
        # One worker's checks are applied one at a time, so a warning is written once.
        Worker.objects.select_for_update(no_key=True).filter(pk=worker.pk).get()
        standing = quality_standing(worker=worker, kind=kind)
        rule, figures = standing.rule, _figures(standing)
        if standing.warned and not _warned_since_lift(worker, kind):
            audit_record(
                actor=None,
                action=AuditEntry.Action.WARN,
                worker=worker,
                reason=f"Automatic rule: {figures}; warned after {rule.warn_after}.",
                details={"rule": RULE, "kind": kind, "failures": standing.failures},
            )
        blocked = Worker.objects.filter(pk=worker.pk, blocked_at__isnull=False).exists()
        if rule.stop_after and standing.failures >= rule.stop_after and not blocked:
            worker_block(
                worker=worker,
                blocked_by=None,
                reason=f"Automatic rule: {figures}; stopped after {rule.stop_after}.",
                details={"rule": RULE, "kind": kind, "failures": standing.failures},
            )
            standing = quality_standing(worker=worker, kind=kind)
    return standing


def _figures(standing: CheckStanding) -> str:
    return f"{standing.failures} of the last {len(standing.recent)} {standing.kind} checks failed"


def _last_lift(worker: Worker):
    """When staff last unblocked the worker: checks before it no longer count."""
    return (
        AuditEntry.objects.filter(worker=worker, action=AuditEntry.Action.UNBLOCK)
        .order_by("-at")
        .values_list("at", flat=True)
        .first()
    )


def _warned_since_lift(worker: Worker, kind: str) -> bool:
    warnings = AuditEntry.objects.filter(
        worker=worker, action=AuditEntry.Action.WARN, details__kind=kind
    )
    lifted = _last_lift(worker)
    return (warnings.filter(at__gt=lifted) if lifted else warnings).exists()


def _stopped_by_rule(worker: Worker) -> bool:
    """Blocked now, and the block was the automatic rule's."""
    if not Worker.objects.filter(pk=worker.pk, blocked_at__isnull=False).exists():
        return False
    block = (
        AuditEntry.objects.filter(worker=worker, action=AuditEntry.Action.BLOCK)
        .order_by("-at", "-pk")
        .first()
    )
    return block is not None and block.details.get("rule") == RULE


def quality_stop_message(worker: Worker) -> str | None:
    """What a worker stopped by the rule is told when they ask for work; None for anyone
    else."""
    return STOP_MESSAGE if _stopped_by_rule(worker) else None


# One wording for every kind of check: gold answers, texts not typed by the worker, and
# suggested alignments sent back unchanged.
STOP_MESSAGE = (
    "Too many of your recent answers did not pass our checks (they did not match what the "
    "tasks asked for, the text was pasted rather than typed, or a suggested alignment was sent "
    "back unchanged), so no new tasks are "
    "handed out to you for now. Staff will look at your work; work you already submitted is "
    "still reviewed and paid."
)
WARNING_MESSAGE = (
    "Careful: several of your recent answers did not pass our checks: they did not match what "
    "the task asked for, the text was pasted rather than typed, or a suggested alignment was "
    "sent back unchanged. Read the instructions of each task again, write in your own words "
    "and correct the suggested links; if this goes on, no more tasks will be "
    "handed out to you."
)


def quality_notice(worker: Worker) -> str | None:
    """What the worker's own pages tell them of the rules, in one query: why they are
    stopped, that they were warned by any kind of check (since staff last lifted a stop), or
    nothing."""
    shown = (
        workers_with_quality(Worker.objects.filter(pk=worker.pk))
        .values("blocked_at", "quality_block_rule", "quality_warned")
        .first()
    )
    if shown is None:
        return None
    if shown["blocked_at"] and shown["quality_block_rule"] == RULE:
        return STOP_MESSAGE
    if shown["quality_warned"] and not shown["blocked_at"]:
        return WARNING_MESSAGE
    return None


def workers_with_quality(workers, kind: str = GOLD):
    """``workers`` (a queryset) annotated, for lists of many workers in one query, with their
    checks of ``kind``: ``quality_answered``, ``quality_passed``, ``quality_warned`` (warned
    by the rule of any kind of check since staff last lifted a stop) and
    ``quality_block_rule`` ("quality" when their last block was the rule's: with
    ``blocked_at``, they are stopped by it)."""
    checks = QualityCheck.objects.filter(worker=OuterRef("pk"), kind=kind).order_by()
    audit = AuditEntry.objects.filter(worker=OuterRef("pk"))
    last_lift = audit.filter(action=AuditEntry.Action.UNBLOCK).order_by("-at").values("at")[:1]
    last_block = audit.filter(action=AuditEntry.Action.BLOCK).order_by("-at", "-pk")

    def counted(rows):
        return Coalesce(Subquery(rows.values("worker").annotate(n=Count("pk")).values("n")), 0)

    return workers.annotate(
        quality_answered=counted(checks),
        quality_passed=counted(checks.filter(passed=True)),
        quality_last_lift=Subquery(last_lift),
        quality_block_rule=Subquery(last_block.values("details__rule")[:1]),
    ).annotate(
        quality_warned=Exists(
            audit.filter(
                action=AuditEntry.Action.WARN,
                details__rule=RULE,
                at__gt=Coalesce(OuterRef("quality_last_lift"), Value(EPOCH)),
            )
        )
    )


# Gold items ----------------------------------------------------------------------------------


def gold_item_create(*, item: Item, answer: dict, source: str, created_by) -> GoldItem:
    """Make ``item`` a gold item with ``answer`` as its known answer (replacing the answer if
    it is gold already), made from the work ``source``. Its HITs in both tiers (opened if
    missing) take every worker once from now on; answers given before are kept."""
    hit_type = HitType.objects.for_kind(item.kind)
    with transaction.atomic():
        gold, created = GoldItem.objects.get_or_create(
            item=item,
            defaults={
                "kind": item.kind,
                "answer": answer,
                "source": source,
                "created_by": created_by,
            },
        )
        if not created:
            gold.answer, gold.source, gold.retired_at = answer, source, None
            gold.save(update_fields=["answer", "source", "retired_at"])
        Hit.objects.bulk_create(
            [
                Hit(hit_type=hit_type, tier=tier, item=item, max_assignments=GOLD_ANSWERS_PER_HIT)
                for tier in Tier.values
            ],
            ignore_conflicts=True,
        )
        Hit.objects.filter(item=item, hit_type=hit_type).update(
            max_assignments=GOLD_ANSWERS_PER_HIT
        )
    return gold


def gold_item_retire(*, gold_id: int) -> GoldItem:
    """Stop handing out gold item ``gold_id``: its HITs close at the answers they have.
    Answers already checked keep their checks."""
    with transaction.atomic():
        gold = GoldItem.objects.select_for_update().live().filter(pk=gold_id).first()
        if gold is None:
            raise WorkRefused("That is not a gold item in use.")
        gold.retired_at = timezone.now()
        gold.save(update_fields=["retired_at"])
        Hit.objects.filter(item_id=gold.item_id).update(max_assignments=F("submitted_count"))
    return gold


def gold_for_assignment(assignment: Assignment) -> GoldItem | None:
    """The live gold item ``assignment`` offered, if it offered one."""
    return GoldItem.objects.live().filter(item__hits__assignments=assignment).first()
