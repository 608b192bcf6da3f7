"""The platform entrance: what every task page a crowd platform opens has in common.

Mechanical Turk frames the page with ``workerId``, ``assignmentId``, ``hitId`` and
``turkSubmitTo`` (an ExternalQuestion); Prolific opens it with ``PROLIFIC_PID``, ``STUDY_ID`` and
``SESSION_ID``. Whatever the task, an arrival is checked the same way: ids that a platform could
have sent, work that one of our campaigns published (once a connector is configured), the tier
the campaign asks for, and one local assignment per platform assignment. The task's form is
posted back with a signed token bound to worker and assignment, and after saving the worker is
sent straight back to the platform.

Each app describes its own task by subclassing ``PlatformTask`` (how to preview, show and save
it) and writes a view that calls ``enter``; everything else lives here.
"""

from dataclasses import dataclass
from functools import wraps
from urllib.parse import urlencode

from csp.decorators import csp_replace
from django import forms
from django.conf import settings
from django.core import signing
from django.http import Http404, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.clickjacking import xframe_options_exempt
from django.views.decorators.csrf import csrf_exempt

from paracrowd.throttling import client_address

from . import platforms, services
from .access import own_assignment
from .models import Assignment, Campaign, Hit, Tier, Worker

# What Mechanical Turk sends as assignmentId while a worker only looks at the HIT.
PREVIEW_ASSIGNMENT_ID = "ASSIGNMENT_ID_NOT_AVAILABLE"
TOKEN_MAX_AGE = 7 * 24 * 3600

# Mechanical Turk's ids are uppercase letters and digits, Prolific's hexadecimal; our columns
# hold 64 characters.
PLATFORM_ID = r"\A[A-Za-z0-9_-]{1,64}\Z"

MTURK = Worker.Platform.MTURK
PROLIFIC = Worker.Platform.PROLIFIC
RETURN_ADVICE = {
    MTURK: "Nothing was saved. Please return the HIT.",
    PROLIFIC: "Nothing was saved. Please return this study on Prolific.",
}


class Refusal(Exception):  # noqa: N818 (a page the worker sees, not an error of ours)
    """An arrival or submission turned away, with what the worker should read and do."""

    HEADINGS = {
        200: "Nothing left to do here",
        400: "This task's address is not valid",
        403: "This task cannot be opened here",
        429: "Too many new workers right now",
    }

    def __init__(self, status: int, message: str, *, platform: str = MTURK):
        super().__init__(message)
        self.status = status
        self.message = message
        self.platform = platform


def _platform_id(parameter: str) -> forms.RegexField:
    return forms.RegexField(PLATFORM_ID, required=False, label=parameter)


class ArrivalForm(forms.Form):
    """The ids a crowd platform appends to the task's address, checked before anything is
    looked up or stored. Each may be missing (a preview has no worker); none may be malformed."""

    workerId = _platform_id("workerId")
    assignmentId = _platform_id("assignmentId")
    hitId = _platform_id("hitId")
    turkSubmitTo = forms.CharField(required=False, max_length=200, label="turkSubmitTo")
    PROLIFIC_PID = _platform_id("PROLIFIC_PID")
    STUDY_ID = _platform_id("STUDY_ID")
    SESSION_ID = _platform_id("SESSION_ID")
    tier = forms.TypedChoiceField(
        required=False, choices=Tier.choices, coerce=int, empty_value=Tier.ONE, label="tier"
    )

    def problem(self) -> str:
        """What is wrong, in one sentence for the worker."""
        name = next(iter(self.errors))
        if name == "tier":
            return "The tier in this task's address must be 1 or 2."
        return (
            f"The parameter {self.fields[name].label} in this task's address is not one a crowd "
            "platform sends: it must be 1 to 64 letters, digits, - or _."
        )


@dataclass(frozen=True)
class Arrival:
    """Who arrived from which platform, for which piece of the platform's work."""

    platform: str
    worker_id: str
    # The platform's key of this piece of work: MTurk's assignment, Prolific's session.
    assignment_id: str
    # What it was done for: MTurk's HIT, Prolific's study.
    listing_id: str
    submit_to: str = ""
    tier: int = Tier.ONE

    @property
    def is_preview(self) -> bool:
        return (
            not self.worker_id
            or not self.assignment_id
            or self.assignment_id == PREVIEW_ASSIGNMENT_ID
        )


def arrival_parse(params) -> Arrival:
    """The arrival in a platform's query parameters; ``Refusal`` (400, or 403 for a submit
    address that is not a platform's) when they are not what a platform sends."""
    form = ArrivalForm(params)
    if not form.is_valid():
        from_prolific = any(name in params for name in ("PROLIFIC_PID", "STUDY_ID", "SESSION_ID"))
        raise Refusal(400, form.problem(), platform=PROLIFIC if from_prolific else MTURK)
    ids = form.cleaned_data
    if ids["PROLIFIC_PID"] or ids["STUDY_ID"] or ids["SESSION_ID"]:
        arrival = Arrival(
            platform=PROLIFIC,
            worker_id=ids["PROLIFIC_PID"],
            assignment_id=ids["SESSION_ID"],
            listing_id=ids["STUDY_ID"],
            tier=ids["tier"],
        )
        if not arrival.is_preview and not arrival.listing_id:
            raise Refusal(400, _missing("STUDY_ID"), platform=PROLIFIC)
        return arrival
    arrival = Arrival(
        platform=MTURK,
        worker_id=ids["workerId"],
        assignment_id=ids["assignmentId"],
        listing_id=ids["hitId"],
        submit_to=submit_address(params),
        tier=ids["tier"],
    )
    if not arrival.is_preview and not arrival.submit_to:
        raise Refusal(400, _missing("turkSubmitTo"))
    return arrival


def submit_address(params) -> str:
    """Mechanical Turk's ``turkSubmitTo``, only if it is a platform we let frame our pages:
    the finished page posts the worker's assignment there."""
    submit_to = params.get("turkSubmitTo", "").rstrip("/")
    if submit_to and submit_to not in settings.PLATFORM_FRAME_ANCESTORS:
        raise Refusal(403, "This task was not opened from a crowd platform we know.")
    return submit_to


def _missing(parameter: str) -> str:
    return f"The parameter {parameter} is missing from this task's address."


def arrival_campaign(arrival: Arrival, *, kind: str) -> Campaign | None:
    """The campaign that published the arrival's HIT or study, or None while no platform
    connector is configured (development and demos take any HIT of the kind). Work that no
    campaign of ``kind`` published, or one not yet published, is refused."""
    if not platforms.configured():
        return None
    campaigns = Campaign.objects.select_related("hit_type").filter(platform=arrival.platform)
    campaign = None
    if arrival.listing_id:
        if arrival.platform == MTURK:
            campaign = campaigns.filter(postings__external_hit_id=arrival.listing_id).first()
        else:
            campaign = campaigns.filter(external_id=arrival.listing_id).first()
    unit = "HIT" if arrival.platform == MTURK else "study"
    if campaign is None or campaign.state == Campaign.State.DRAFT:
        raise Refusal(
            403,
            f"This {unit} was not published by this site — please return it.",
            platform=arrival.platform,
        )
    if campaign.hit_type.kind != kind:
        raise Refusal(
            403,
            f"This {unit} is for another kind of task than this page — please return it.",
            platform=arrival.platform,
        )
    return campaign


def arrival_admit(arrival: Arrival, *, kind: str, address: str | None) -> Assignment:
    """The local assignment for an accepted platform assignment (created on first arrival,
    the same one on every reload), or ``Refusal`` with what the worker should do."""
    campaign = arrival_campaign(arrival, kind=kind)
    # A campaign's tier is the one it was published for; the address cannot ask for another.
    tier = campaign.tier if campaign else arrival.tier
    if tier > Tier.ONE and not _arrived_before(arrival):
        worker = Worker.objects.filter(
            platform=arrival.platform, external_id=arrival.worker_id
        ).first()
        if worker is None or worker.current_tier < tier:
            raise Refusal(
                403,
                f"This task is for Tier-{tier} workers and needs our Tier-{tier} "
                "qualification, which your account does not hold.",
                platform=arrival.platform,
            )
    try:
        assignment = services.platform_arrival(
            platform=arrival.platform,
            external_worker_id=arrival.worker_id,
            address=address,
            tier=tier,
            kind=kind,
            external_assignment_id=arrival.assignment_id,
            external_hit_id=arrival.listing_id,
            campaign=campaign,
        )
    except services.ArrivalsExceeded as refusal:
        raise Refusal(429, str(refusal), platform=arrival.platform) from None
    except services.WorkRefused as refusal:
        raise Refusal(403, str(refusal), platform=arrival.platform) from None
    if assignment is None:
        raise Refusal(
            200, "There are no tasks left for you at the moment.", platform=arrival.platform
        )
    return assignment


def _arrived_before(arrival: Arrival) -> bool:
    # A worker who already holds this assignment keeps it (a reload), whatever happened since.
    return Assignment.objects.filter(external_assignment_id=arrival.assignment_id).exists()


def _token_salt(kind: str) -> str:
    return f"crowd.entrance.{kind}"


def task_fields(assignment: Assignment, *, kind: str, submit_to: str = "") -> dict:
    """The hidden inputs of a platform task's form: the signed token that authenticates the
    POST (bound to worker and assignment), and where Mechanical Turk wants the result."""
    token = signing.dumps(
        {"worker": assignment.worker_id, "assignment": assignment.pk}, salt=_token_salt(kind)
    )
    fields = {"token": token}
    if submit_to:
        fields["turkSubmitTo"] = submit_to
    return fields


def task_from_token(params, *, kind: str, related=()) -> Assignment:
    """The assignment a posted token was signed for, or ``Refusal`` (403) for a forged or
    stale token."""
    try:
        claims = signing.loads(
            params.get("token", ""), salt=_token_salt(kind), max_age=TOKEN_MAX_AGE
        )
    except signing.BadSignature:
        raise Refusal(403, "This task link is not valid. Reload the HIT.") from None
    return own_assignment(claims["assignment"], claims["worker"], kind, related=related)


class PlatformTask:
    """One kind of task as a platform opens it. Each app subclasses it with its own pages;
    ``enter`` does the rest."""

    kind: str
    # Relations to load with the assignment (the item the task is about).
    related: tuple = ()

    def preview(self, request) -> HttpResponse:
        """The task as a platform shows it before the worker accepts: nothing to submit."""
        raise NotImplementedError

    def preview_hit(self, item: str, nothing_yet: str) -> Hit:
        """The HIT a preview shows: the first of this kind, with ``item`` (its relation to
        what is offered, e.g. "item__segment") loaded; 404 saying ``nothing_yet`` if none."""
        hit = (
            Hit.objects.filter(hit_type__kind=self.kind)
            .select_related(item, "hit_type")
            .order_by("id")
            .first()
        )
        if hit is None:
            raise Http404(nothing_yet)
        return hit

    def show(self, request, assignment: Assignment, *, hidden: dict) -> HttpResponse:
        """The task to do, its form carrying ``hidden`` inputs."""
        raise NotImplementedError

    def save(self, request, assignment: Assignment, *, hidden: dict) -> bool | HttpResponse:
        """Store the posted work: True when stored now, False when it had been stored before,
        or the task again with what is wrong (nothing stored)."""
        raise NotImplementedError


def platform_page(view):
    """A page crowd platforms open: it may be framed, but only by the platforms in
    PLATFORM_FRAME_ANCESTORS; its POSTs carry the signed task token instead of a CSRF token."""

    @xframe_options_exempt
    @csrf_exempt  # the signed token, bound to worker and assignment, does CSRF's job
    @wraps(view)
    def wrapper(request, *args, **kwargs):
        # The site-wide policy (django-csp), with the platforms allowed to frame the page and
        # to receive its work (Mechanical Turk by a form POST, Prolific by a redirect).
        platforms = ["'self'", *settings.PLATFORM_FRAME_ANCESTORS]
        prolific = "/".join(settings.PROLIFIC_COMPLETION_URL.split("/")[:3])
        framable = csp_replace(
            {"frame-ancestors": platforms, "form-action": [*platforms, prolific]}
        )
        return framable(view)(request, *args, **kwargs)

    return wrapper


def enter(request, task: PlatformTask) -> HttpResponse:
    """The whole platform entrance for ``task``: preview, arrival, the task, the submission,
    and the way back to the platform. Refusals become the refusal page."""
    try:
        if request.method == "POST":
            submit_to = submit_address(request.POST)
            assignment = task_from_token(request.POST, kind=task.kind, related=task.related)
            hidden = task_fields(assignment, kind=task.kind, submit_to=submit_to)
            saved = task.save(request, assignment, hidden=hidden)
            if isinstance(saved, HttpResponse):
                return saved
            return finished(request, assignment, submit_to=submit_to, already_submitted=not saved)
        arrival = arrival_parse(request.GET)
        if arrival.is_preview:
            return task.preview(request)
        assignment = arrival_admit(arrival, kind=task.kind, address=client_address(request))
        if assignment.status == Assignment.Status.SUBMITTED:
            return finished(
                request, assignment, submit_to=arrival.submit_to, already_submitted=True
            )
        assignment = own_assignment(
            assignment.pk, assignment.worker_id, task.kind, related=task.related
        )
        hidden = task_fields(assignment, kind=task.kind, submit_to=arrival.submit_to)
        return task.show(request, assignment, hidden=hidden)
    except Refusal as refusal:
        return refused(request, refusal)


def finished(request, assignment: Assignment, *, submit_to: str, already_submitted: bool):
    """Back to the platform with the finished work: Prolific's completion address with the
    campaign's code; for Mechanical Turk a page that posts the assignment to ``submit_to``
    by itself (a button where scripts are off). A reload sends it again."""
    platform = assignment.worker.platform
    completion_code = assignment.campaign.completion_code if assignment.campaign_id else ""
    if platform == PROLIFIC and completion_code:
        return redirect(settings.PROLIFIC_COMPLETION_URL + "?" + urlencode({"cc": completion_code}))
    context = {
        "assignment": assignment,
        "platform": platform,
        "submit_to": submit_to if platform == MTURK else "",
        "already_submitted": already_submitted,
    }
    return render(request, "crowd/platform_done.html", context)


def refused(request, refusal: Refusal) -> HttpResponse:
    """The styled refusal page: what went wrong and what to do on the platform."""
    context = {
        "heading": Refusal.HEADINGS[refusal.status],
        "message": refusal.message,
        "advice": RETURN_ADVICE[refusal.platform],
    }
    return render(request, "crowd/platform_refused.html", context, status=refusal.status)
