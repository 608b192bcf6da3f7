"""What every connector shares: how a platform reports one piece of work, and its errors."""

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import ClassVar


class PlatformError(Exception):
    """The platform refused a call or could not be reached; the message says which."""


class NotConfigured(PlatformError):
    """No connector is configured for the platform."""


class WebhookRefused(Exception):
    """A request to the site's webhook that is not the platform's own event (no signature, a
    wrong one, a stale timestamp) or that it cannot read; ``status`` is the HTTP answer."""

    def __init__(self, message: str, *, status: int = 403):
        super().__init__(message)
        self.status = status


# What a connector's ``hooks_subscribe`` did: an enabled subscription was there already, one
# the platform had disabled is enabled again, or a new one was made.
HOOK_KEPT, HOOK_REENABLED, HOOK_CREATED = "kept", "re-enabled", "created"


@dataclass(frozen=True)
class WebhookEvent:
    """One event a platform sent to the site's webhook, its signature checked.

    ``about`` says what ``resource_id`` names: a SUBMISSION (a participant's place in a study,
    which is a work session here) or a LISTING (the study itself); ``status`` is the
    platform's own word for its new state."""

    SUBMISSION = "submission"
    LISTING = "listing"

    event_id: str
    event_type: str
    about: str
    resource_id: str
    status: str
    worker_id: str
    body: dict


@dataclass(frozen=True)
class Submission:
    """One piece of work as the platform reports it.

    ``assignment_id`` is the platform's key of that work (Mechanical Turk's assignment id,
    Prolific's submission id), ``listing_id`` what it was done for (the HIT id, the study id).
    ``status`` is one of STATUSES whatever the platform calls it.
    """

    SUBMITTED = "submitted"  # done, waiting for the requester's decision
    APPROVED = "approved"
    REJECTED = "rejected"
    WORKING = "working"  # accepted, not yet submitted
    GONE = "gone"  # returned, abandoned or timed out: no work to pay
    STATUSES = (SUBMITTED, APPROVED, REJECTED, WORKING, GONE)

    assignment_id: str
    worker_id: str
    listing_id: str
    status: str
    # When the platform approved it (by the requester or by its own auto-approval).
    approved_at: datetime | None = None
    # For GONE: the platform let it run out of time (rather than the worker giving it back).
    timed_out: bool = False
    # The bonuses the platform has paid on it, in minor units; None when it does not say.
    bonuses_cents: tuple[int, ...] | None = None

    @property
    def is_submitted(self) -> bool:
        """The worker finished it on the platform (whatever has been decided since)."""
        return self.status in (self.SUBMITTED, self.APPROVED, self.REJECTED)


# Ids a platform sends (Mechanical Turk's uppercase letters and digits, Prolific's hexadecimal,
# a study link's platform's own); the site's columns hold 64 characters.
PLATFORM_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")


class ArrivalInvalid(PlatformError):
    """An arrival's address holds ids its platform would not send (``status`` 400), or comes
    from where no platform we know sends participants (403); the message, for the
    participant, names the parameter."""

    def __init__(self, message: str, *, status: int = 400):
        super().__init__(message)
        self.status = status


@dataclass(frozen=True)
class ArrivalIds:
    """The ids a platform sent with a participant."""

    worker_id: str
    # The platform's key of this piece of work: MTurk's assignment, Prolific's session, a
    # study link's session.
    assignment_id: str
    # What it was done for: MTurk's HIT, Prolific's study, the study-link campaign's id.
    listing_id: str
    # Where a framed task posts its result back (Mechanical Turk's turkSubmitTo).
    submit_to: str = ""


@dataclass(frozen=True)
class ArrivalContext:
    """What reading an arrival may need of the site: the origins allowed to frame its pages,
    and how a listing's campaign wants its arrivals read (a study link's preset)."""

    frame_origins: tuple[str, ...] = ()
    listing_config: Callable[[str], object] | None = None


@dataclass(frozen=True)
class Completion:
    """How a participant goes back to the platform when done: ``address`` to send them to
    (empty: nowhere, they copy ``code``), ``verification`` to paste beside the code (empty:
    none), and whether to ``redirect`` there at once."""

    code: str
    address: str = ""
    verification: str = ""
    redirect: bool = False


def platform_id(params: Mapping, name: str, *, required: bool = False) -> str:
    """The id in the query parameter ``name`` ("" when absent and not ``required``), or
    ``ArrivalInvalid`` naming it."""
    value = params.get(name, "")
    if not value:
        if required:
            raise ArrivalInvalid(f"The parameter {name} is missing from this task's address.")
        return ""
    if not isinstance(value, str) or not PLATFORM_ID.fullmatch(value):
        raise ArrivalInvalid(
            f"The parameter {name} in this task's address is not one a crowd platform sends: "
            "it must be 1 to 64 letters, digits, - or _."
        )
    return value


class Platform:
    """One crowd platform as the rest of the site sees it: its money (currency, fee, minimum
    hourly pay), whether it takes new work or payments, what a participant takes there, and
    its API connector. Each platform's package under ``crowd.platforms`` holds one subclass;
    ``crowd.platforms.get(name)`` returns it. Code outside ``crowd.platforms`` asks these
    methods instead of testing which platform it has."""

    name = ""
    label = ""
    # What a participant takes on the platform: a "study", a "HIT".
    unit = "study"
    # Whether an arrival opens a work session of several tasks, paid as one place.
    pays_by_session = True
    # Whether the platform is only an archive now: history is read, no new work is published.
    archived = False
    # Whether the platform's study knows a second completion code for a participant our
    # quality rules stopped (Prolific's FAILED_ATTENTION_CHECK code type).
    failed_check_code = False
    # What a participant turned away should do, in the platform's words.
    return_advice = "Nothing was saved. Please go back to the study on your platform."
    # Whether a listing (a study) belongs to one campaign only: the database refuses a second.
    one_campaign_per_listing = False
    # Whether its workers' pay carries no fee (the site's own sign-ups', which no platform
    # carries and none charges for).
    fee_free = False
    # Whether its workers sign in here, so a trial is taken from their dashboard.
    signs_in_here = False
    # Whether its workers are named by their own ids in research tables (an imported corpus's,
    # so that they round-trip), rather than by ``<origin>-<our id>``.
    keeps_own_worker_ids = False

    def currency(self) -> str:
        """The ISO code of the currency the platform pays in."""
        return "USD"

    def fee_cents(self, cents: int, *, max_assignments: int = 1) -> int:
        """The platform's fee on one payment of ``cents`` minor units (0 on nothing)."""
        return 0

    def minimum_hourly_cents(self, *, ask: bool = False) -> int:
        """The lowest hourly pay the platform accepts, in minor units: the site's setting, or,
        with ``ask``, the platform's own figure when it can tell and it is higher."""
        return 0

    def configured(self) -> bool:
        """Whether the site is connected to the platform (its connector can be built)."""
        return False

    def make_connector(self):
        """The platform's API client, built from the settings (``configured()`` is true)."""
        raise NotConfigured(f"{self.label} has no API connector.")

    # Whether the platform has a test copy (a sandbox) work may be published to: only then do
    # the campaign pages say which of the two a campaign is on.
    has_sandbox = False

    def sandbox(self) -> bool:
        """Whether work is published to the platform's test copy, where nothing is paid."""
        return False

    def open_check(self, *, today=None) -> None:
        """Raise ``PlatformError`` with the platform's own words if it takes no new work."""

    def payments_open(self, *, today=None) -> bool:
        """Whether the platform still takes approvals and bonuses."""
        return True

    def return_origins(self) -> list[str]:
        """The origins a participant is sent back to when done (the pages' form-action)."""
        return []

    def work_read(self, *, listing_ids: list[str]) -> list[Submission] | None:
        """Every piece of work the platform holds for ``listing_ids`` (a campaign's studies),
        with the bonuses paid on each; None when the platform cannot be read (the site's
        records are then all there is). Raises ``PlatformError`` when the platform fails."""
        return None

    def bonuses_paid(self, *, assignment_id: str) -> list[int] | None:
        """The bonuses the platform has paid on one piece of work, in minor units; None when
        the platform cannot tell (a bonus there is then never taken as paid or unpaid)."""
        return None

    # The events the platform can send to the site's webhook, by its names, each with what it
    # is about (WebhookEvent.SUBMISSION or LISTING). Empty: it sends none.
    webhook_events: ClassVar[dict[str, str]] = {}

    def webhook_secret_setting(self) -> str:
        """The webhook signing secret the operator set (empty: the one publishing saved)."""
        return ""

    def webhook_handshake(self, headers) -> dict[str, str]:
        """The headers that answer a subscription's handshake request (empty: not one)."""
        return {}

    def webhook_read(self, *, headers, body: bytes, secret: str, now: float) -> WebhookEvent:
        """The event in a request to the webhook, once its signature (by ``secret``) and its
        time (against ``now``, in UNIX seconds) are checked; else ``WebhookRefused``."""
        raise WebhookRefused(f"{self.label} sends no webhooks.", status=404)

    def submission_status(self, word: str) -> str:
        """The platform's word for a submission's state, as one of ``Submission.STATUSES``."""
        return Submission.GONE

    # Arrivals, sessions and completion

    # What a participant who finished a task alone should do next ("" for nothing).
    done_advice = ""
    # For an archived platform: why it is not offered for new campaigns, and what its
    # campaigns' pages say (empty for a platform that takes new work).
    not_offered = ""
    closure_notice = ""
    # Whether a bonus is set up and then paid in a second call that cannot be repeated safely
    # (the outbox stores the set-up's id before paying); else one call with an idempotency
    # token.
    bonus_in_two_steps = False
    # Whether ``arrival_verify`` asks the platform about each new visit.
    verifies_arrivals = False
    # The campaign field an arrival's listing id is matched against.
    listing_field = "external_id"

    def claims_arrival(self, params: Mapping) -> bool:
        """Whether the query parameters ``params`` are this platform's arrival."""
        return False

    def arrival_read(self, params: Mapping, *, context: ArrivalContext) -> ArrivalIds:
        """The ids in an arrival this platform claims; ``ArrivalInvalid`` for ids it would
        not send (a preview may lack the participant's)."""
        raise ArrivalInvalid(f"{self.label} sends no participants to this site.")

    def arrival_verify(self, ids: ArrivalIds) -> bool | None:
        """Whether the platform lists this visit as the participant's, in its study and in
        progress (None: the platform cannot tell). ``PlatformError`` when it cannot be
        asked; its ``status`` is 404 for a visit it does not know. The participant waits on
        this: one quick try."""
        return None

    def submit_address(self, params: Mapping, *, context: ArrivalContext) -> str:
        """Where a framed task's form posts the result back to ("" for nowhere), checked
        against the origins allowed to frame the site; ``ArrivalInvalid`` (403) otherwise."""
        return ""

    def session_query(self, *, worker_id: str, session_id: str, listing_id: str, config=None):
        """The query parameters that bring a participant back into their session."""
        return {}

    def completion(self, *, code: str, worker_id: str, session_id: str, config=None):
        """How a participant goes back with ``code`` at the end of a session or task."""
        return Completion(code=code)

    def approvals_sheet(self, participant_ids) -> str:
        """The file the platform's own pages take to approve these participants' work."""
        raise PlatformError(f"{self.label} takes no approvals file.")

    def bonuses_sheet(self, rows) -> str:
        """The file the platform's own pages take to pay (participant id, cents) bonuses."""
        raise PlatformError(f"{self.label} takes no bonuses file.")

    def money(self, cents: int) -> str:
        """``cents`` minor units in the platform's currency, as a participant reads them."""
        return money(cents, self.currency())

    # ---- A campaign's life there: publishing, stopping, reading back, paying ----
    # A campaign is one listing on the platform (a study), or, with ``listing_per_posting``,
    # one listing per posting (a HIT), each with its own id.
    listing_per_posting = False
    # Whether a worker's Tier 2 is also kept on the platform (a qualification, a participant
    # group), granted and revoked there through the outbox.
    tier_on_platform = False
    # Whether the campaign's participants come through links printed here, which a person
    # pastes into the platform (and whose work is confirmed from the platform's export).
    prints_links = False
    # How the campaign page introduces the approvals and bonuses files for the platform's own
    # pages (None: it has none).
    sheet_wording: ClassVar["SheetWording | None"] = None

    @property
    def has_api(self) -> bool:
        """Whether the site talks to the platform through an API (publishing, decisions)."""
        return type(self).make_connector is not Platform.make_connector

    def takes_new_work(self, *, today=None) -> bool:
        """Whether new campaigns may be created and published there."""
        try:
            self.open_check(today=today)
        except PlatformError:
            return False
        return True

    def payments_refusal(self, *, today=None) -> str:
        """Why the platform takes no approval, rejection, bonus or qualification now, in its
        own words; "" while it does."""
        if self.payments_open(today=today):
            return ""
        return f"{self.label} takes no approvals or bonuses any more."

    def balance_cents(self) -> int | None:
        """What the account can spend, in minor units; None when the platform holds no
        account balance here (it is paid on its own pages)."""
        return None

    def listing_create(self, listing: "Listing") -> str:
        """Create the campaign's listing (unpublished where the platform has drafts) and
        return its id, which the caller stores before anything else is sent."""
        raise PlatformError(f"Nothing new is published on {self.label}.")

    def listing_publish(self, listing_id: str) -> None:
        """Open a created listing to participants; one already open is left as it is."""

    def listing_ids(self, *, campaign_listing_id: str, posting_listing_ids: list[str]) -> list[str]:
        """The ids of a campaign's listings there, from the campaign's and its postings'."""
        if self.listing_per_posting:
            return list(posting_listing_ids)
        return [campaign_listing_id] if campaign_listing_id else []

    def work_listing_id(self, *, campaign_listing_id: str, posting_listing_id: str) -> str:
        """The listing a piece of work is done for: its posting's, or its campaign's."""
        return posting_listing_id if self.listing_per_posting else campaign_listing_id

    def listings_stop(self, listing_ids: list[str]) -> None:
        """Take no more participants on these listings; work already begun may be submitted."""
        from . import connector

        for listing_id in listing_ids:
            connector(self.name).study_stop(listing_id)

    def listings_extend(self, listing_ids: list[str], *, until: datetime) -> None:
        """Keep these listings on offer until ``until``; ``PlatformError`` where they have no
        end date or the platform takes no new work."""
        self.open_check()
        raise PlatformError(
            f"{self.label} {self.unit}s run until they are full or stopped; nothing to extend."
        )

    def submissions_read(self, listing_ids: list[str]) -> list[Submission]:
        """Every piece of work the platform lists for these listings, for the read-back
        (``work_read``, without asking for the bonuses where it reads them apart)."""
        return self.work_read(listing_ids=listing_ids) or []

    def listing_counts(self, listing_ids: list[str]) -> dict | None:
        """The platform's counts of places (available, in_progress, submitted) summed over
        these listings; None when it keeps none."""
        return None


@dataclass(frozen=True)
class Listing:
    """What a campaign asks of the platform when it is published, in the site's words; each
    platform turns it into its own call. ``tier_group_id`` is the platform's id of the Tier-2
    qualification or group only its members pass (None: anyone); ``languages`` ISO 639-1 codes
    of which a participant must be fluent in one; ``campaign_id`` is the site's key of the
    campaign, from which the platform names the listing so that asking twice finds the first."""

    name: str
    campaign_id: int
    description: str
    url: str
    completion_code: str
    reward_cents: int
    places: int
    minutes: int
    maximum_minutes: int
    failed_check_code: str
    sessions_per_participant: int
    tier_group_id: str | None = None
    languages: tuple[str, ...] = ()


@dataclass(frozen=True)
class SheetWording:
    """The campaign page's sentence on a platform's files: ``lead``, a link named
    ``approvals``, "and", a link named ``bonuses``, then ``tail``."""

    lead: str
    approvals: str
    bonuses: str
    tail: str = ""


def origin(url: str) -> str:
    """``https://host[:port]`` of ``url``; "" for none."""
    return "/".join(url.split("/")[:3]) if url else ""


CURRENCY_SYMBOLS = {"USD": "$", "GBP": "£", "EUR": "€"}


def money(cents: int, currency: str) -> str:
    """``cents`` minor units of ``currency``: "$0.60", "£1,234.50", "0.60 CHF"."""
    symbol = CURRENCY_SYMBOLS.get(currency)
    amount = f"{cents / 100:,.2f}"
    return f"{symbol}{amount}" if symbol else f"{amount} {currency}"
