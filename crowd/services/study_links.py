"""Campaigns run through a study link (CloudResearch Connect, SONA, Microworkers, Clickworker,
a lab's own panel): the link to paste into the platform, the platform's export read back to
confirm sessions, and the approvals and bonuses files to upload there.

These platforms have no API this site can call, so the researcher's upload of the platform's
own records is what confirms work: until a session is listed there by the participant who
did it (with the verification code it was given, when the export has one), its work is
never paid or accepted.
"""

from datetime import timedelta

from django.conf import settings
from django.db.models import Q
from django.utils import timezone

from .. import platforms
from ..models import Assignment, Campaign, WorkSession
from ..platforms import entrance_url
from ..platforms.studylink import links as studylink
from .errors import WorkRefused
from .sessions import session_abandon, session_confirm, session_positions

CAMPAIGN_PARAMETER = studylink.CAMPAIGN_PARAMETER
# What a session whose work was not confirmed in time is marked with (its platform status):
# the site released its place; the participant did not give the study back.
NOT_CONFIRMED = "not confirmed in time"
# What a session the platform's export lists is marked with, released before or not.
LISTED = "listed"


def study_link_address(*, campaign: Campaign, preset: str | None = None) -> str:
    """The address to paste into the platform of a published study-link campaign: the
    platform its preset names, or ``preset``'s, which becomes the campaign's (the parameter
    names its participants are read with) while no participant has arrived; once one has, a
    link for another platform is refused, since arrivals through the first would fail.
    Refused too while PLATFORM_PUBLIC_URL is not an address participants can reach."""
    _study_link_check(campaign)
    problem = studylink.public_address_problem(settings.PLATFORM_PUBLIC_URL)
    if problem:
        raise WorkRefused(
            f"No link: {problem}, which participants cannot reach. Set it to the https "
            "address of this site (docs/operators/study-links.md)."
        )
    preset = preset or campaign.study_link_preset
    if preset not in studylink.PRESETS:
        raise WorkRefused(
            f"No study-link preset {preset!r}; there are {', '.join(studylink.PRESETS)}."
        )
    if preset != campaign.study_link_preset:
        if WorkSession.objects.filter(campaign=campaign).exists():
            raise WorkRefused(
                f"This campaign's link is for {studylink.PRESETS[campaign.study_link_preset].label}"
                ", and participants have arrived through it: a link for another platform "
                "would read them with other parameter names. Create a campaign for that one."
            )
        Campaign.objects.filter(pk=campaign.pk).update(study_link_preset=preset)
        campaign.study_link_preset = preset
    url = f"{entrance_url(campaign.hit_type.kind)}?{CAMPAIGN_PARAMETER}={campaign.external_id}"
    try:
        return studylink.study_link(url, study_link_config(campaign=campaign), preset)
    except ValueError as error:
        raise WorkRefused(str(error)) from error


def study_link_config(*, campaign: Campaign | None) -> studylink.StudyLinkConfig:
    """How the campaign's links are read: the site's settings with the parameter names of the
    platform its preset names (the settings' own names for a lab's panel)."""
    config = studylink.StudyLinkConfig.from_settings()
    return config.for_preset(campaign.study_link_preset if campaign else "generic")


def study_link_arrival_config(*, listing_id: str) -> studylink.StudyLinkConfig:
    """How an arrival naming the study-link campaign ``listing_id`` is read (the settings'
    names when no such campaign exists: it is refused later, for what it is)."""
    campaign = Campaign.objects.filter(
        platform__in=_link_platforms(), external_id=listing_id
    ).first()
    return study_link_config(campaign=campaign)


def study_link_sessions_release(*, now=None) -> int:
    """Periodic: give back the places of study-link sessions whose work the platform's records
    did not confirm within their campaign's ``confirm_hours`` of the session starting (their
    submitted work is marked not confirmed and their task in hand goes back, as for a
    participant who left). An upload listing them later still confirms them. Returns how
    many sessions were released."""
    now = now or timezone.now()
    unsettled = Q(state=WorkSession.State.OPEN) | Q(
        assignments__status=Assignment.Status.SUBMITTED, assignments__verified_at=None
    )
    released = 0
    for campaign in Campaign.objects.filter(
        platform__in=_link_platforms(), state__in=_RUNNING
    ).order_by("pk"):
        due = WorkSession.objects.filter(
            campaign=campaign, started_at__lte=now - timedelta(hours=campaign.confirm_hours)
        ).exclude(state=WorkSession.State.ABANDONED)
        for session in due.filter(unsettled).distinct().order_by("pk"):
            released += session_abandon(session=session, platform_status=NOT_CONFIRMED)
    return released


_RUNNING = (Campaign.State.PUBLISHED, Campaign.State.EXPIRED)


def study_link_confirm(
    *,
    campaign: Campaign,
    text: str,
    participant_column: str,
    session_column: str | None,
    code_column: str | None = None,
) -> dict:
    """Confirm the campaign's sessions its platform's export lists: each row whose session is
    one of the campaign's, opened by that participant, and (when the export has codes) typed
    with the session's verification code. Returns counts of confirmed sessions, tasks
    verified, and rows refused for each reason; a malformed file raises ``WorkRefused`` and
    confirms nothing. Reading the same file twice confirms nothing more."""
    _study_link_check(campaign)
    config = study_link_config(campaign=campaign)
    try:
        records = studylink.records_read(
            text,
            participant_column=participant_column,
            session_column=session_column,
            code_column=code_column,
            config=config,
            study_id=campaign.external_id,
        )
    except ValueError as error:
        raise WorkRefused(f"The export cannot be read: {error}") from error
    sessions = {
        session.external_id: session
        for session in WorkSession.objects.select_related("worker").filter(
            campaign=campaign, external_id__in=[record.session_id for record in records]
        )
    }
    counts = {"sessions": 0, "tasks": 0, "unknown": 0, "someone_else": 0, "bad_code": 0}
    for record in records:
        session = sessions.get(record.session_id)
        if session is None:
            counts["unknown"] += 1
        elif session.worker.external_id != record.participant_id:
            counts["someone_else"] += 1
        elif record.verified is False:
            counts["bad_code"] += 1
        else:
            counts["sessions"] += 1
            counts["tasks"] += session_confirm(session=session, platform_status=LISTED)
    return counts


def study_link_sheets(*, campaign: Campaign) -> dict[str, str]:
    """The files to upload to the platform: ``approvals`` (every session with accepted and
    paid work) and ``bonuses`` (per session, the pay of each paid task past its minimum),
    both with each session's verification code. A participant who came back has a row for
    each session: each was paid its reward in the ledger, as its pages stated."""
    _study_link_check(campaign)
    config = studylink.StudyLinkConfig.from_settings()
    tasks = session_positions(Assignment.objects.filter(session__campaign=campaign)).values_list(
        "session__external_id",
        "session__worker__external_id",
        "session__task_minimum",
        "position",
        "ledger_entry__amount_cents",
    )
    approvals, bonuses = {}, {}
    # Positions count every submitted task of a session, so the paid ones are picked out
    # only once all are numbered.
    for session_id, participant, minimum, position, cents in _paid_positions(tasks):
        code = studylink.verification_code(
            session_id=session_id, participant_id=participant, config=config
        )
        approvals.setdefault(session_id, (participant, session_id, code))
        if position > minimum:
            row = bonuses.get(session_id, (participant, session_id, code, 0))
            bonuses[session_id] = (*row[:3], row[3] + cents)
    return {
        "approvals": studylink.approvals_csv(approvals.values()),
        "bonuses": studylink.bonuses_csv(bonuses.values()),
    }


def _paid_positions(tasks):
    return sorted((row for row in tasks if row[4] is not None), key=lambda row: (row[0], row[3]))


def _link_platforms() -> list[str]:
    """The platforms whose participants come through links printed here."""
    return [name for name, platform in platforms.REGISTRY.items() if platform.prints_links]


def _study_link_check(campaign: Campaign) -> None:
    if not platforms.get(campaign.platform).prints_links:
        raise WorkRefused("This campaign is not run through a study link.")
    if not campaign.external_id:
        raise WorkRefused("Publish the campaign first: its link names it.")
