"""Amazon Mechanical Turk through boto3's ``mturk`` client.

Every call that creates something or moves money carries a ``UniqueRequestToken`` derived
from what it is for, so a retry after a timeout never posts a HIT or pays a bonus twice
(MTurk answers the repeated token with an error naming it, which is treated as done).
Throttling is retried with exponential backoff; any other error is raised to the caller.

Mechanical Turk has closed: ``closure_check`` refuses new work after ``LAST_HIT_DAY`` and
``payments_open`` says whether approvals and bonuses can still be sent. What was published
before stays readable (assignments, HIT counts) for the campaigns' history.
"""

import time
from collections.abc import Callable, Iterator
from datetime import UTC, date, datetime
from decimal import Decimal
from xml.sax.saxutils import escape

import boto3
from botocore.exceptions import BotoCoreError, ClientError

from ..base import PlatformError, Submission

SANDBOX_ENDPOINT = "https://mturk-requester-sandbox.us-east-1.amazonaws.com"
PRODUCTION_ENDPOINT = "https://mturk-requester.us-east-1.amazonaws.com"
# MTurk's own submit endpoints, the only places an ExternalQuestion page posts back to.
SANDBOX_SUBMIT = "https://workersandbox.mturk.com"
PRODUCTION_SUBMIT = "https://www.mturk.com"
EXTERNAL_QUESTION_SCHEMA = (
    "http://mechanicalturk.amazonaws.com/AWSMechanicalTurkDataSchemas/"
    "2006-07-14/ExternalQuestion.xsd"
)
THROTTLE_RETRIES = 6
TOKEN_MAX_LENGTH = 64  # MTurk's limit on UniqueRequestToken

# Mechanical Turk's closure, as Amazon announced it (days in UTC, the project's time zone).
LAST_HIT_DAY = date(2026, 9, 30)  # the last day a new HIT could be published
LAST_PAYMENT_DAY = date(2026, 10, 30)  # the last day for approvals and bonuses
LAST_HISTORY_DAY = date(2027, 1, 28)  # the last day the transaction history can be downloaded
CLOSURE_MESSAGE = (
    "Amazon Mechanical Turk closed on 30 September 2026: no new HITs can be published or "
    "extended there. Approvals and bonuses ended on 30 October 2026, and the account's "
    "transaction history can be downloaded from Mechanical Turk until 28 January 2027. "
    "Publish new work on Prolific or through a study link instead."
)


# What Mechanical Turk sends as assignmentId while a worker only looks at the HIT.
PREVIEW_ASSIGNMENT_ID = "ASSIGNMENT_ID_NOT_AVAILABLE"

# Mechanical Turk's assignment statuses in the shared vocabulary.
STATUSES = {
    "Submitted": Submission.SUBMITTED,
    "Approved": Submission.APPROVED,
    "Rejected": Submission.REJECTED,
}
# Its fee: 20% of every reward and bonus, at least $0.01; 20% more on HITs of 10 or more
# assignments (https://requester.mturk.com/pricing).
FEE_PERCENT = 20
FEE_PERCENT_LARGE_HIT = 40
LARGE_HIT_ASSIGNMENTS = 10
FEE_MINIMUM_CENTS = 1


def closure_check(*, today: date | None = None) -> None:
    """Raise ``PlatformError(CLOSURE_MESSAGE)`` if new work (a HIT, or more time on one) would
    reach Mechanical Turk after its last day for HITs."""
    if (today or _today()) > LAST_HIT_DAY:
        raise PlatformError(CLOSURE_MESSAGE)


def payments_open(today: date | None = None) -> bool:
    """Whether Mechanical Turk still takes approvals and bonuses (not after 30 October 2026)."""
    return (today or _today()) <= LAST_PAYMENT_DAY


def _today() -> date:
    return datetime.now(UTC).date()


def fee_cents(reward_cents: int, *, max_assignments: int = 1) -> int:
    """Mechanical Turk's fee on one payment of ``reward_cents``, rounded up to a cent."""
    if reward_cents == 0:
        return 0
    percent = FEE_PERCENT_LARGE_HIT if max_assignments >= LARGE_HIT_ASSIGNMENTS else FEE_PERCENT
    return max(FEE_MINIMUM_CENTS, -(-reward_cents * percent // 100))


def reward(cents: int) -> str:
    """MTurk's money strings are dollars with two decimals: 5 → "0.05"."""
    if isinstance(cents, bool) or not isinstance(cents, int) or cents < 0:
        raise ValueError("An amount is a whole, non-negative number of cents.")
    return str((Decimal(cents) / 100).quantize(Decimal("0.01")))


def external_question(url: str, *, frame_height: int = 0) -> str:
    """The ExternalQuestion XML that shows ``url`` in the worker's frame (0: as tall as the
    page needs)."""
    return (
        f'<ExternalQuestion xmlns="{EXTERNAL_QUESTION_SCHEMA}">'
        f"<ExternalURL>{escape(url)}</ExternalURL>"
        f"<FrameHeight>{frame_height}</FrameHeight>"
        "</ExternalQuestion>"
    )


class MechanicalTurk:
    """A requester account on the sandbox or on production; credentials come from the standard
    AWS chain (environment, shared files, instance role)."""

    def __init__(self, *, sandbox: bool = True, client=None, sleep: Callable = time.sleep):
        self.sandbox = sandbox
        self.client = client or boto3.client(
            "mturk",
            region_name="us-east-1",
            endpoint_url=SANDBOX_ENDPOINT if sandbox else PRODUCTION_ENDPOINT,
        )
        self._sleep = sleep

    @property
    def submit_origin(self) -> str:
        return SANDBOX_SUBMIT if self.sandbox else PRODUCTION_SUBMIT

    def balance_cents(self, *, currency: str | None = None) -> int:
        """What the account can spend, in cents (of US dollars, its only currency)."""
        if currency and currency != "USD":
            raise PlatformError(f"Mechanical Turk pays in USD, not {currency}.")
        answer = self._call("get_account_balance")
        return int(Decimal(answer["AvailableBalance"]) * 100)

    def qualification_type_create(self, *, name: str, description: str) -> str:
        """A qualification type ParaCrowd grants itself (Tier 2); returns its id."""
        answer = self._call(
            "create_qualification_type",
            Name=name,
            Description=description,
            Keywords="paracrowd,tier",
            QualificationTypeStatus="Active",
        )
        return answer["QualificationType"]["QualificationTypeId"]

    def qualification_type_find(self, *, name: str) -> str | None:
        """The id of this account's qualification type called ``name``, if it has one (it was
        created before, by a database that has since forgotten it)."""
        answer = self._call(
            "list_qualification_types",
            Query=name,
            MustBeRequestable=False,
            MustBeOwnedByCaller=True,
            MaxResults=100,
        )
        for found in answer.get("QualificationTypes", []):
            if found.get("Name") == name:
                return found["QualificationTypeId"]
        return None

    def hit_type_create(
        self,
        *,
        title: str,
        description: str,
        keywords: str,
        reward_cents: int,
        assignment_seconds: int,
        auto_approval_seconds: int,
        qualification_type_id: str | None = None,
    ) -> str:
        """A HIT type paying ``reward_cents``; with a qualification type, only its holders may
        preview or accept its HITs."""
        requirements = []
        if qualification_type_id:
            requirements.append(
                {
                    "QualificationTypeId": qualification_type_id,
                    "Comparator": "Exists",
                    "ActionsGuarded": "DiscoverPreviewAndAccept",
                }
            )
        answer = self._call(
            "create_hit_type",
            Title=title,
            Description=description,
            Keywords=keywords,
            Reward=reward(reward_cents),
            AssignmentDurationInSeconds=assignment_seconds,
            AutoApprovalDelayInSeconds=auto_approval_seconds,
            QualificationRequirements=requirements,
        )
        return answer["HITTypeId"]

    def hit_create(
        self, *, hit_type_id: str, url: str, max_assignments: int, lifetime_seconds: int, token: str
    ) -> str | None:
        """One HIT of ``hit_type_id`` showing ``url``; returns its id. ``token`` names what it
        publishes: asked again with the same token, MTurk creates nothing and this returns None
        (the id is the one the first call returned)."""
        answer = self._call(
            "create_hit_with_hit_type",
            HITTypeId=hit_type_id,
            MaxAssignments=max_assignments,
            LifetimeInSeconds=lifetime_seconds,
            Question=external_question(url),
            RequesterAnnotation=token[:255],
            UniqueRequestToken=_token(token),
        )
        return answer["HIT"]["HITId"] if answer else None

    def hit_find(self, *, annotation: str) -> str | None:
        """The id of the HIT created with ``annotation`` (our token), when a create call went
        through but its answer was lost; None if there is none."""
        params = {"MaxResults": 100}
        while True:
            answer = self._call("list_hits", **params)
            for hit in answer.get("HITs", []):
                if hit.get("RequesterAnnotation") == annotation[:255]:
                    return hit["HITId"]
            if not answer.get("NextToken") or not answer.get("HITs"):
                return None
            params["NextToken"] = answer["NextToken"]

    def hit_counts(self, hit_id: str) -> dict:
        """How many of a HIT's assignments are available, in progress and completed."""
        hit = self._call("get_hit", HITId=hit_id)["HIT"]
        return {
            "available": hit.get("NumberOfAssignmentsAvailable", 0),
            "in_progress": hit.get("NumberOfAssignmentsPending", 0),
            "submitted": hit.get("NumberOfAssignmentsCompleted", 0),
            "status": hit.get("HITStatus", ""),
        }

    def hit_expire(self, hit_id: str) -> None:
        """Stop offering a HIT now; assignments already accepted may still be submitted."""
        self._call("update_expiration_for_hit", HITId=hit_id, ExpireAt=datetime(2015, 1, 1))

    def hit_extend(self, hit_id: str, *, until: datetime) -> None:
        """Offer a HIT until ``until`` (also one that has expired)."""
        self._call("update_expiration_for_hit", HITId=hit_id, ExpireAt=until)

    def assignments(self, hit_id: str) -> Iterator[Submission]:
        """Every submitted, approved or rejected assignment of a HIT, page by page."""
        params = {"HITId": hit_id, "MaxResults": 100}
        while True:
            answer = self._call("list_assignments_for_hit", **params)
            for item in answer.get("Assignments", []):
                yield Submission(
                    assignment_id=item["AssignmentId"],
                    worker_id=item["WorkerId"],
                    listing_id=item["HITId"],
                    status=STATUSES.get(item["AssignmentStatus"], Submission.GONE),
                    approved_at=item.get("ApprovalTime"),
                )
            if not answer.get("NextToken") or not answer.get("Assignments"):
                return
            params["NextToken"] = answer["NextToken"]

    def assignment(self, assignment_id: str) -> Submission:
        """One assignment as Mechanical Turk sees it now (to tell whether an approval or
        rejection we are not sure of went through)."""
        item = self._call("get_assignment", AssignmentId=assignment_id)["Assignment"]
        return Submission(
            assignment_id=item["AssignmentId"],
            worker_id=item.get("WorkerId", ""),
            listing_id=item.get("HITId", ""),
            status=STATUSES.get(item.get("AssignmentStatus", ""), Submission.GONE),
            approved_at=item.get("ApprovalTime"),
        )

    def approve(
        self, *, assignment_id: str, feedback: str = "", override_rejection: bool = False
    ) -> None:
        """Approve (and so pay) an assignment; ``override_rejection`` approves one we had
        rejected (Mechanical Turk allows it within 30 days of submission)."""
        params = {"AssignmentId": assignment_id}
        if feedback:
            params["RequesterFeedback"] = feedback[:1024]
        if override_rejection:
            params["OverrideRejection"] = True
        self._call("approve_assignment", **params)

    def reject(self, *, assignment_id: str, feedback: str) -> None:
        self._call(
            "reject_assignment", AssignmentId=assignment_id, RequesterFeedback=feedback[:1024]
        )

    def bonus(
        self, *, worker_id: str, assignment_id: str, cents: int, reason: str, token: str
    ) -> None:
        """Pay a bonus once per ``token`` (the ledger entry it comes from)."""
        self._call(
            "send_bonus",
            WorkerId=worker_id,
            AssignmentId=assignment_id,
            BonusAmount=reward(cents),
            Reason=reason,
            UniqueRequestToken=_token(token),
        )

    def qualification_grant(self, *, qualification_type_id: str, worker_id: str) -> None:
        self._call(
            "associate_qualification_with_worker",
            QualificationTypeId=qualification_type_id,
            WorkerId=worker_id,
            IntegerValue=1,
            SendNotification=True,
        )

    def qualification_revoke(self, *, qualification_type_id: str, worker_id: str, reason: str):
        self._call(
            "disassociate_qualification_from_worker",
            QualificationTypeId=qualification_type_id,
            WorkerId=worker_id,
            Reason=reason,
        )

    def _call(self, operation: str, **params) -> dict:
        """Call the API, retrying throttling; any other refusal becomes a ``PlatformError``
        carrying Mechanical Turk's own message."""
        for attempt in range(THROTTLE_RETRIES + 1):
            try:
                return getattr(self.client, operation)(**params)
            except ClientError as error:
                code = error.response.get("Error", {}).get("Code", "")
                if code == "ThrottlingException" and attempt < THROTTLE_RETRIES:
                    self._sleep(min(2**attempt * 0.5, 30))
                    continue
                if _already_done(error) and "UniqueRequestToken" in params:
                    return {}
                message = error.response.get("Error", {}).get("Message", "") or str(error)
                raise PlatformError(f"Mechanical Turk refused {operation}: {message}") from error
            except BotoCoreError as error:
                raise PlatformError(f"Mechanical Turk could not be reached: {error}") from error
        raise AssertionError("unreachable")


def _token(text: str) -> str:
    return text[:TOKEN_MAX_LENGTH]


def _already_done(error: ClientError) -> bool:
    """MTurk answers a repeated UniqueRequestToken with a RequestError whose message says the
    token was already used: the earlier call went through."""
    message = error.response.get("Error", {}).get("Message", "")
    return "UniqueRequestToken" in message or "already been" in message
