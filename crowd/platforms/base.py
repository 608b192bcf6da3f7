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
