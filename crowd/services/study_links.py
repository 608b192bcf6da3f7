"""Campaigns run through a study link (CloudResearch Connect, SONA, Microworkers, Clickworker,
a lab's own panel): the link to paste into the platform, the platform's export read back to
confirm sessions, and the approvals and bonuses files to upload there.

These platforms have no API this site can call, so the researcher's upload of the platform's
own records is what confirms work: until a session is listed there by the participant who
did it (with the verification code it was given, when the export has one), its work is
never paid or accepted.
"""

from ..models import Assignment, Campaign, WorkSession
from ..platforms import entrance_url
from ..platforms.studylink import links as studylink
from .errors import WorkRefused
from .sessions import session_confirm, session_positions

CAMPAIGN_PARAMETER = "campaign"


def study_link_address(*, campaign: Campaign, preset: str = "generic") -> str:
    """The address to paste into ``preset``'s platform for a published study-link campaign."""
    _study_link_check(campaign)
    config = studylink.StudyLinkConfig.from_settings()
    if preset != "generic":
        config = config.for_preset(preset)
    url = f"{entrance_url(campaign.hit_type.kind)}?{CAMPAIGN_PARAMETER}={campaign.external_id}"
    try:
        return studylink.study_link(url, config, preset)
    except ValueError as error:
        raise WorkRefused(str(error)) from error


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
    config = studylink.StudyLinkConfig.from_settings()
    try:
        records = studylink.records_read(
            text,
            participant_column=participant_column,
            session_column=session_column,
            code_column=code_column,
            config=config,
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
            counts["tasks"] += session_confirm(session=session, platform_status="listed")
    return counts


def study_link_sheets(*, campaign: Campaign) -> dict[str, str]:
    """The files to upload to the platform: ``approvals`` (every session with accepted and
    paid work) and ``bonuses`` (per participant, the pay of each paid task past the
    session's minimum), both with each session's verification code."""
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
        approvals.setdefault(participant, (participant, session_id, code))
        if position > minimum:
            row = bonuses.get(participant, (participant, session_id, code, 0))
            bonuses[participant] = (*row[:3], row[3] + cents)
    return {
        "approvals": studylink.approvals_csv(approvals.values()),
        "bonuses": studylink.bonuses_csv(bonuses.values()),
    }


def _paid_positions(tasks):
    return sorted((row for row in tasks if row[4] is not None), key=lambda row: (row[0], row[3]))


def _study_link_check(campaign: Campaign) -> None:
    if campaign.platform != Campaign.Platform.STUDY_LINK:
        raise WorkRefused("This campaign is not run through a study link.")
    if not campaign.external_id:
        raise WorkRefused("Publish the campaign first: its link names it.")
