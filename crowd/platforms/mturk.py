"""Amazon Mechanical Turk through boto3's ``mturk`` client.

Every call that creates something or moves money carries a ``UniqueRequestToken`` derived
from what it is for, so a retry after a timeout never posts a HIT or pays a bonus twice
(MTurk answers the repeated token with an error naming it, which is treated as done).
Throttling is retried with exponential backoff; any other error is raised to the caller.
"""

import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from decimal import Decimal
from xml.sax.saxutils import escape

import boto3
from botocore.exceptions import ClientError

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


@dataclass(frozen=True)
class PlatformAssignment:
    """One assignment as the platform reports it."""

    assignment_id: str
    worker_id: str
    hit_id: str
    status: str  # Submitted, Approved or Rejected


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

    def balance_cents(self) -> int:
        """What the account can spend, in cents."""
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

    def assignments(self, hit_id: str) -> Iterator[PlatformAssignment]:
        """Every submitted, approved or rejected assignment of a HIT, page by page."""
        params = {"HITId": hit_id, "MaxResults": 100}
        while True:
            answer = self._call("list_assignments_for_hit", **params)
            for item in answer.get("Assignments", []):
                yield PlatformAssignment(
                    assignment_id=item["AssignmentId"],
                    worker_id=item["WorkerId"],
                    hit_id=item["HITId"],
                    status=item["AssignmentStatus"],
                )
            if not answer.get("NextToken") or not answer.get("Assignments"):
                return
            params["NextToken"] = answer["NextToken"]

    def approve(self, *, assignment_id: str, feedback: str = "") -> None:
        params = {"AssignmentId": assignment_id}
        if feedback:
            params["RequesterFeedback"] = feedback[:1024]
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
                raise
        raise AssertionError("unreachable")


def _token(text: str) -> str:
    return text[:TOKEN_MAX_LENGTH]


def _already_done(error: ClientError) -> bool:
    """MTurk answers a repeated UniqueRequestToken with a RequestError whose message says the
    token was already used: the earlier call went through."""
    message = error.response.get("Error", {}).get("Message", "")
    return "UniqueRequestToken" in message or "already been" in message
