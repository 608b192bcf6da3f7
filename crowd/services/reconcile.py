"""Reconciling a campaign with its platform: every submission there ends decided, and the money
the ledger booked is set beside the money the platform shows paid, to the minor unit.

The platform's figures are rebuilt from what it lists: each approved submission pays the
campaign's reward, each bonus paid on a submission is one bonus line, and the platform's fee
is charged on each of those (``Platform.fee_cents``). The ledger's are its entries for the
campaign: rewards (a session's reward, or a task paid alone), bonuses and fees. A platform
whose work cannot be read (a study link: its records are uploaded) is reported from the
site's view, with what is unknown named.
"""

from django.db.models import Count, Q, Sum
from django.utils import timezone

from .. import platforms
from ..models import (
    Assignment,
    Campaign,
    CampaignEvent,
    LedgerEntry,
    PlatformAction,
    WorkSession,
)
from ..platforms import PlatformError, Submission
from .outbox import platform_actions_queue, platform_bonuses_check
from .sessions import NEVER_LISTED, SOMEONE_ELSES, TIMED_OUT, session_abandon
from .study_links import LISTED, NOT_CONFIRMED
from .workers import worker_from_platform

# "released": a session whose place the site gave back, not the participant: a study-link
# session the platform's records had not confirmed in time, or (counted only while the
# platform cannot be read, from the site's sessions) one the read-back gave up on because the
# platform never listed it. The participant may have finished; nobody returned anything.
STATES = (
    "approved",
    "rejected",
    "returned",
    "timed_out",
    "awaiting_review",
    "active",
    "released",
)
# What a participant who submitted without doing any work here reads with the rejection.
NO_WORK_FEEDBACK = (
    "We have no record of any task done in this session: no answers reached us from this "
    "submission, so there is no work to pay for. If you did take part, please write to us."
)


def campaign_reconcile(*, campaign: Campaign, now=None) -> dict:
    """Read every submission of ``campaign`` on its platform (all pages) and the bonuses paid
    on each, decide what is undecided, and compare the money with the ledger.

    Decisions go through the usual services: a submission that left no work here (no
    session, or a session with no task submitted) is rejected through the outbox with the
    platform's no-data category and a message; one returned or timed out frees the task its
    session held. A finished session whose work is reviewed was approved or rejected by that
    review (the outbox sends it); one not reviewed yet is counted awaiting review. Bonuses the
    outbox gave up on are settled by what the platform shows (``platform_bonuses_check``).

    Returns (and stores on the campaign, with the time) one dict: ``campaign``, ``platform``,
    ``currency``, ``submissions`` (counts by state), ``unknown_to_site``, ``platform_minor``
    and ``ledger_minor`` (rewards, bonuses, fees), ``difference_minor`` (ledger total minus
    platform total), ``places_held``, and ``unknown`` (what could not be read) or ``error``.
    Running it again decides nothing twice."""
    now = now or timezone.now()
    platform = platforms.get(campaign.platform)
    result = {
        "campaign": campaign.pk,
        "platform": campaign.platform,
        "currency": platform.currency(),
        "submissions": dict.fromkeys(STATES, 0),
        "unknown_to_site": 0,
        "platform_minor": {"rewards": 0, "bonuses": 0, "fees": 0},
        "ledger_minor": _ledger(campaign),
        "difference_minor": 0,
        "places_held": 0,
        "unknown": [],
    }
    try:
        listing_ids = campaign_listing_ids(campaign)
        work = platform.work_read(listing_ids=listing_ids) if listing_ids else []
        if work is not None:
            result["bonuses_settled"] = platform_bonuses_check(campaign=campaign, now=now)
            _platform_side(campaign, platform, work, result)
    except PlatformError as error:
        result["error"] = str(error)
        work = None
        CampaignEvent.objects.create(
            campaign=campaign, is_error=True, message=f"Reconciling failed: {error}"
        )
    if work is None:
        _site_side(campaign, result)
    else:
        ledger, paid = result["ledger_minor"], result["platform_minor"]
        result["difference_minor"] = sum(ledger.values()) - sum(paid.values())
    Campaign.objects.filter(pk=campaign.pk).update(reconciliation=result, reconciled_at=now)
    campaign.reconciliation, campaign.reconciled_at = result, now
    return result


def _ledger(campaign: Campaign) -> dict:
    sums = dict(
        LedgerEntry.objects.filter(campaign=campaign)
        .values_list("kind")
        .annotate(cents=Sum("amount_cents"))
        .order_by()
    )
    kinds = LedgerEntry.Kind
    return {
        "rewards": sums.get(kinds.REWARD, 0) + sums.get(kinds.TASK, 0),
        "bonuses": sums.get(kinds.BONUS, 0),
        "fees": sums.get(kinds.FEE, 0),
    }


def _state(submission: Submission) -> str:
    if submission.status == Submission.GONE:
        return "timed_out" if submission.timed_out else "returned"
    return {
        Submission.SUBMITTED: "awaiting_review",
        Submission.APPROVED: "approved",
        Submission.REJECTED: "rejected",
        Submission.WORKING: "active",
    }[submission.status]


def _platform_side(campaign, platform, work: list[Submission], result: dict) -> None:
    counts, paid = result["submissions"], result["platform_minor"]
    sessions = {
        session.external_id: session
        for session in WorkSession.objects.filter(
            campaign=campaign, external_id__in=[s.assignment_id for s in work]
        ).annotate(done=Count("assignments", filter=Q(assignments__submitted_at__isnull=False)))
    }
    no_work = []
    for submission in work:
        state = _state(submission)
        counts[state] += 1
        session = sessions.get(submission.assignment_id)
        if session is None:
            result["unknown_to_site"] += 1
        if state == "awaiting_review" and (session is None or not session.done):
            no_work.append(submission)
        elif (
            state in ("returned", "timed_out")
            and session is not None
            and session.state != WorkSession.State.ABANDONED
        ):
            session_abandon(session=session, platform_status=state.replace("_", " "))
        if state == "approved":
            paid["rewards"] += campaign.reward_cents
            paid["fees"] += platform.fee_cents(campaign.reward_cents)
        bonuses = submission.bonuses_cents
        if bonuses is None and submission.is_submitted:
            bonuses = platform.bonuses_paid(assignment_id=submission.assignment_id) or ()
        for cents in bonuses or ():
            paid["bonuses"] += cents
            paid["fees"] += platform.fee_cents(cents)
    result["places_held"] = counts["approved"] + counts["awaiting_review"] + counts["active"]
    result["rejections_queued"] = _no_work_reject(campaign, no_work)


def _no_work_reject(campaign: Campaign, submissions: list[Submission]) -> int:
    """Reject, through the outbox, submissions that left no work here, in the platform's
    no-data category. Once per submission (the token names it)."""
    actions = [
        PlatformAction(
            kind=PlatformAction.Kind.REJECT,
            worker=worker_from_platform(platform=campaign.platform, external_id=s.worker_id),
            campaign=campaign,
            token=f"reject:submission:{s.assignment_id}",
            details={
                "submission_id": s.assignment_id,
                "no_data": True,
                "feedback": NO_WORK_FEEDBACK,
            },
        )
        for s in submissions
        if s.worker_id
    ]
    return len(platform_actions_queue(actions)) if actions else 0


def _site_side(campaign: Campaign, result: dict) -> None:
    """The site's view where the platform cannot be read: its sessions (confirmed by the
    uploaded records, where there are some) and its ledger; the platform's own figures are
    unknown. A session the site released for want of confirmation, or gave up on because the
    platform never listed it or listed it for someone else, is counted released, not returned;
    one the platform let run out of time, timed out; one an upload confirmed after its release
    awaits review like any other."""
    counts = result["submissions"]
    sessions = WorkSession.objects.filter(campaign=campaign)
    rewarded = set(
        LedgerEntry.objects.filter(campaign=campaign, kind=LedgerEntry.Kind.REWARD).values_list(
            "source", flat=True
        )
    )
    rejected = set(
        Assignment.objects.filter(session__campaign=campaign)
        .values("session")
        .annotate(
            standing=Count("pk", filter=~Q(status=Assignment.Status.REJECTED)),
        )
        .filter(standing=0)
        .values_list("session", flat=True)
    )
    for session in sessions.only("pk", "state", "platform_status"):
        if f"session:{session.pk}" in rewarded:
            counts["approved"] += 1
        elif session.pk in rejected:
            counts["rejected"] += 1
        elif session.state == WorkSession.State.ABANDONED:
            counts[_abandoned_state(session)] += 1
        elif session.state == WorkSession.State.OPEN:
            counts["active"] += 1
        else:
            counts["awaiting_review"] += 1
    result["places_held"] = counts["approved"] + counts["awaiting_review"] + counts["active"]
    result["platform_minor"] = dict.fromkeys(result["platform_minor"], None)
    result["unknown_to_site"] = None
    result["difference_minor"] = None
    result["unknown"] = [
        "platform_minor: the platform's payments are not read here",
        # A platform with no API is known through its uploaded records; one that failed, not at all.
        f"unknown_to_site: {platforms.get(campaign.platform).label}'s submissions could not be read"
        if "error" in result
        else "unknown_to_site: the platform's submissions are known only through uploaded records",
        "submissions: counted from the site's sessions",
    ]


def _abandoned_state(session: WorkSession) -> str:
    if session.platform_status in (NOT_CONFIRMED, NEVER_LISTED, SOMEONE_ELSES):
        return "released"
    if session.platform_status == TIMED_OUT:
        return "timed_out"
    if session.platform_status == LISTED:
        return "awaiting_review"  # released, then confirmed by an upload
    return "returned"


def reconciliation_lines(result: dict) -> list[str]:
    """The reconciliation in words, for the command line and the campaign page."""
    money = platforms.get(result["platform"]).money
    counts = ", ".join(
        f"{n} {state.replace('_', ' ')}" for state, n in result["submissions"].items()
    )
    lines = [f"Submissions: {counts}.", f"Places held: {result['places_held']}."]
    if result["unknown_to_site"]:
        lines.append(f"Unknown to the site: {result['unknown_to_site']}.")
    for side, name in (("ledger_minor", "Ledger"), ("platform_minor", "Platform")):
        figures = result[side]
        if None in figures.values():
            lines.append(f"{name}: unknown.")
            continue
        lines.append(
            f"{name}: rewards {money(figures['rewards'])}, bonuses {money(figures['bonuses'])}, "
            f"fees {money(figures['fees'])}."
        )
    if result["difference_minor"] is not None:
        lines.append(f"Difference (ledger − platform): {money(result['difference_minor'])}.")
    lines += [f"Unknown: {what}." for what in result.get("unknown", [])]
    if result.get("error"):
        lines.append(f"Error: {result['error']}")
    return lines


def campaign_listing_ids(campaign) -> list[str]:
    """The ids of the campaign's listings on its platform (its study, or its HITs)."""
    postings = (
        campaign.postings.exclude(external_hit_id="")
        .order_by("pk")
        .values_list("external_hit_id", flat=True)
    )
    return platforms.get(campaign.platform).listing_ids(
        campaign_listing_id=campaign.external_id, posting_listing_ids=list(postings)
    )
