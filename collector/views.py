"""Worker-facing pages: sign-up, dashboard, the video-description and video-collection tasks.

Security behaviour, for every view here: a worker sees and acts on their own assignments only
(another worker's assignment id answers 404); local pages need a login; pages for crowd-platform
workers authenticate each submission with a signed token bound to that worker and assignment.
"""

from functools import wraps

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth.decorators import login_required
from django.core import signing
from django.core.exceptions import ValidationError
from django.db.models import Count, Q, Sum
from django.db.models.functions import Coalesce
from django.http import Http404, HttpResponseForbidden, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.clickjacking import xframe_options_exempt
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_POST

from . import services
from .forms import DescriptionForm, ProposalForm, SignUpForm
from .models import (
    Assignment,
    Description,
    Hit,
    HitType,
    LedgerEntry,
    Qualification,
    SegmentProposal,
    Tier,
    Worker,
)
from .spans import LengthRule, format_time
from .validators import SECOND_SENTENCE, URL
from .youtube import parse_youtube_link

PREVIEW_ASSIGNMENT_ID = "ASSIGNMENT_ID_NOT_AVAILABLE"
PLATFORM_TOKEN_SALT = "collector.platform-task"  # noqa: S105 (a namespace, not a secret)
PLATFORM_TOKEN_MAX_AGE = 7 * 24 * 3600


def worker_required(view):
    """Logged in, with a worker profile; the view receives ``worker``."""

    @login_required
    @wraps(view)
    def wrapper(request, *args, **kwargs):
        worker = Worker.objects.filter(user=request.user).first()
        if worker is None:
            return HttpResponseForbidden("This account is not a worker account.")
        return view(request, *args, worker=worker, **kwargs)

    return wrapper


def home(request):
    """Anyone. Signed-in workers go to their dashboard."""
    if request.user.is_authenticated:
        return redirect("collector:dashboard")
    return render(request, "collector/home.html")


def signup(request):
    """Anyone may create a local worker account; they start in Tier 1."""
    form = SignUpForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        worker = services.worker_create(
            username=form.cleaned_data["username"],
            password=form.cleaned_data["password1"],
            email=form.cleaned_data["email"],
        )
        login(request, worker.user, backend="django.contrib.auth.backends.ModelBackend")
        return redirect("collector:dashboard")
    return render(request, "registration/signup.html", {"form": form})


@worker_required
def dashboard(request, worker):
    """A worker's own counts, earnings (from the ledger), bonuses, standing, recent work with
    review reasons, and the next-task buttons. Only their own data."""
    hit_type = HitType.for_kind(HitType.Kind.DESCRIPTION)
    alignment_type = HitType.for_kind(HitType.Kind.ALIGNMENT)
    collection_type = HitType.for_kind(HitType.Kind.VIDEO_COLLECTION)
    tier = worker.current_tier
    counts = dict.fromkeys(Description.Status.values, 0)
    earnings = {t: {"tier": t, "earned": 0, "pending": 0} for t in Tier.values}
    rows = worker.descriptions.values("tier", "status").annotate(n=Count("id")).order_by()
    for row in rows:
        counts[row["status"]] += row["n"]
        if row["status"] == Description.Status.PENDING and row["tier"]:
            earnings[row["tier"]]["pending"] += hit_type.pay_cents(row["tier"]) * row["n"]
    credited = (
        worker.ledger_entries.filter(kind=LedgerEntry.Kind.TASK)
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
        if row["status"] == SegmentProposal.Status.PENDING:
            earnings[row["tier"]]["pending"] += collection_type.pay_cents(row["tier"]) * row["n"]
    context = {
        "worker": worker,
        "tier": tier,
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
        "tiers": [(t, hit_type.pay_cents(t)) for t in reversed(Tier.values) if t <= tier],
        "alignment_tiers": [
            (t, alignment_type.pay_cents(t)) for t in reversed(Tier.values) if t <= tier
        ]
        if Hit.objects.filter(hit_type=alignment_type).exists()
        else [],
        "alignments": worker.alignments.count(),
        "proposal_tiers": [(t, collection_type.pay_cents(t)) for t in Tier.values if t <= tier],
        "proposals": proposals,
        "proposed": sum(proposals.values()),
        "recent_proposals": worker.proposals.order_by("-created_at")[:5],
        "recent": worker.descriptions.select_related("segment", "score").order_by("-created_at")[
            :10
        ],
    }
    return render(request, "collector/dashboard.html", context)


# Where each kind of task is done, and what runs out when there is none left.
TASK_PAGES = {
    HitType.Kind.DESCRIPTION: ("collector:describe", "segments to describe"),
    HitType.Kind.ALIGNMENT: ("annotations:align", "sentence pairs to align"),
    HitType.Kind.VIDEO_COLLECTION: ("collector:propose", "video-collection tasks"),
}


@require_POST
@worker_required
def task_next(request, worker):
    """Claim the next task of the kind and tier asked for (the worker must hold the tier)."""
    kind = request.POST.get("kind", HitType.Kind.DESCRIPTION)
    try:
        tier = int(request.POST.get("tier", Tier.ONE))
        if tier not in Tier.values or kind not in TASK_PAGES:
            raise ValueError
    except ValueError:
        messages.error(request, "There is no such task.")
        return redirect("collector:dashboard")
    page, items = TASK_PAGES[kind]
    try:
        assignment = services.assignment_claim(worker=worker, tier=tier, kind=kind)
    except services.WorkRefused as refusal:
        messages.error(request, str(refusal))
        return redirect("collector:dashboard")
    if assignment is None:
        messages.info(request, f"There are no Tier-{tier} {items} left for you. Thank you!")
        return redirect("collector:dashboard")
    return redirect(page, assignment.pk)


@worker_required
def describe(request, pk, worker):
    """The description task for the worker's own assignment ``pk``; POST submits it."""
    assignment = own_assignment(pk, worker, HitType.Kind.DESCRIPTION)
    form = DescriptionForm(request.POST or None)
    if request.method == "POST":
        result = _submit(request, assignment, worker, form)
        if result is not None:
            return redirect("collector:dashboard")
    return _render_task(request, assignment, form, action=reverse("collector:describe", args=[pk]))


@worker_required
def propose(request, pk, worker):
    """The video-collection task for the worker's own assignment ``pk``: find a YouTube video,
    mark a segment, say what happens. POST submits it for review."""
    assignment = own_assignment(pk, worker, HitType.Kind.VIDEO_COLLECTION)
    submitted = assignment.status == Assignment.Status.SUBMITTED
    if request.method == "POST":
        form = ProposalForm(request.POST)
    elif submitted:
        proposal = assignment.proposal
        messages.info(request, "You already submitted this segment; it is waiting for review.")
        form = ProposalForm(
            initial={
                "url": f"https://youtu.be/{proposal.youtube_id}",
                "start": format_time(proposal.start),
                "end": format_time(proposal.end),
                "event": proposal.event,
            }
        )
    else:
        form = ProposalForm()
    if request.method == "POST" and form.is_valid():
        try:
            _, created = services.proposal_submit(
                assignment_id=assignment.pk,
                worker=worker,
                youtube_id=form.cleaned_data["url"].video_id,
                start=form.cleaned_data["start"],
                end=form.cleaned_data["end"],
                event=form.cleaned_data["event"],
            )
        except services.WorkRefused as refusal:
            form.add_error(None, str(refusal))
        else:
            messages.success(
                request,
                "Thank you! Your segment was sent for review."
                if created
                else "You had already submitted this task; it was saved once.",
            )
            return redirect("collector:dashboard")
    hit = assignment.hit
    context = {
        "assignment": assignment,
        "hit": hit,
        "form": form,
        "submitted": submitted,
        "pay_cents": hit.hit_type.pay_cents(hit.tier),
        "rules": {
            **LengthRule.from_settings().as_json(),
            "videoLinkUrl": reverse("collector:video_link"),
        },
    }
    return render(request, "collector/propose.html", context)


@login_required
def video_link(request):
    """The video id and start time of a pasted YouTube link, as JSON, so that the marking tool
    loads the video the server will accept. Any signed-in user; it reads nothing stored."""
    try:
        link = parse_youtube_link(request.GET.get("url", ""))
    except ValidationError as error:
        return JsonResponse({"error": error.messages[0]}, status=400)
    start = float(link.start) if link.start is not None else None
    return JsonResponse({"videoId": link.video_id, "start": start, "url": link.url})


@require_POST
@worker_required
def skip(request, pk, worker):
    """Give the worker's own assignment back, without doing it."""
    try:
        services.assignment_return(assignment_id=own_assignment(pk, worker).pk, worker=worker)
    except services.WorkRefused as refusal:
        messages.error(request, str(refusal))
        return redirect("collector:dashboard")
    messages.info(request, "Skipped. You will not be shown that task again.")
    return redirect("collector:dashboard")


@xframe_options_exempt
@csrf_exempt  # the signed platform token, bound to worker and assignment, does CSRF's job
def platform_describe(request):
    """The task as a crowd platform's ExternalQuestion: anyone the platform sends may preview;
    an accepted platform assignment (workerId, assignmentId, hitId) gets a real task. This page
    alone may be framed, and only by the platforms in PLATFORM_FRAME_ANCESTORS."""
    params = request.POST if request.method == "POST" else request.GET
    submit_to = params.get("turkSubmitTo", "")
    if submit_to and submit_to.rstrip("/") not in settings.PLATFORM_FRAME_ANCESTORS:
        return _framed(HttpResponseForbidden("Unknown crowd platform."))
    if request.method == "POST":
        try:
            claims = signing.loads(
                params.get("token", ""), salt=PLATFORM_TOKEN_SALT, max_age=PLATFORM_TOKEN_MAX_AGE
            )
        except signing.BadSignature:
            return _framed(HttpResponseForbidden("This task link is not valid. Reload the HIT."))
        worker = get_object_or_404(Worker, pk=claims["worker"])
        assignment = own_assignment(claims["assignment"], worker, HitType.Kind.DESCRIPTION)
        form = DescriptionForm(request.POST)
        if _submit(request, assignment, worker, form) is not None:
            return _framed(
                render(
                    request,
                    "collector/platform_done.html",
                    {"assignment": assignment, "submit_to": submit_to},
                )
            )
        return _framed(
            _render_task(request, assignment, form, **_platform_fields(params, worker, assignment))
        )

    worker_id, external_assignment = params.get("workerId", ""), params.get("assignmentId", "")
    if not external_assignment or external_assignment == PREVIEW_ASSIGNMENT_ID or not worker_id:
        hit = (
            Hit.objects.filter(hit_type__kind=HitType.Kind.DESCRIPTION)
            .select_related("segment", "hit_type")
            .order_by("id")
            .first()
        )
        if hit is None:
            raise Http404("There are no segments to describe yet.")
        return _framed(
            render(
                request,
                "collector/describe.html",
                _task_context(hit, DescriptionForm(), preview=True),
            )
        )
    worker = services.worker_from_platform(platform=Worker.Platform.MTURK, external_id=worker_id)
    try:
        assignment = services.assignment_claim(
            worker=worker,
            tier=_tier_param(params),
            external_assignment_id=external_assignment,
            external_hit_id=params.get("hitId", ""),
        )
    except services.WorkRefused as refusal:
        return _framed(HttpResponseForbidden(str(refusal)))
    if assignment is None:
        return _framed(render(request, "collector/platform_done.html", {"nothing_left": True}))
    return _framed(
        _render_task(
            request, assignment, DescriptionForm(), **_platform_fields(params, worker, assignment)
        )
    )


def own_assignment(pk, worker, kind=None) -> Assignment:
    assignments = Assignment.objects.select_related(
        "hit__segment", "hit__sentence_pair", "hit__hit_type", "proposal"
    )
    if kind:
        assignments = assignments.filter(hit__hit_type__kind=kind)
    return get_object_or_404(assignments, pk=pk, worker=worker)


def _submit(request, assignment, worker, form):
    """Validate and store; on refusal, attach the reason to the form. None when not stored."""
    if not form.is_valid():
        return None
    try:
        description, created = services.description_submit(
            assignment_id=assignment.pk,
            worker=worker,
            text=form.cleaned_data["text"],
            language=form.declared_language,
            comment=form.cleaned_data["comment"],
        )
    except services.WorkRefused as refusal:
        form.add_error(None, str(refusal))
        return None
    if created:
        messages.success(request, "Thank you! Your description was saved.")
    else:
        messages.info(request, "You had already submitted this task; it was saved once.")
    return description


def _task_context(hit, form, *, assignment=None, preview=False, action="", hidden=None):
    return {
        "hit": hit,
        "segment": hit.segment,
        "assignment": assignment,
        "form": form,
        "pay_cents": hit.hit_type.pay_cents(hit.tier),
        "preview": preview,
        "action": action,
        "hidden": hidden or {},
        "rules": {
            "maxLength": settings.DESCRIPTION_MAX_LENGTH,
            "secondSentence": SECOND_SENTENCE.pattern,
            "url": URL.pattern,
        },
    }


def _render_task(request, assignment, form, *, action, hidden=None):
    if assignment.status == Assignment.Status.SUBMITTED:
        messages.info(request, "You already submitted this task.")
    context = _task_context(
        assignment.hit, form, assignment=assignment, action=action, hidden=hidden
    )
    return render(request, "collector/describe.html", context)


def _platform_fields(params, worker, assignment):
    token = signing.dumps(
        {"worker": worker.pk, "assignment": assignment.pk}, salt=PLATFORM_TOKEN_SALT
    )
    return {
        "action": reverse("collector:platform_describe"),
        "hidden": {"token": token, "turkSubmitTo": params.get("turkSubmitTo", "")},
    }


def _tier_param(params) -> int:
    try:
        tier = int(params.get("tier", Tier.ONE))
    except ValueError:
        return Tier.ONE
    return tier if tier in Tier.values else Tier.ONE


def _framed(response):
    response["Content-Security-Policy"] = "frame-ancestors " + " ".join(
        ["'self'", *settings.PLATFORM_FRAME_ANCESTORS]
    )
    return response
