"""Prolific through its REST API (https://docs.prolific.com/api-reference).

A campaign is one Prolific *study*: a draft created with our external URL and one completion
code, then published; participants' *submissions* are read back, approved or rejected, and
bonuses are paid per study in two steps (set up, then pay).

Prolific has no idempotency tokens, so this module makes the calls that could be repeated
after a timeout safe itself: a study is looked up by its ``internal_name`` (our token) before
one is created; a transition that finds the study or submission already where it was sent
counts as done. Paying a bonus cannot be made safe here, so it is split in two and the caller
keeps the bonus id between the steps (see ``bonus_setup`` and ``bonus_pay``).

Who may take a study (participant groups, which stand for our qualifications, and filters)
and the lowest reward Prolific recommends are in audience.py.

Throttling (429) and server errors (5xx) are retried with exponential backoff, except where a
retry could pay twice; any other refusal raises ``PlatformError`` with Prolific's own message.
A look-up someone is waiting on (``submission(..., quick=True)``, an arrival) is the exception:
one try within ARRIVAL_TIMEOUT, and none at all while a circuit breaker (paracrowd.breaker)
holds Prolific as failing, so an outage of Prolific is answered at once and never ties up the
site's web threads.
"""

import re
import time
from collections.abc import Callable, Iterable, Iterator
from decimal import Decimal
from urllib.parse import urlencode

import requests

from paracrowd.breaker import Breaker, BreakerOpen

from ..base import PlatformError, Submission
from .audience import ProlificAudience
from .hooks import ProlificHooks

DEFAULT_URL = "https://api.prolific.com"
RETRIES = 5
MAX_BACKOFF_SECONDS = 60
# Seconds to connect and to wait for the answer of a look-up a participant waits on: at most 3 s
# in all, where the retried calls of the workers wait up to 30 s each and back off in between
# (while Prolific answered 5xx, arrivals waited up to 78 s for their refusal).
ARRIVAL_TIMEOUT = (1, 2)

# Prolific's ids (participants, studies, submissions) are MongoDB object ids.
PROLIFIC_ID = re.compile(r"[0-9a-f]{24}")

# The placeholders Prolific replaces in a study's URL when it sends a participant to it.
URL_PLACEHOLDERS = {
    "PROLIFIC_PID": "{{%PROLIFIC_PID%}}",
    "STUDY_ID": "{{%STUDY_ID%}}",
    "SESSION_ID": "{{%SESSION_ID%}}",
}

# Submission statuses in the shared vocabulary; anything else (RETURNED, TIMED-OUT, SCREENED
# OUT, …) left no work to pay for. https://docs.prolific.com/api-reference/submissions/submission-object
STATUSES = {
    "AWAITING REVIEW": Submission.SUBMITTED,
    "APPROVED": Submission.APPROVED,
    "PARTIALLY APPROVED": Submission.APPROVED,
    "REJECTED": Submission.REJECTED,
    "RESERVED": Submission.WORKING,
    "ACTIVE": Submission.WORKING,
}
# What a study-submission count (GET /studies/{id}/submissions/counts/) adds up to.
# https://docs.prolific.com/api-reference/studies/count-study-submissions-by-status
IN_PROGRESS_STATUSES = ("RESERVED", "ACTIVE")
SUBMITTED_STATUSES = ("AWAITING REVIEW", "APPROVED", "PARTIALLY APPROVED", "REJECTED")
# A study that is no longer taking participants, whatever ended it.
STOPPED_STATUSES = ("AWAITING REVIEW", "COMPLETED")

# Prolific asks a rejection for a category and a message participants read; it refuses one
# shorter than this.
REJECTION_CATEGORY = "LOW_EFFORT"
# For a submission that left no work with us at all.
# https://docs.prolific.com/api-reference/submissions/transition-submission
NO_DATA_CATEGORY = "NO_DATA"
REJECTION_MESSAGE_MINIMUM = 100
REJECTION_MESSAGE_PADDING = (
    " The submission did not meet the quality the task instructions asked for,"
    " so it cannot be approved."
)


class ProlificError(PlatformError):
    """Prolific answered with an error; ``status`` is its HTTP status (0: no answer)."""

    def __init__(self, message: str, *, status: int = 0):
        super().__init__(message)
        self.status = status


class PaymentUncertain(ProlificError):
    """A pay call was sent but no answer says whether Prolific took it. It is never retried
    here: someone must look at the workspace's payments before paying that bonus again."""


def fee_cents(reward_cents: int, *, percent: int) -> int:
    """Prolific's service fee on a payment of ``reward_cents``, rounded up to a minor unit."""
    if reward_cents <= 0:
        return 0
    return -(-reward_cents * percent // 100)


def amount(cents: int) -> str:
    """Prolific's bonus amounts are in major units with two decimals: 25 → "0.25"."""
    if isinstance(cents, bool) or not isinstance(cents, int) or cents < 0:
        raise ValueError("An amount is a whole, non-negative number of cents.")
    return str((Decimal(cents) / 100).quantize(Decimal("0.01")))


def _participant(participant_id) -> str:
    if not isinstance(participant_id, str) or not PROLIFIC_ID.fullmatch(participant_id):
        raise ValueError(f"{participant_id!r} is not a Prolific id (24 hexadecimal characters).")
    return participant_id


def approvals_csv(participant_ids: Iterable[str]) -> str:
    """The list Prolific's bulk-approve box takes: one participant id per line. An id given
    twice is listed once (approving twice is the same approval)."""
    seen = dict.fromkeys(_participant(participant_id) for participant_id in participant_ids)
    return "".join(f"{participant_id}\n" for participant_id in seen)


def bonuses_csv(rows: Iterable[tuple[str, int]]) -> str:
    """The text Prolific's bulk-bonus box (and its API's ``csv_bonuses``) takes: one
    ``participant_id,amount`` line per participant, the amount in major units.
    https://docs.prolific.com/api-reference/bonuses/create-bonus-payments

    A participant listed twice is refused, not merged: Prolific would pay both lines."""
    lines, seen = [], set()
    for row in rows:
        try:
            participant_id, cents = row
        except (TypeError, ValueError):
            raise ValueError(f"{row!r} is not a (participant id, cents) pair.") from None
        _participant(participant_id)
        if isinstance(cents, bool) or not isinstance(cents, int) or cents <= 0:
            raise ValueError(f"The bonus for {participant_id} must be a positive number of cents.")
        if participant_id in seen:
            raise ValueError(f"{participant_id} is listed twice; give one line per participant.")
        seen.add(participant_id)
        lines.append(f"{participant_id},{amount(cents)}\n")
    return "".join(lines)


def study_url(url: str) -> str:
    """``url`` with Prolific's participant, study and session placeholders as query
    parameters of those names. https://docs.prolific.com/documentation/get-started/your-first-data-collection
    """
    separator = "&" if "?" in url else "?"
    # urlencode would escape the braces and percent signs Prolific looks for.
    query = "&".join(f"{name}={value}" for name, value in URL_PLACEHOLDERS.items())
    return f"{url}{separator}{query}"


class Prolific(ProlificAudience, ProlificHooks):
    """A Prolific workspace reached with an API token. ``workspace_id`` is needed for the
    balance, participant groups and reward recommendations; ``project_id`` puts new studies
    in that project (else the token's default). Participant groups, filters and rewards are
    in ``ProlificAudience`` (audience.py); webhook secrets and subscriptions in
    ``ProlificHooks`` (hooks.py)."""

    platform = "prolific"

    def __init__(
        self,
        *,
        token: str,
        base_url: str = DEFAULT_URL,
        workspace_id: str = "",
        project_id: str = "",
        sleep: Callable = time.sleep,
        timeout: float = 30,
        breaker: Breaker | None = None,
    ):
        if not token:
            raise PlatformError("Prolific needs an API token (PROLIFIC_API_TOKEN).")
        self.base_url = base_url.rstrip("/")
        self.workspace_id = workspace_id
        self.project_id = project_id
        self.timeout = timeout
        self._sleep = sleep
        # One breaker per API address, shared by every process through the cache.
        self.breaker = breaker or Breaker(f"prolific:{self.base_url}")
        self.session = requests.Session()
        self.last_headers = requests.structures.CaseInsensitiveDict()
        # https://docs.prolific.com/api-reference (Authentication: "Token <token>")
        self.session.headers.update({"Authorization": f"Token {token}"})

    # The account

    def balance_cents(self, *, currency: str | None = None) -> int:
        """What the workspace can spend, in its currency's minor units. With ``currency``,
        ``PlatformError`` unless the workspace pays in it: every amount the site states and
        books is in that currency, and Prolific pays in the workspace's own
        (https://docs.prolific.com/api-reference/workspaces/get-workspace-balance)."""
        workspace_id = self._workspace_id("balances")
        answer = self._call("GET", f"/api/v1/workspaces/{workspace_id}/balance/")
        paid_in = answer.get("currency_code")
        if currency and paid_in and paid_in != currency:
            raise PlatformError(
                f"The Prolific workspace pays in {paid_in}, but the site states and books "
                f"{currency} (PROLIFIC_CURRENCY): participants would be told one sum and paid "
                "another. Set PROLIFIC_CURRENCY to the workspace's currency."
            )
        return int(answer["available_balance"])

    # Studies

    def study_create(
        self,
        *,
        name: str,
        internal_name: str,
        description: str,
        url: str,
        completion_code: str,
        reward_cents: int,
        places: int,
        minutes: int,
        filters: list[dict] | None = None,
        maximum_minutes: int | None = None,
        failed_check_code: str = "",
        sessions_per_participant: int = 1,
    ) -> str:
        """A draft study sending participants to ``url``; returns its id. ``internal_name`` is
        the caller's unique token: asked again with it, this returns the study the first call
        created instead of creating a second. Participants get ``maximum_minutes`` (twice
        ``minutes`` unless given) before Prolific times them out; ``completion_code`` sends a
        submission to manual review, and so does ``failed_check_code`` (when given), typed as a
        failed attention check. A participant may take up to ``sessions_per_participant``
        places (-1: any number). ``filters`` (see ``group_filter`` and ``language_filter``)
        restrict who may take it."""
        existing = self._study_named(internal_name)
        if existing:
            return existing
        body = {
            "name": name,
            "internal_name": internal_name,
            "description": description,
            "external_study_url": study_url(url),
            "prolific_id_option": "url_parameters",
            "completion_codes": [
                {
                    "code": completion_code,
                    "code_type": "COMPLETED",
                    "actions": [{"action": "MANUALLY_REVIEW"}],
                }
            ],
            "total_available_places": places,
            "estimated_completion_time": minutes,
            "maximum_allowed_time": minutes * 2 if maximum_minutes is None else maximum_minutes,
            "reward": reward_cents,
        }
        if failed_check_code:
            # Completion codes, their types and actions, and submissions_config:
            # https://docs.prolific.com/api-reference/studies/create-study
            body["completion_codes"].append(
                {
                    "code": failed_check_code,
                    "code_type": "FAILED_ATTENTION_CHECK",
                    "actions": [{"action": "MANUALLY_REVIEW"}],
                }
            )
        if sessions_per_participant != 1:
            body["submissions_config"] = {
                "max_submissions_per_participant": sessions_per_participant
            }
        if filters is not None:
            body["filters"] = filters
        if self.project_id:
            body["project"] = self.project_id
        return self._call("POST", "/api/v1/studies/", json=body)["id"]

    def study_publish(self, study_id: str) -> None:
        """Open a draft study to participants; one already published is left as it is."""
        if self._study(study_id).get("status") != "UNPUBLISHED":
            return
        self._transition_study(study_id, "PUBLISH")

    def study_stop(self, study_id: str) -> None:
        """Take no more participants; those already in it may still submit."""
        if self._study(study_id).get("status") in STOPPED_STATUSES:
            return
        self._transition_study(study_id, "STOP")

    def study_places(self, study_id: str, places: int) -> None:
        """Offer ``places`` places in all (Prolific only lets a study grow)."""
        self._call("PATCH", f"/api/v1/studies/{study_id}/", json={"total_available_places": places})

    def study_counts(self, study_id: str) -> dict:
        """How many places are still open, taken by participants at work, and submitted."""
        study = self._study(study_id)
        counts = self._call("GET", f"/api/v1/studies/{study_id}/submissions/counts/")
        total = int(study.get("total_available_places") or 0)
        taken = int(study.get("places_taken") or 0)
        return {
            "available": max(total - taken, 0),
            "in_progress": sum(int(counts.get(key) or 0) for key in IN_PROGRESS_STATUSES),
            "submitted": sum(int(counts.get(key) or 0) for key in SUBMITTED_STATUSES),
            "status": study.get("status", ""),
        }

    # Submissions

    def submissions(self, study_id: str) -> Iterator[Submission]:
        """Every submission of a study, page by page."""
        for item in self._pages("/api/v1/submissions/", {"study": study_id}):
            yield _submission(item, study_id=study_id)

    def submission(self, submission_id: str, *, quick: bool = False) -> Submission:
        """One submission. An unknown id raises ``ProlificError`` with status 404; so does a
        malformed one, without asking Prolific (a forged id costs no call). ``quick``: someone
        is waiting on the answer (one try, short timeout, not while Prolific is failing).
        https://docs.prolific.com/api-reference/submissions/get-submission"""
        submission_id = self._checked_id(submission_id, kind="submission", status=404)
        path = f"/api/v1/submissions/{submission_id}/"
        return _submission(self._call("GET", path, quick=quick))

    def approve(self, *, assignment_id: str, feedback: str = "") -> None:
        """Approve (and so pay) a submission; one already approved counts as done. Prolific
        takes no message with an approval, so ``feedback`` is not sent."""
        self._transition_submission(assignment_id, {"action": "APPROVE"}, done="APPROVED")

    def reject(self, *, assignment_id: str, feedback: str, no_data: bool = False) -> None:
        """Reject a submission with ``feedback`` as the message the participant reads; one
        already rejected counts as done. ``no_data``: the submission left no work here, and
        is rejected in Prolific's category for that."""
        self._transition_submission(
            assignment_id,
            {
                "action": "REJECT",
                "message": rejection_message(feedback),
                "rejection_category": NO_DATA_CATEGORY if no_data else REJECTION_CATEGORY,
            },
            done="REJECTED",
        )

    def submission_bonuses(self, submission_id: str) -> list[int]:
        """The bonuses Prolific has paid on a submission, in minor units. Paying is
        asynchronous, so a bonus asked for minutes ago may not be listed yet.
        https://docs.prolific.com/api-reference/submissions/get-submission (bonus_payments,
        "returned in pence / cents")"""
        submission_id = self._checked_id(submission_id, kind="submission", status=404)
        answer = self._call("GET", f"/api/v1/submissions/{submission_id}/")
        return [int(round(value)) for value in answer.get("bonus_payments") or []]

    # Bonuses

    def bonus_setup(self, *, worker_id: str, assignment_id: str, cents: int) -> str:
        """Prepare (not pay) a bonus of ``cents`` to the participant of a submission; returns
        the bonus id. Safe to repeat: an unpaid bonus costs nothing.

        Paying is ``bonus_pay(bonus_id)``, which Prolific does not deduplicate: the caller must
        store the id *before* paying and pay each id at most once.
        https://docs.prolific.com/api-reference/bonuses/pay-bonus-payments"""
        submission = self.submission(assignment_id)
        if submission.worker_id != worker_id:
            raise PlatformError(
                f"Submission {assignment_id} is not by participant {worker_id}: no bonus set up."
            )
        answer = self._call(
            "POST",
            "/api/v1/submissions/bonus-payments/",
            json={
                "study_id": submission.listing_id,
                "csv_bonuses": bonuses_csv([(worker_id, cents)]),
            },
        )
        return answer["id"]

    def bonus_pay(self, bonus_id: str) -> None:
        """Pay a bonus set up by ``bonus_setup``. Only a throttled call (which Prolific did not
        take) is retried; a lost answer raises ``PaymentUncertain`` and is never resent."""
        self._call("POST", f"/api/v1/bulk-bonus-payments/{bonus_id}/pay/", pays=True)

    def bonus(self, *, worker_id: str, assignment_id: str, cents: int, reason: str, token: str):
        # One call cannot pay a Prolific bonus safely: a retry after a lost answer would pay
        # again. Refuse clearly rather than risk it.
        raise PlatformError(
            "Prolific bonuses are paid in two steps: store the id bonus_setup returns, then "
            "call bonus_pay once with it."
        )

    # The API

    def _workspace_id(self, what: str) -> str:
        if not self.workspace_id:
            raise PlatformError(
                f"Prolific keeps {what} per workspace: give the connector a workspace_id."
            )
        return self.workspace_id

    @staticmethod
    def _checked_id(value, *, kind: str, status: int) -> str:
        """``value`` if it is a Prolific id; else the refusal Prolific would answer (with
        ``status``), raised before anything is sent. Ids go into URL paths, so this also
        keeps a forged one from pointing a request elsewhere."""
        if not isinstance(value, str) or not PROLIFIC_ID.fullmatch(value):
            raise ProlificError(
                f"{value!r} is not a Prolific {kind} id (24 hexadecimal characters); "
                "nothing was sent.",
                status=status,
            )
        return value

    def _study(self, study_id: str) -> dict:
        return self._call("GET", f"/api/v1/studies/{study_id}/")

    def _study_named(self, internal_name: str) -> str | None:
        for study in self._pages("/api/v1/studies/", {}):
            if study.get("internal_name") == internal_name:
                return study["id"]
        return None

    def _transition_study(self, study_id: str, action: str) -> None:
        self._call("POST", f"/api/v1/studies/{study_id}/transition/", json={"action": action})

    def _transition_submission(self, submission_id: str, body: dict, *, done: str) -> None:
        path = f"/api/v1/submissions/{submission_id}/transition/"
        try:
            self._call("POST", path, json=body)
        except ProlificError as error:
            # A retry after a lost answer finds the submission already moved, which Prolific
            # refuses as an invalid transition: read it to tell that from a real refusal.
            if error.status != 400:
                raise
            submission = self._call("GET", f"/api/v1/submissions/{submission_id}/")
            if submission.get("status") != done:
                raise

    def _pages(self, path: str, params: dict) -> Iterator[dict]:
        """The results of a listing, following its ``_links.next`` while it stays on our API
        (the token is never sent anywhere else)."""
        url = f"{self.base_url}{path}"
        if params:
            url = f"{url}?{urlencode(params)}"
        while url:
            answer = self._call("GET", url)
            yield from answer.get("results", [])
            following = ((answer.get("_links") or {}).get("next") or {}).get("href")
            if following and not following.startswith(self.base_url + "/"):
                raise PlatformError(f"Prolific pointed the next page off its API: {following}")
            url = following

    def _call(
        self,
        method: str,
        path: str,
        *,
        json=None,
        params=None,
        pays: bool = False,
        quick: bool = False,
    ) -> dict | list:
        """Send one request, retrying throttling and (unless it ``pays``) server errors; a
        ``quick`` one is tried once, within ARRIVAL_TIMEOUT, behind the breaker."""
        url = path if path.startswith(self.base_url) else f"{self.base_url}{path}"
        if quick:
            return self._call_once(method, url, path, json=json, params=params)
        for attempt in range(RETRIES + 1):
            try:
                response = self.session.request(
                    method, url, json=json, params=params, timeout=self.timeout
                )
            except requests.RequestException as error:
                if pays:
                    raise PaymentUncertain(
                        f"Prolific did not answer a payment ({error}); check the workspace's "
                        "payments before paying it again."
                    ) from error
                raise ProlificError(f"Prolific could not be reached: {error}") from error
            status = response.status_code
            retry = status == 429 or (status >= 500 and not pays)
            if retry and attempt < RETRIES:
                self._sleep(_backoff(response, attempt))
                continue
            if status >= 500 and pays:
                raise PaymentUncertain(
                    f"Prolific failed while paying ({status}: {_message(response)}); check the "
                    "workspace's payments before paying it again.",
                    status=status,
                )
            # Read by the calls whose answer is in a header too (a subscription's X-Hook-Secret).
            self.last_headers = response.headers
            return _answer(method, path, response)
        raise AssertionError("unreachable")

    def _call_once(self, method: str, url: str, path: str, *, json, params) -> dict | list:
        try:
            attempt = self.breaker.attempt()
        except BreakerOpen:
            raise ProlificError(
                "Prolific failed several times just now; it is not asked again for a while.",
                status=503,
            ) from None
        try:
            response = self.session.request(
                method, url, json=json, params=params, timeout=ARRIVAL_TIMEOUT
            )
        except requests.RequestException as error:
            attempt.failed()
            raise ProlificError(f"Prolific could not be reached: {error}") from error
        # Throttling counts as failing too: Prolific asks us to call less.
        if response.status_code == 429 or response.status_code >= 500:
            attempt.failed()
        else:
            attempt.succeeded()
        return _answer(method, path, response)


def _answer(method: str, path: str, response) -> dict | list:
    """Prolific's answer as JSON ({} when empty), or ``ProlificError`` for a refusal."""
    status = response.status_code
    if status >= 400:
        raise ProlificError(
            f"Prolific refused {method} {path} ({status}): {_message(response)}", status=status
        )
    if not response.content:
        return {}
    try:
        return response.json()
    except ValueError:
        return {}


def _submission(item: dict, *, study_id: str = "") -> Submission:
    """A submission object of Prolific's in the shared vocabulary."""
    bonuses = item.get("bonus_payments")
    return Submission(
        assignment_id=item["id"],
        worker_id=item.get("participant_id") or item.get("participant") or "",
        listing_id=item.get("study_id") or study_id,
        status=STATUSES.get(item.get("status", ""), Submission.GONE),
        # The submission object gives no approval time.
        approved_at=None,
        timed_out=item.get("status") == "TIMED-OUT",
        # Paid bonuses, in minor units, where the object lists them.
        # https://docs.prolific.com/api-reference/submissions/get-submission
        bonuses_cents=None if bonuses is None else tuple(int(round(v)) for v in bonuses),
    )


def rejection_message(feedback: str) -> str:
    """The reviewer's feedback as Prolific's rejection message, completed with a standard
    sentence when it is shorter than Prolific accepts."""
    message = (feedback or "").strip()
    if not message:
        raise ValueError("A rejection needs feedback telling the participant why.")
    if len(message) < REJECTION_MESSAGE_MINIMUM:
        message += REJECTION_MESSAGE_PADDING
    return message


def _backoff(response, attempt: int) -> float:
    """Prolific's Retry-After when it gives one in seconds, else exponential backoff."""
    delay = min(2**attempt * 0.5, MAX_BACKOFF_SECONDS)
    retry_after = response.headers.get("Retry-After", "")
    if retry_after.isdecimal():
        delay = min(max(delay, int(retry_after)), MAX_BACKOFF_SECONDS)
    return delay


def _message(response) -> str:
    """Prolific's own words from an error answer ({"error": {"title", "detail"}}), whatever
    its shape; the raw text when it is not JSON."""
    try:
        body = response.json()
    except ValueError:
        return response.text[:500] or response.reason or "no message"
    error = body.get("error", body) if isinstance(body, dict) else body
    if isinstance(error, dict):
        parts = [str(error["title"])] if error.get("title") else []
        detail = error.get("detail")
        if detail:
            parts.append(_flatten(detail))
        return ": ".join(parts) or _flatten(error)
    return _flatten(error)


def _flatten(detail) -> str:
    if isinstance(detail, dict):
        return "; ".join(f"{key}: {_flatten(value)}" for key, value in detail.items())
    if isinstance(detail, list | tuple):
        return " ".join(_flatten(value) for value in detail)
    return str(detail)
