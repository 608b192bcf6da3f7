"""Worker-facing pages: sign-up, dashboard, the video-description and video-collection tasks.

Security behaviour, for every view here: a worker sees and acts on their own assignments only
(another worker's assignment id answers 404); local pages need a login; pages for crowd-platform
workers authenticate each submission with a signed token bound to that worker and assignment.
"""

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core import signing
from django.core.exceptions import ValidationError
from django.http import Http404, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.clickjacking import xframe_options_exempt
from django.views.decorators.csrf import csrf_exempt

from crowd import services as crowd
from crowd.access import own_assignment, worker_required
from crowd.models import Assignment, Hit, HitType, Tier, Worker

from . import selectors, services
from .forms import DescriptionForm, PlatformArrivalForm, ProposalForm
from .spans import LengthRule, format_time
from .validators import SECOND_SENTENCE, URL
from .youtube import parse_youtube_link

PREVIEW_ASSIGNMENT_ID = "ASSIGNMENT_ID_NOT_AVAILABLE"
PLATFORM_TOKEN_SALT = "collector.platform-task"  # noqa: S105 (a namespace, not a secret)
PLATFORM_TOKEN_MAX_AGE = 7 * 24 * 3600


def home(request):
    """Anyone. Signed-in workers go to their dashboard."""
    if request.user.is_authenticated:
        return redirect("collector:dashboard")
    return render(request, "collector/home.html")


@worker_required
def dashboard(request, worker):
    """A worker's own counts, earnings (from the ledger), bonuses, standing, recent work with
    review reasons, and the next-task buttons. Only their own data."""
    return render(request, "collector/dashboard.html", selectors.worker_dashboard(worker))


@worker_required
def describe(request, pk, worker):
    """The description task for the worker's own assignment ``pk``; POST submits it."""
    assignment = _own_task(pk, worker, HitType.Kind.DESCRIPTION)
    form = DescriptionForm(request.POST or None)
    if request.method == "POST":
        result = _submit(assignment, worker, form)
        if result is not None:
            if result[1]:
                messages.success(request, "Thank you! Your description was saved.")
            else:
                messages.info(request, "You had already submitted this task; it was saved once.")
            return redirect("collector:dashboard")
    return _render_task(request, assignment, form, action=reverse("collector:describe", args=[pk]))


@worker_required
def propose(request, pk, worker):
    """The video-collection task for the worker's own assignment ``pk``: find a YouTube video,
    mark a segment, say what happens. POST submits it for review."""
    assignment = _own_task(pk, worker, HitType.Kind.VIDEO_COLLECTION)
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
        except crowd.WorkRefused as refusal:
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


@xframe_options_exempt
@csrf_exempt  # the signed platform token, bound to worker and assignment, does CSRF's job
def platform_describe(request):
    """The task as a crowd platform's ExternalQuestion: anyone the platform sends may preview;
    an accepted platform assignment (workerId, assignmentId, hitId) gets a real task. This page
    alone may be framed, and only by the platforms in PLATFORM_FRAME_ANCESTORS.

    Security behaviour: malformed ids answer 400 and an address bringing too many new workers
    429, storing nothing. One platform assignment is one local assignment: a reload gives the
    same task (or, once submitted, the way back to the platform), and the same assignment id
    under another worker answers 403. A POST needs the signed token bound to worker and
    assignment."""
    params = request.POST if request.method == "POST" else request.GET
    submit_to = params.get("turkSubmitTo", "")
    if submit_to and submit_to.rstrip("/") not in settings.PLATFORM_FRAME_ANCESTORS:
        return _refused(request, 403, "This task was not opened from a crowd platform we know.")
    if request.method == "POST":
        try:
            claims = signing.loads(
                params.get("token", ""), salt=PLATFORM_TOKEN_SALT, max_age=PLATFORM_TOKEN_MAX_AGE
            )
        except signing.BadSignature:
            return _refused(request, 403, "This task link is not valid. Reload the HIT.")
        worker = get_object_or_404(Worker, pk=claims["worker"])
        assignment = _own_task(claims["assignment"], worker, HitType.Kind.DESCRIPTION)
        form = DescriptionForm(request.POST)
        result = _submit(assignment, worker, form)
        if result is not None:
            return _platform_done(request, assignment, submit_to, already_submitted=not result[1])
        return _framed(
            _render_task(request, assignment, form, **_platform_fields(params, worker, assignment))
        )

    arrival = PlatformArrivalForm(params)
    if not arrival.is_valid():
        return _refused(request, 400, arrival.problem())
    worker_id = arrival.cleaned_data["workerId"]
    external_assignment = arrival.cleaned_data["assignmentId"]
    if not external_assignment or external_assignment == PREVIEW_ASSIGNMENT_ID or not worker_id:
        hit = (
            Hit.objects.filter(hit_type__kind=HitType.Kind.DESCRIPTION)
            .select_related("item__segment", "hit_type")
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
    try:
        assignment = crowd.platform_arrival(
            platform=Worker.Platform.MTURK,
            external_worker_id=worker_id,
            address=request.META.get("REMOTE_ADDR"),
            tier=_tier_param(params),
            external_assignment_id=external_assignment,
            external_hit_id=arrival.cleaned_data["hitId"],
        )
    except crowd.ArrivalsExceeded as refusal:
        return _refused(request, 429, str(refusal))
    except crowd.WorkRefused as refusal:
        return _refused(request, 403, str(refusal))
    if assignment is None:
        return _framed(render(request, "collector/platform_done.html", {"nothing_left": True}))
    if assignment.status == Assignment.Status.SUBMITTED:
        return _platform_done(request, assignment, submit_to, already_submitted=True)
    worker = assignment.worker
    return _framed(
        _render_task(
            request, assignment, DescriptionForm(), **_platform_fields(params, worker, assignment)
        )
    )


def _platform_done(request, assignment, submit_to, *, already_submitted):
    context = {
        "assignment": assignment,
        "submit_to": submit_to,
        "already_submitted": already_submitted,
    }
    return _framed(render(request, "collector/platform_done.html", context))


def _refused(request, status, message):
    heading = {
        400: "This task's address is not valid",
        403: "This task cannot be opened here",
        429: "Too many new workers right now",
    }[status]
    context = {"heading": heading, "message": message}
    return _framed(render(request, "collector/platform_refused.html", context, status=status))


def _own_task(pk, worker, kind):
    related = {
        HitType.Kind.DESCRIPTION: ("hit__item__segment",),
        HitType.Kind.VIDEO_COLLECTION: ("proposal",),
    }[kind]
    return own_assignment(pk, worker, kind, related=related)


def _submit(assignment, worker, form):
    """Validate and store; on refusal, attach the reason to the form. ``(description,
    created)``, or None when nothing was stored."""
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
    except crowd.WorkRefused as refusal:
        form.add_error(None, str(refusal))
        return None
    return description, created


def _task_context(hit, form, *, assignment=None, preview=False, action="", hidden=None):
    return {
        "hit": hit,
        "segment": hit.item.segment,
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
