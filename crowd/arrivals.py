"""Platform arrivals: the ids a crowd platform sends with a worker, checked before anything is
looked up or stored; the campaign they arrive through; the local assignment or work session
they get; and the signed token that authenticates what they post back.

Mechanical Turk frames the page with ``workerId``, ``assignmentId``, ``hitId`` and
``turkSubmitTo`` (an ExternalQuestion); Prolific opens it with ``PROLIFIC_PID``, ``STUDY_ID`` and
``SESSION_ID``; a study link with the parameters the site's settings name. ``crowd.entrance``
turns what this module decides into pages.
"""

from dataclasses import dataclass

from django import forms
from django.conf import settings
from django.core import signing
from django.utils import timezone

from . import platforms, services
from .access import own_assignment
from .models import Assignment, Campaign, Tier, Worker, WorkSession
from .platforms import ArrivalContext, ArrivalInvalid
from .platforms.base import Platform
from .platforms.mturk.client import PREVIEW_ASSIGNMENT_ID

TOKEN_MAX_AGE = 7 * 24 * 3600


class Refusal(Exception):  # noqa: N818 (a page the worker sees, not an error of ours)
    """An arrival or submission turned away, with what the worker should read and do on the
    platform ``platform`` (None: on whichever platform sent them)."""

    HEADINGS = {
        200: "Nothing left to do here",
        400: "This task's address is not valid",
        403: "This task cannot be opened here",
        429: "Too many new workers right now",
        503: "Your session could not be checked just now",
    }

    def __init__(self, status: int, message: str, *, platform: str | None = None):
        super().__init__(message)
        self.status = status
        self.message = message
        self.platform = platform

    @property
    def advice(self) -> str:
        chosen = platforms.REGISTRY.get(self.platform) if self.platform else None
        return (chosen or Platform()).return_advice


class TierForm(forms.Form):
    """The tier a demo arrival asks for (a campaign's own tier wins over it)."""

    tier = forms.TypedChoiceField(
        required=False, choices=Tier.choices, coerce=int, empty_value=Tier.ONE, label="tier"
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

    @property
    def ids(self) -> platforms.ArrivalIds:
        return platforms.ArrivalIds(
            worker_id=self.worker_id,
            assignment_id=self.assignment_id,
            listing_id=self.listing_id,
            submit_to=self.submit_to,
        )


def arrival_context() -> ArrivalContext:
    return ArrivalContext(
        frame_origins=tuple(settings.PLATFORM_FRAME_ANCESTORS),
        listing_config=lambda listing_id: services.study_link_arrival_config(listing_id=listing_id),
    )


def arrival_parse(params) -> Arrival:
    """The arrival in a platform's query parameters, read by the platform they are from (an
    address with none is a preview); ``Refusal`` (400, or 403 for a submit address that is
    not a platform's) when they are not what that platform sends."""
    tier = TierForm(params)
    if not tier.is_valid():
        raise Refusal(400, "The tier in this task's address must be 1 or 2.")
    platform = next(
        (each for each in platforms.REGISTRY.values() if each.claims_arrival(params)), None
    )
    if platform is None:
        return Arrival(platform="", worker_id="", assignment_id="", listing_id="")
    try:
        ids = platform.arrival_read(params, context=arrival_context())
    except ArrivalInvalid as invalid:
        raise Refusal(invalid.status, str(invalid), platform=platform.name) from None
    return Arrival(
        platform=platform.name,
        worker_id=ids.worker_id,
        assignment_id=ids.assignment_id,
        listing_id=ids.listing_id,
        submit_to=ids.submit_to,
        tier=tier.cleaned_data["tier"],
    )


def submit_address(params) -> str:
    """Where the finished page of a framed task posts the work back to ("" for nowhere): a
    platform's own address, only from an origin we let frame our pages."""
    context = arrival_context()
    for platform in platforms.REGISTRY.values():
        try:
            submit_to = platform.submit_address(params, context=context)
        except ArrivalInvalid as invalid:
            raise Refusal(invalid.status, str(invalid), platform=platform.name) from None
        if submit_to:
            return submit_to
    return ""


def arrival_campaign(arrival: Arrival, *, kind: str) -> Campaign | None:
    """The campaign that published the arrival's HIT or study, or None while no platform
    connector is configured for the arrival's platform and the site runs in demo mode
    (PLATFORM_DEMO: development and demos take any HIT of the kind). Without a connector and
    outside demo mode the arrival is refused: nothing could tell a forged id from a real one.
    Work that no campaign of ``kind`` published, or one not yet published, is refused."""
    if not _connected(arrival.platform):
        if settings.PLATFORM_DEMO:
            return None
        raise Refusal(
            403,
            f"This site is not connected to {Worker.Platform(arrival.platform).label}, so it "
            "cannot check who sent you here.",
            platform=arrival.platform,
        )
    platform = platforms.get(arrival.platform)
    campaigns = Campaign.objects.select_related("hit_type").filter(platform=arrival.platform)
    campaign = None
    if arrival.listing_id:
        campaign = campaigns.filter(**{platform.listing_field: arrival.listing_id}).first()
    unit = platform.unit
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


def _connected(platform: str) -> bool:
    # A study link needs no connector: its campaigns live here, and their links name them.
    return platforms.get(platform).configured() or platform in platforms.configured()


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
        raise Refusal(
            403, "This task link is not valid. Open the task again from your crowd platform."
        ) from None
    return own_assignment(claims["assignment"], claims["worker"], kind, related=related)


def session_admit(arrival: Arrival, *, kind: str, address: str | None):
    """The work session of a platform visit (opened on first arrival, resumed on every
    other), or ``Refusal``. Where the platform can tell (Prolific), the visit is looked up
    there before anything is stored or handed out: a session the platform does not list as
    this participant's, in this study and still in progress gets nothing and takes no place."""
    campaign = arrival_campaign(arrival, kind=kind)
    tier = campaign.tier if campaign else arrival.tier
    known = WorkSession.objects.filter(
        platform=arrival.platform, external_id=arrival.assignment_id
    ).first()
    checked_at = known.arrival_checked_at if known else None
    if checked_at is None and campaign is not None:
        checked_at = _visit_check(arrival, campaign, address=address)
        if checked_at is not None:
            address = None  # counted once, for the look-up
    try:
        return services.session_enter(
            platform=arrival.platform,
            worker_id=arrival.worker_id,
            session_id=arrival.assignment_id,
            listing_id=arrival.listing_id,
            kind=kind,
            tier=tier,
            campaign=campaign,
            address=address,
            checked_at=checked_at,
        )
    except services.ArrivalsExceeded as refusal:
        raise Refusal(429, str(refusal), platform=arrival.platform) from None
    except services.WorkRefused as refusal:
        raise Refusal(403, str(refusal), platform=arrival.platform) from None


def _visit_check(arrival: Arrival, campaign: Campaign, *, address: str | None):
    """When the platform confirmed the visit (None: it cannot tell), or ``Refusal``. Every
    look-up counts against the address's hourly allowance of arrivals, so forged ids cannot
    make us hammer the platform."""
    platform = platforms.get(arrival.platform)
    if not platform.verifies_arrivals:
        return None
    ids = platforms.ArrivalIds(
        worker_id=arrival.worker_id,
        assignment_id=arrival.assignment_id,
        listing_id=campaign.external_id,
    )
    try:
        if address:
            services.arrival_count(address=address)
        listed = arrival.listing_id == campaign.external_id and platform.arrival_verify(ids)
    except services.ArrivalsExceeded as refusal:
        raise Refusal(429, str(refusal), platform=platform.name) from None
    except platforms.PlatformError:
        raise Refusal(
            503,
            f"We could not reach {platform.label} to check your session. Nothing was saved; "
            "please reload this page in a minute.",
            platform=platform.name,
        ) from None
    if not listed:
        raise Refusal(
            403,
            f"{platform.label} does not list this session as yours and in progress in this study.",
            platform=platform.name,
        )
    return timezone.now()
