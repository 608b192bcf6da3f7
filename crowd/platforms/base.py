"""What every connector shares: how a platform reports one piece of work, and its errors."""

from dataclasses import dataclass
from datetime import datetime


class PlatformError(Exception):
    """The platform refused a call or could not be reached; the message says which."""


class NotConfigured(PlatformError):
    """No connector is configured for the platform."""


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

    @property
    def is_submitted(self) -> bool:
        """The worker finished it on the platform (whatever has been decided since)."""
        return self.status in (self.SUBMITTED, self.APPROVED, self.REJECTED)


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

    def sandbox(self) -> bool:
        """Whether work is published to the platform's test copy, where nothing is paid."""
        return False

    def open_check(self, *, today=None) -> None:
        """Raise ``PlatformError`` with the platform's own words if it takes no new work."""

    def payments_open(self, *, today=None) -> bool:
        """Whether the platform still takes approvals and bonuses."""
        return True

    def money(self, cents: int) -> str:
        """``cents`` minor units in the platform's currency, as a participant reads them."""
        return money(cents, self.currency())


CURRENCY_SYMBOLS = {"USD": "$", "GBP": "£", "EUR": "€"}


def money(cents: int, currency: str) -> str:
    """``cents`` minor units of ``currency``: "$0.60", "£1,234.50", "0.60 CHF"."""
    symbol = CURRENCY_SYMBOLS.get(currency)
    amount = f"{cents / 100:,.2f}"
    return f"{symbol}{amount}" if symbol else f"{amount} {currency}"
