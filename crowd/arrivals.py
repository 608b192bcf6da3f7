"""Platform arrivals: the ids a crowd platform sends with a worker, checked before anything is
looked up or stored; the campaign they arrive through; the local assignment or work session
they get; and the signed token that authenticates what they post back.

Mechanical Turk frames the page with ``workerId``, ``assignmentId``, ``hitId`` and
``turkSubmitTo`` (an ExternalQuestion); Prolific opens it with ``PROLIFIC_PID``, ``STUDY_ID`` and
``SESSION_ID``; a study link with the parameters the site's settings name. ``crowd.entrance``
turns what this module decides into pages.
"""

import re
from dataclasses import dataclass

from django import forms
from django.conf import settings
from django.core import signing
from django.utils import timezone

from . import platforms, services
from .access import own_assignment
from .models import Assignment, Campaign, Tier, Worker, WorkSession
from .platforms.studylink import links as studylink
from .services.study_links import CAMPAIGN_PARAMETER as STUDY_LINK_CAMPAIGN

# What Mechanical Turk sends as assignmentId while a worker only looks at the HIT.
PREVIEW_ASSIGNMENT_ID = "ASSIGNMENT_ID_NOT_AVAILABLE"
TOKEN_MAX_AGE = 7 * 24 * 3600

# Mechanical Turk's ids are uppercase letters and digits, Prolific's hexadecimal; our columns
# hold 64 characters.
PLATFORM_ID = r"\A[A-Za-z0-9_-]{1,64}\Z"

MTURK = Worker.Platform.MTURK
PROLIFIC = Worker.Platform.PROLIFIC
STUDY_LINK = Worker.Platform.STUDY_LINK
RETURN_ADVICE = {
    MTURK: "Nothing was saved. Please return the HIT.",
    PROLIFIC: "Nothing was saved. Please return this study on Prolific.",
    STUDY_LINK: "Nothing was saved. Please go back to the study on your platform.",
}
# The platforms that pay by the visit: an arrival opens a work session of several tasks.
SESSION_PLATFORMS = (PROLIFIC, STUDY_LINK)


class Refusal(Exception):  # noqa: N818 (a page the worker sees, not an error of ours)
    """An arrival or submission turned away, with what the worker should read and do."""

    HEADINGS = {
        200: "Nothing left to do here",
        400: "This task's address is not valid",
        403: "This task cannot be opened here",
        429: "Too many new workers right now",
        503: "Your session could not be checked just now",
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
    if not any(ids[name] for name in ("PROLIFIC_PID", "STUDY_ID", "SESSION_ID", "workerId")):
        study_link = _study_link_arrival(params, tier=ids["tier"])
        if study_link is not None:
            return study_link
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


def _study_link_arrival(params, *, tier: int) -> Arrival | None:
    """A study-link platform's arrival, or None when the address is not one. The campaign is
    named by the ``campaign`` parameter its link carries (the platform's own study id, where
    it sends one, means nothing here); the participant and session ids come in the parameters
    of the platform the campaign's link was made for."""
    generic = studylink.StudyLinkConfig.from_settings()
    if STUDY_LINK_CAMPAIGN not in params and generic.participant_param not in params:
        return None
    campaign = params.get(STUDY_LINK_CAMPAIGN, "")
    try:
        if not re.fullmatch(PLATFORM_ID, campaign):
            raise ValueError(
                f"The parameter {STUDY_LINK_CAMPAIGN} in this task's address is missing or not "
                "one this site gives: reopen the study from your platform."
            )
        config = services.study_link_arrival_config(listing_id=campaign)
        ids = studylink.arrival_ids(params, config, local_study=campaign)
    except ValueError as error:
        raise Refusal(400, str(error), platform=STUDY_LINK) from None
    return Arrival(
        platform=STUDY_LINK,
        worker_id=ids.participant_id,
        assignment_id=ids.session_id,
        listing_id=campaign,
        tier=tier,
    )


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


def _connected(platform: str) -> bool:
    # A study link needs no connector: its campaigns live here, and their links name them.
    return platform == STUDY_LINK or platform in platforms.configured()


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


def session_admit(arrival: Arrival, *, kind: str, address: str | None):
    """The work session of a platform visit (opened on first arrival, resumed on every
    other), or ``Refusal``. A Prolific visit is looked up at Prolific before anything is
    stored or handed out: a SESSION_ID Prolific does not list as this participant's, in this
    study and still in progress gets nothing and takes no place."""
    campaign = arrival_campaign(arrival, kind=kind)
    tier = campaign.tier if campaign else arrival.tier
    known = WorkSession.objects.filter(
        platform=arrival.platform, external_id=arrival.assignment_id
    ).first()
    checked_at = known.arrival_checked_at if known else None
    if checked_at is None and campaign is not None and arrival.platform == PROLIFIC:
        checked_at = _prolific_check(arrival, campaign, address=address)
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


def _prolific_check(arrival: Arrival, campaign: Campaign, *, address: str | None):
    """When Prolific confirmed the visit, or ``Refusal``. Every look-up counts against the
    address's hourly allowance of arrivals, so forged ids cannot make us hammer Prolific."""
    try:
        if address:
            services.arrival_count(address=address)
        # The participant waits on this: one quick try, none while Prolific is failing.
        submission = platforms.connector(PROLIFIC).submission(arrival.assignment_id, quick=True)
    except services.ArrivalsExceeded as refusal:
        raise Refusal(429, str(refusal), platform=PROLIFIC) from None
    except platforms.PlatformError as error:
        if getattr(error, "status", 0) == 404:
            submission = None
        else:
            raise Refusal(
                503,
                "We could not reach Prolific to check your session. Nothing was saved; "
                "please reload this page in a minute.",
                platform=PROLIFIC,
            ) from None
    if (
        submission is None
        or submission.worker_id != arrival.worker_id
        or submission.listing_id != campaign.external_id
        or submission.status != platforms.Submission.WORKING
    ):
        raise Refusal(
            403,
            "Prolific does not list this session as yours and in progress in this study.",
            platform=PROLIFIC,
        )
    return timezone.now()
