"""The admins' pages: the qualification queue, one worker's panel, reviewing descriptions,
the ledger, the audit log and the collection's dashboards.

Security behaviour, for every view here: staff only (a visitor is sent to log in, others get 403);
every change is a POST protected by Django's CSRF middleware, needs a reason, and is written
to the audit log by the service that makes it. Worker-typed text is escaped by the templates.
"""

import csv
import uuid
from datetime import timedelta
from urllib.parse import urlencode

from django.conf import settings
from django.contrib import messages
from django.core.paginator import Paginator
from django.db.models import Count, Q, Sum
from django.db.models.functions import Coalesce
from django.http import HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST

from annotations.review import worker_suggestions_kept
from annotations.trial import trial_answers
from collector import services
from collector.models import Description
from collector.selectors import typing_summary
from crowd import services as crowd
from crowd.access import staff_required
from crowd.models import AuditEntry, Qualification, Tier, Worker
from paracrowd.spreadsheets import spreadsheet_cell

from . import reports
from .forms import (
    BonusForm,
    DescriptionFilterForm,
    PayoutForm,
    PeriodForm,
    QueueFilterForm,
    ReviewForm,
    StandingForm,
)
from .models import OverviewReport
from .review_pages import decision_messages, query_without_page
from .services import overview_report_request
from .worker_signals import SIGNALS

QUEUE_PAGE = 50
DESCRIPTIONS_PAGE = 100
SAMPLE = 10
# The worker panel lists this many of their latest ledger entries.
PAYMENTS = 20
# Offered as the reason for a decision; any other reason may be typed.
STANDING_REASONS = [
    "Good grammar and spelling in a sample of their work.",
    "Writes in a language other than English; quality cannot be checked.",
    "Pastes the same sentence on different videos.",
    "Too many spelling and grammar errors.",
    "Descriptions do not match the videos.",
    "Submits faster than the videos play.",
]
REVIEW_REASONS = [
    "Thank you: a clear one-sentence description of the main action.",
    "Does not describe the main action in the video.",
    "Not a complete sentence.",
    "The same text was submitted for other videos.",
    "Not written in the language declared.",
]


@staff_required
def overview(request):
    """The collection at a glance, as last computed for the period: Table 1, activity per
    day, segments at their target, with when and how fast it was computed. A period never
    computed is queued for a Celery worker; the page itself scans no descriptions."""
    form = PeriodForm(request.GET or None)
    period = form.period
    report = OverviewReport.objects.filter(since=period.since, until=period.until).first()
    if report is None:
        report = overview_report_request(period=period)
    figures = report.result
    context = {
        "form": form,
        "period": period,
        "report": report,
        "table": figures["table"] if figures else [],
        "activity": {
            **reports.activity_charts(figures["activity"]),
            "totals": figures["activity"]["totals"],
        }
        if figures
        else None,
        "hits": figures["hits"] if figures else [],
    }
    return render(request, "review/overview.html", context)


@require_POST
@staff_required
def overview_refresh(request):
    """Queue the overview of the period to be computed again."""
    form = PeriodForm(request.POST)
    if not form.is_valid():
        for errors in form.errors.values():
            messages.error(request, " ".join(errors))
        return redirect("review:overview")
    report = overview_report_request(period=form.period)
    messages.success(request, f"Overview {report.state}: reload to see it when computed.")
    query = urlencode({k: v for k, v in request.POST.items() if k in ("since", "until") and v})
    return redirect(f"{reverse('review:overview')}?{query}" if query else "review:overview")


@staff_required
def queue(request):
    """Tier-1 workers ranked by submissions, with their signals; filters by language, period
    and signal."""
    form = QueueFilterForm(request.GET or None)
    workers = reports.qualification_queue(
        period=form.period,
        language=form.value("language").strip().lower(),
        signal=form.value("signal"),
        include_blocked=bool(form.value("blocked", False)),
    )
    page = Paginator(workers, QUEUE_PAGE).get_page(request.GET.get("page"))
    context = {
        "form": form,
        "page": page,
        "signals": SIGNALS,
        "query": query_without_page(request),
    }
    return render(request, "review/queue.html", context)


@staff_required
def worker(request, pk):
    """One worker: signals with their explanations and examples, a random sample and the
    worst-scored of their descriptions, their history, and the forms to decide."""
    return _worker_page(request, pk)


@require_POST
@staff_required
def standing(request, pk):
    """Promote, demote, block or unblock a worker, with a reason."""
    worker = get_object_or_404(Worker, pk=pk)
    form = StandingForm(request.POST)
    if not form.is_valid():
        return _worker_page(request, pk, standing_form=form)
    action, reason = form.cleaned_data["action"], form.cleaned_data["reason"]
    if action == "promote" and worker.current_tier == Tier.TWO:
        messages.info(request, f"{worker} is already in Tier 2.")
        return redirect("review:worker", pk)
    try:
        if action == "promote":
            crowd.qualification_grant(
                worker=worker, tier=Tier.TWO, granted_by=request.user, reason=reason
            )
        elif action == "demote":
            crowd.qualification_revoke(
                worker=worker, tier=Tier.TWO, revoked_by=request.user, reason=reason
            )
        elif action in ("grant_alignment", "revoke_alignment"):
            _alignment_access(worker, action, request.user, reason)
        elif action == "block":
            crowd.worker_block(worker=worker, blocked_by=request.user, reason=reason)
        else:
            crowd.worker_unblock(worker=worker, unblocked_by=request.user, reason=reason)
    except services.WorkRefused as refusal:
        messages.error(request, str(refusal))
    else:
        messages.success(request, f"{StandingForm.ACTIONS[action]}: done for {worker}.")
    return redirect("review:worker", pk)


@require_POST
@staff_required
def bonus(request, pk):
    """Pay a worker a bonus, with a reason the worker sees; a form sent twice pays once."""
    worker = get_object_or_404(Worker, pk=pk)
    form = BonusForm(request.POST)
    if not form.is_valid():
        return _worker_page(request, pk, bonus_form=form)
    _, created = crowd.bonus_pay(
        worker=worker,
        amount_cents=form.amount_cents,
        reason=form.cleaned_data["reason"],
        paid_by=request.user,
        token=form.cleaned_data["token"],
    )
    if created:
        messages.success(request, f"Bonus of ${form.cleaned_data['amount']} paid to {worker}.")
    else:
        messages.info(request, "That bonus had already been paid; it was paid once.")
    return redirect("review:worker", pk)


def _alignment_access(worker, action, staff, reason) -> None:
    kind = Qualification.Kind.ALIGNMENT
    if action == "grant_alignment":
        crowd.qualification_grant(worker=worker, kind=kind, granted_by=staff, reason=reason)
    else:
        crowd.qualification_revoke(worker=worker, kind=kind, revoked_by=staff, reason=reason)


def _worker_page(request, pk, *, standing_form=None, bonus_form=None):
    """The worker panel; a form sent back with errors is shown with them, status 400."""
    worker = get_object_or_404(Worker.objects.with_tier().select_related("user", "signals"), pk=pk)
    signals = getattr(worker, "signals", None)
    descriptions = worker.descriptions.select_related("segment", "score")
    qualifications = list(
        Qualification.objects.filter(worker=worker)
        .select_related("granted_by", "revoked_by")
        .order_by("-granted_at")
    )
    context = {
        "worker": worker,
        "signals": _signal_rows(signals, _signal_examples(signals)),
        "stored": signals,
        "random_sample": descriptions.order_by("?")[:SAMPLE],
        "worst": descriptions.filter(score__bleu__isnull=False).order_by("score__bleu", "pk")[
            :SAMPLE
        ],
        "counts": {
            row["status"]: row["n"]
            for row in worker.descriptions.values("status").annotate(n=Count("id")).order_by()
        },
        "history": AuditEntry.objects.filter(worker=worker)
        .select_related("actor")
        .order_by("-at", "-pk")[:50],
        "qualifications": qualifications,
        "trial_answers": trial_answers(worker=worker),
        "typing": typing_summary(worker),
        "suggestions": worker_suggestions_kept(worker=worker),
        "gold": crowd.quality_standing(worker=worker),
        "gold_checks": worker.quality_checks.filter(kind="gold").order_by("-at", "-pk")[:SAMPLE],
        "earnings": worker.ledger_entries.aggregate(
            total=Coalesce(Sum("amount_cents"), 0),
            unpaid=Coalesce(Sum("amount_cents", filter=Q(payout__isnull=True)), 0),
        ),
        "payments": worker.ledger_entries.select_related("platform_payment").order_by(
            "-created_at", "-pk"
        )[:PAYMENTS],
        "standing_forms": _standing_forms(worker, standing_form, qualifications),
        "bonus_form": bonus_form or BonusForm(initial={"token": uuid.uuid4().hex}),
        "reasons": STANDING_REASONS,
    }
    status = 400 if standing_form or bonus_form else 200
    return render(request, "review/worker.html", context, status=status)


@staff_required
def descriptions(request):
    """Descriptions to review (pending by default), with filters; POST accepts or rejects
    the ticked ones with a reason the workers see."""
    review_form = None
    if request.method == "POST":
        review_form = ReviewForm(request.POST, ids=request.POST.getlist("description"))
        if review_form.is_valid():
            outcome = services.descriptions_review(
                description_ids=review_form.cleaned_data["description"],
                status=review_form.cleaned_data["decision"],
                reviewed_by=request.user,
                reason=review_form.cleaned_data["reason"],
            )
            decision_messages(request, outcome, accepted=review_form.accept)
            return redirect(request.get_full_path())
    filters = DescriptionFilterForm(request.GET or {"status": Description.Status.PENDING})
    found = Description.objects.select_related("worker__user", "segment", "score").order_by(
        "created_at", "pk"
    )
    if filters.is_valid():
        data = filters.cleaned_data
        found = found.filter(filters.period.q("created_at"))
        for name, lookup in (("status", "status"), ("worker", "worker_id"), ("tier", "tier")):
            if data.get(name) not in (None, ""):
                found = found.filter(**{lookup: data[name]})
        if data.get("language"):
            found = found.filter(language=data["language"].strip())
    page = Paginator(found, DESCRIPTIONS_PAGE).get_page(request.GET.get("page"))
    context = {
        "filters": filters,
        "page": page,
        "review_form": review_form or ReviewForm(),
        "reasons": REVIEW_REASONS,
        "query": query_without_page(request),
    }
    return render(request, "review/descriptions.html", context, status=400 if review_form else 200)


@staff_required
def ledger(request):
    """Totals per worker and per period, the cost with the platform's fee, and payouts."""
    form = PeriodForm(request.GET or None)
    period = form.period
    page = Paginator(reports.ledger_totals(period=period), 100).get_page(request.GET.get("page"))
    context = {
        "form": form,
        "page": page,
        "summary": reports.ledger_summary(period=period),
        "estimate": reports.cost_estimate(),
        "payout_form": PayoutForm(),
        "fee_percent": settings.PLATFORM_FEE_PERCENT,
        "fee_minimum": settings.PLATFORM_FEE_MINIMUM_CENTS,
        "query": query_without_page(request),
    }
    return render(request, "review/ledger.html", context)


@staff_required
def ledger_csv(request):
    """What each worker is owed (unpaid credits in the period), as CSV for paying."""
    form = PeriodForm(request.GET or None)
    rows = reports.ledger_totals(period=form.period).filter(unpaid_cents__gt=0)
    response = HttpResponse(content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = 'attachment; filename="paracrowd-payments.csv"'
    writer = csv.writer(response)
    writer.writerow(
        ["worker_id", "username", "platform", "external_id", "entries", "amount_cents", "amount"]
    )
    for worker in rows.iterator(chunk_size=2000):
        writer.writerow(
            [
                worker.pk,
                spreadsheet_cell(worker.user.get_username()),
                worker.platform,
                spreadsheet_cell(worker.external_id),
                worker.entries,
                worker.unpaid_cents,
                f"{worker.unpaid_cents // 100}.{worker.unpaid_cents % 100:02d}",
            ]
        )
    return response


@require_POST
@staff_required
def payout(request):
    """Record that everything unpaid up to a day has been paid."""
    form = PayoutForm(request.POST)
    if form.is_valid():
        next_day = reports.since_start(form.cleaned_data["through"] + timedelta(days=1))
        recorded = crowd.payout_record(
            through=next_day - timedelta(microseconds=1),
            paid_by=request.user,
            reason=form.cleaned_data["reason"],
        )
        if recorded:
            messages.success(request, f"Recorded a payout of {recorded.total_cents} cents.")
        else:
            messages.info(request, "Nothing was unpaid up to that day.")
    else:
        for field, errors in form.errors.items():
            messages.error(request, f"{form.fields[field].label}: {' '.join(errors)}")
    return redirect("review:ledger")


@staff_required
def audit(request):
    """The audit log, newest first; filter by worker or action."""
    entries = AuditEntry.objects.select_related("actor", "worker__user").order_by("-at", "-pk")
    action = request.GET.get("action", "")
    if action in AuditEntry.Action.values:
        entries = entries.filter(action=action)
    worker_id = request.GET.get("worker", "")
    if worker_id.isdecimal() and len(worker_id) < 19:  # a bigint, whatever was typed
        entries = entries.filter(worker_id=int(worker_id))
    page = Paginator(entries, 100).get_page(request.GET.get("page"))
    context = {
        "page": page,
        "actions": AuditEntry.Action.choices,
        "action": action,
        "worker_id": worker_id,
        "query": query_without_page(request),
    }
    return render(request, "review/audit.html", context)


def _standing_forms(worker, sent=None, qualifications=()):
    """The decisions open to this worker, each a form; ``sent`` is one that came back."""
    actions = ["demote" if worker.tier == Tier.TWO else "promote"]
    aligns = any(
        q.kind == Qualification.Kind.ALIGNMENT and q.revoked_at is None for q in qualifications
    )
    actions.append("revoke_alignment" if aligns else "grant_alignment")
    actions.append("unblock" if worker.blocked_at else "block")
    forms = []
    for action in actions:
        form = StandingForm(initial={"action": action})
        if sent is not None and sent.data.get("action") == action:
            form = sent
        forms.append((action, StandingForm.ACTIONS[action], form))
    return forms


def _signal_examples(signals) -> dict[int, Description]:
    if signals is None:
        return {}
    ids = {
        example["id"]
        for detail in signals.details.values()
        for example in detail.get("examples", [])
    }
    return Description.objects.select_related("segment", "score").in_bulk(ids)


# Signals whose examples' notes are a score as it stood when the signals were computed; each
# example shows its description's current score, so the stored one would sit beside it, stale.
SCORED_NOTES = frozenset({"bleu", "pinc"})


def _signal_rows(signals, examples):
    if signals is None:
        return []
    return [
        {
            "key": key,
            "label": label,
            "flagged": key in signals.flags,
            "explanation": signals.details.get(key, {}).get("explanation", ""),
            "examples": [
                (examples[example["id"]], "" if key in SCORED_NOTES else example["note"])
                for example in signals.details.get(key, {}).get("examples", [])
                if example["id"] in examples
            ],
        }
        for key, label in SIGNALS.items()
    ]
