"""A local stand-in for Prolific's API: the endpoints our connector uses, with the same paths,
methods, JSON shapes, status codes and error answers, in a thread of the test process.

Tests reach it through the ``prolific_api`` fixture (tests/crowd/conftest.py) and play the
participants' part with ``participant_joins`` and ``submission_status``; ``fail_next`` makes the
next matching request answer with an error (a 429 to test backoff, a 500, a dropped
connection). Every request is recorded in ``requests`` (method, path, query, headers, json).

Besides studies, submissions and bonuses it keeps participant groups (``groups``, members in
``group_members``), lists Prolific's filters (``FILTERS``, with ``fluent-languages``) and
answers reward recommendations from ``reward_rates``. A study restricted by a
``participant_group_allowlist`` filter only lets the group's members join.
"""

import json
import math
import secrets
import threading
from dataclasses import dataclass, field
from fractions import Fraction
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

import pytest

from crowd.platforms.prolific.client import PROLIFIC_ID, Prolific
from tests.crowd.prolific_hooks_standin import HooksStandIn
from tests.crowd.prolific_study_rules import study_fields_problem, takes_another

from .prolific_standin_filters import FILTERS

TOKEN = "standin-token"
WORKSPACE = "6500000000000000000000aa"
PAGE_SIZE = 2  # small, so listings of a few items already span pages
REJECTION_CATEGORIES = {
    "TOO_QUICKLY",
    "TOO_SLOWLY",
    "FAILED_INSTRUCTIONS",
    "INCOMP_LONGITUDINAL",
    "FAILED_CHECK",
    "LOW_EFFORT",
    "MALINGERING",
    "NO_CODE",
    "BAD_CODE",
    "NO_DATA",
    "UNSUPP_PREF",
    "OTHER",
}
GROUP_FIELDS = {"name", "workspace_id", "organisation_id", "description", "participant_ids"}
GROUP_FILTERS = {"participant_group_allowlist", "participant_group_blocklist"}
CURRENCIES = ("GBP", "USD")
REQUIRED_STUDY_FIELDS = (
    "name",
    "description",
    "external_study_url",
    "prolific_id_option",
    "completion_codes",
    "total_available_places",
    "estimated_completion_time",
    "reward",
)


def new_id() -> str:
    return secrets.token_hex(12)


def fee_cents(cents: int, *, percent: int) -> int:
    """Prolific's fee on a payment, rounded up to the minor unit (worked out here, not taken
    from the connector, so that the two are checked against each other)."""
    return math.ceil(Fraction(cents * percent, 100))


@dataclass
class Recorded:
    method: str
    path: str
    query: dict
    headers: dict
    json: object


class NotEligible(AssertionError):
    """Prolific would not let this participant take the study."""


class HTTPError(Exception):
    def __init__(self, status: int, detail, title: str = "Invalid request"):
        self.status, self.detail, self.title = status, detail, title


@dataclass
class ProlificStandIn(HooksStandIn):
    url: str = ""
    requests: list = field(default_factory=list)
    studies: dict = field(default_factory=dict)
    submissions: dict = field(default_factory=dict)
    bonuses: dict = field(default_factory=dict)
    groups: dict = field(default_factory=dict)  # id: Prolific's participant group object
    group_members: dict = field(default_factory=dict)  # group id: participant ids, in order
    # currency: (min_reward_per_hour, recommended_reward_per_hour), in minor units per hour;
    # a currency left out is answered with no recommendation.
    reward_rates: dict = field(default_factory=lambda: {"GBP": (600, 900), "USD": (800, 1200)})
    rewards_paged: bool = False  # answer recommendations as {"results": [...]}, not a list
    payments: list = field(default_factory=list)  # bonus ids, once per pay call Prolific took
    # The workspace's balance, in minor units of its currency: an approval takes the study's
    # reward and its fee, a bonus paid its amount and its fee (``fee_percent``, the fixture's
    # setting, rounded up to a minor unit).
    balance: int = 125_000
    currency: str = "GBP"
    fee_percent: int = 0
    failures: list = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    # What tests call

    def connector(self, **options) -> Prolific:
        """A connector on this stand-in whose backoff sleeps are recorded, not slept."""
        self.slept = []
        options.setdefault("workspace_id", WORKSPACE)
        return Prolific(token=TOKEN, base_url=self.url, sleep=self.slept.append, **options)

    def participant_joins(
        self, study_id: str, participant_id: str | None = None, *, status: str = "ACTIVE"
    ) -> tuple[str, str]:
        """A participant (``participant_id``, else a new one) takes a place in a published
        study; returns (participant, submission). One Prolific would not let in (not in the
        study's allowlisted groups, or in it already) raises ``NotEligible``."""
        study = self.studies[study_id]
        assert study["status"] == "ACTIVE", "participants only join a published study"
        participant_id = participant_id or new_id()
        for entry in study.get("filters") or []:
            if entry["filter_id"] == "participant_group_allowlist" and not any(
                participant_id in self.group_members[group_id]
                for group_id in entry["selected_values"]
            ):
                raise NotEligible(f"{participant_id} is in none of the study's allowed groups")
        taken = sum(
            1
            for s in self.submissions.values()
            if s["participant_id"] == participant_id and s["study_id"] == study_id
        )
        if not takes_another(study, taken):
            raise NotEligible(f"{participant_id} has already taken study {study_id}")
        submission_id = new_id()
        self.submissions[submission_id] = {
            "id": submission_id,
            "participant_id": participant_id,
            "study_id": study_id,
            "status": status,
            "started_at": "2025-01-01T10:00:00Z",
            "completed_at": None,
            "bonus_payments": [],
        }
        study["places_taken"] += 1
        return participant_id, submission_id

    def submission_status(self, submission_id: str, status: str) -> None:
        """Move a submission on, as the participant or Prolific would (submit, return, …)."""
        self.submissions[submission_id]["status"] = status

    def fail_next(
        self, method: str, path: str, *, status: int = 429, times: int = 1, drop: bool = False
    ):
        """The next ``times`` requests to ``path`` answer ``status`` (or, with ``drop``, are
        carried out and then answered with a dropped connection, as a lost answer)."""
        self.failures.append(
            {"method": method, "path": path, "status": status, "left": times, "drop": drop}
        )

    def sent(self, method: str, path: str) -> list[Recorded]:
        return [r for r in self.requests if r.method == method and r.path == path]

    def group_add(self, name: str, members=(), *, workspace_id: str = WORKSPACE) -> str:
        """A participant group made outside the connector (in Prolific's app); returns its id."""
        return self._create_group(
            {"name": name, "workspace_id": workspace_id, "participant_ids": list(members)}
        )["id"]

    # The API

    def handle(self, method: str, path: str, query: dict, body) -> tuple[int, object]:
        parts = [part for part in path.split("/") if part][2:]  # after /api/v1
        route = (method, *parts)
        match route:
            case ("GET", "workspaces", workspace_id, "balance") if workspace_id == WORKSPACE:
                return 200, {
                    "currency_code": self.currency,
                    "total_balance": self.balance,
                    "balance_breakdown": {"rewards": self.balance, "fees": 0, "vat": 0},
                    "available_balance": self.balance,
                    "available_balance_breakdown": {"rewards": self.balance, "fees": 0, "vat": 0},
                }
            case ("GET", "studies"):
                return 200, self._page(list(self.studies.values()), path, query)
            case ("POST", "studies"):
                return 201, self._create_study(body)
            case ("GET", "studies", study_id):
                return 200, self._study(study_id)
            case ("PATCH", "studies", study_id):
                study = self._study(study_id)
                places = body.get("total_available_places")
                if not isinstance(places, int) or places < study["total_available_places"]:
                    raise HTTPError(
                        400,
                        {"total_available_places": ["You can only increase the number of places."]},
                    )
                study["total_available_places"] = places
                return 200, study
            case ("POST", "studies", study_id, "transition"):
                return 200, self._transition_study(self._study(study_id), body.get("action"))
            case ("GET", "studies", study_id, "submissions", "counts"):
                self._study(study_id)
                counts = {}
                for submission in self.submissions.values():
                    if submission["study_id"] == study_id:
                        counts[submission["status"]] = counts.get(submission["status"], 0) + 1
                counts["TOTAL"] = sum(counts.values())
                return 200, counts
            case ("GET", "submissions"):
                if "study" not in query:
                    raise HTTPError(400, {"study": ["This field is required."]})
                items = [s for s in self.submissions.values() if s["study_id"] == query["study"]]
                return 200, self._page(items, path, query)
            case ("GET", "submissions", submission_id):
                return 200, self._submission(submission_id)
            case ("POST", "submissions", submission_id, "transition"):
                return 200, self._transition_submission(self._submission(submission_id), body)
            case ("POST", "submissions", "bonus-payments"):
                return 201, self._create_bonus(body)
            case ("POST", "bulk-bonus-payments", bonus_id, "pay"):
                if bonus_id not in self.bonuses:
                    raise HTTPError(404, "Not found.", "Not found")
                self._pay_bonus(self.bonuses[bonus_id])
                return 202, ""
            case ("GET", "participant-groups"):
                if "workspace_id" not in query and "organisation_id" not in query:
                    raise HTTPError(400, {"workspace_id": ["This field is required."]})
                owner = query.get("workspace_id") or query.get("organisation_id")
                return 200, {
                    "results": [
                        self._group(group["id"])
                        for group in self.groups.values()
                        if owner in (group["workspace_id"], group["organisation_id"])
                    ]
                }
            case ("POST", "participant-groups"):
                return 201, self._create_group(body)
            case ("GET", "participant-groups", group_id):
                return 200, self._group(group_id)
            case ("GET", "participant-groups", group_id, "participants"):
                self._group(group_id)
                members = [
                    {"participant_id": member, "datetime_created": "2025-01-01T10:00:00Z"}
                    for member in self.group_members[group_id]
                ]
                return 200, self._page(members, path, query)
            case ("POST" | "DELETE", "participant-groups", group_id, "participants"):
                return 200, self._change_members(method, group_id, body)
            case ("GET", "filters"):
                return 200, self._page(FILTERS, path, query)
            case ("GET", "reward-recommendations"):
                return 200, self._reward_recommendations(query)
            case (_, "hooks", *rest):  # prolific_hooks_standin.py
                return self.handle_hooks(method, rest, query, body)
        raise HTTPError(404, "Not found.", "Not found")

    def _page(self, items: list, path: str, query: dict) -> dict:
        page = int(query.get("page", "1"))
        start = (page - 1) * PAGE_SIZE
        extra = "".join(f"{key}={value}&" for key, value in query.items() if key != "page")
        following = None
        if start + PAGE_SIZE < len(items):
            following = {"href": f"{self.url}{path}?{extra}page={page + 1}"}
        return {
            "results": items[start : start + PAGE_SIZE],
            "_links": {
                "self": {"href": f"{self.url}{path}"},
                "next": following,
                "previous": None,
                "last": None,
            },
            "meta": {"count": len(items)},
        }

    def _study(self, study_id: str) -> dict:
        if study_id not in self.studies:
            raise HTTPError(404, "Not found.", "Not found")
        return self.studies[study_id]

    def _submission(self, submission_id: str) -> dict:
        if submission_id not in self.submissions:
            raise HTTPError(404, "Not found.", "Not found")
        return self.submissions[submission_id]

    def _create_study(self, body: dict) -> dict:
        missing = {
            name: ["This field is required."] for name in REQUIRED_STUDY_FIELDS if name not in body
        }
        if missing:
            raise HTTPError(400, missing)
        self._check_filters(body.get("filters", []))
        problem = study_fields_problem(body)
        if problem:
            raise HTTPError(400, problem)
        study = dict(
            body, id=new_id(), status="UNPUBLISHED", places_taken=0, number_of_submissions=0
        )
        self.studies[study["id"]] = study
        return study

    def _transition_study(self, study: dict, action) -> dict:
        allowed = {
            "PUBLISH": ({"UNPUBLISHED"}, "ACTIVE"),
            "PAUSE": ({"ACTIVE"}, "PAUSED"),
            "START": ({"PAUSED"}, "ACTIVE"),
            "STOP": ({"ACTIVE", "PAUSED"}, "AWAITING REVIEW"),
        }
        if action not in allowed:
            raise HTTPError(400, {"action": [f'"{action}" is not a valid choice.']})
        sources, target = allowed[action]
        if study["status"] not in sources:
            raise HTTPError(400, f"Cannot {action} a study that is {study['status']}.")
        study["status"] = target
        return study

    def _transition_submission(self, submission: dict, body: dict) -> dict:
        action = body.get("action")
        if action not in ("APPROVE", "REJECT"):
            raise HTTPError(400, {"action": [f'"{action}" is not a valid choice.']})
        if submission["status"] != "AWAITING REVIEW":
            raise HTTPError(
                400,
                f"Cannot transition a submission that is {submission['status']}.",
                "Invalid transition",
            )
        if action == "REJECT":
            if body.get("rejection_category") not in REJECTION_CATEGORIES:
                raise HTTPError(400, {"rejection_category": ["This field is required."]})
            if len(body.get("message") or "") < 100:
                raise HTTPError(
                    400, {"message": ["Ensure this field has at least 100 characters."]}
                )
        submission["status"] = "APPROVED" if action == "APPROVE" else "REJECTED"
        if action == "APPROVE":
            reward = self.studies[submission["study_id"]]["reward"]
            self.balance -= reward + fee_cents(reward, percent=self.fee_percent)
        return submission

    def _create_bonus(self, body: dict) -> dict:
        study_id = body.get("study_id")
        self._study(study_id)
        takers = {
            s["participant_id"] for s in self.submissions.values() if s["study_id"] == study_id
        }
        total, wrong = 0, []
        for line in (body.get("csv_bonuses") or "").splitlines():
            participant_id, value = line.split(",")
            if participant_id not in takers:
                wrong.append(participant_id)
            total += round(float(value) * 100)
        if wrong:
            raise HTTPError(400, {"csv_bonuses": [f"Invalid IDs: {', '.join(wrong)}"]})
        fees = sum(
            fee_cents(round(float(line.split(",")[1]) * 100), percent=self.fee_percent)
            for line in (body.get("csv_bonuses") or "").splitlines()
        )
        bonus = {
            "id": new_id(),
            "study": study_id,
            "amount": total,
            "fees": fees,
            "vat": 0,
            "total_amount": total + fees,
            "csv_bonuses": body["csv_bonuses"],
        }
        self.bonuses[bonus["id"]] = bonus
        return bonus

    def _pay_bonus(self, bonus: dict) -> None:
        """Each line is paid (again if paid before, as Prolific does) and listed on the
        participant's submission in ``bonus_payments``, in minor units.
        https://docs.prolific.com/api-reference/submissions/get-submission"""
        self.payments.append(bonus["id"])
        for line in bonus["csv_bonuses"].splitlines():
            participant_id, value = line.split(",")
            cents = round(float(value) * 100)
            for submission in self.submissions.values():
                if (submission["participant_id"], submission["study_id"]) == (
                    participant_id,
                    bonus["study"],
                ):
                    submission["bonus_payments"].append(cents)
            self.balance -= cents + fee_cents(cents, percent=self.fee_percent)

    def _check_filters(self, filters) -> None:
        """Refuse, as Prolific does, a study filter it could not apply."""
        if not isinstance(filters, list):
            raise HTTPError(400, {"filters": ["Expected a list of items."]})
        known = {item["filter_id"]: item for item in FILTERS}
        for entry in filters:
            if not isinstance(entry, dict) or "filter_id" not in entry:
                raise HTTPError(400, {"filters": [{"filter_id": ["This field is required."]}]})
            unknown = set(entry) - {"filter_id", "selected_values", "selected_range"}
            if unknown:
                raise HTTPError(400, {"filters": [{key: ["Unknown field."] for key in unknown}]})
            filter_id, values = entry["filter_id"], entry.get("selected_values")
            if filter_id not in known and filter_id not in GROUP_FILTERS:
                raise HTTPError(400, {"filters": [f'"{filter_id}" is not a valid filter.']})
            if filter_id in GROUP_FILTERS or known[filter_id]["type"] == "select":
                if not isinstance(values, list) or not values:
                    raise HTTPError(
                        400, {"filters": [{"selected_values": ["This field is required."]}]}
                    )
                valid = self.groups if filter_id in GROUP_FILTERS else known[filter_id]["choices"]
                wrong = [value for value in values if value not in valid]
                if wrong:
                    raise HTTPError(
                        400,
                        {
                            "filters": [
                                f"Invalid choices for {filter_id}: {', '.join(map(str, wrong))}"
                            ]
                        },
                    )
            elif not isinstance(entry.get("selected_range"), dict):
                raise HTTPError(400, {"filters": [{"selected_range": ["This field is required."]}]})

    def _group(self, group_id: str) -> dict:
        if group_id not in self.groups:
            raise HTTPError(404, "Not found.", "Not found")
        return dict(self.groups[group_id], participant_count=len(self.group_members[group_id]))

    def _create_group(self, body: dict) -> dict:
        unknown = set(body) - GROUP_FIELDS
        if unknown:
            raise HTTPError(400, {key: ["Unknown field."] for key in sorted(unknown)})
        if not isinstance(body.get("name"), str) or not body["name"]:
            raise HTTPError(400, {"name": ["This field is required."]})
        if bool(body.get("workspace_id")) == bool(body.get("organisation_id")):
            raise HTTPError(
                400, "Either a workspace_id or an organisation_id must be given, not both."
            )
        if body.get("workspace_id") and body["workspace_id"] != WORKSPACE:
            raise HTTPError(404, "Workspace not found.", "Not found")
        members = self._participant_ids(body.get("participant_ids", []))
        group = {
            "id": new_id(),
            "name": body["name"],
            "description": body.get("description", ""),
            "workspace_id": body.get("workspace_id"),
            "organisation_id": body.get("organisation_id"),
            "project_id": None,
            "is_deleted": False,
            "feeder_studies": [],
        }
        self.groups[group["id"]] = group
        self.group_members[group["id"]] = list(dict.fromkeys(members))
        return self._group(group["id"])

    def _change_members(self, method: str, group_id: str, body: dict) -> dict:
        self._group(group_id)
        unknown = set(body) - {"participant_ids"}
        if unknown:
            raise HTTPError(400, {key: ["Unknown field."] for key in sorted(unknown)})
        given = self._participant_ids(body.get("participant_ids"))
        members = self.group_members[group_id]
        if method == "POST":
            members.extend(p for p in dict.fromkeys(given) if p not in members)
        else:
            members[:] = [p for p in members if p not in given]
        return {"results": [{"participant_id": member} for member in members]}

    def _participant_ids(self, values) -> list:
        if not isinstance(values, list):
            raise HTTPError(400, {"participant_ids": ["Expected a list of items."]})
        wrong = [v for v in values if not (isinstance(v, str) and PROLIFIC_ID.fullmatch(v))]
        if wrong:
            raise HTTPError(
                400, {"participant_ids": [f"Invalid IDs: {', '.join(map(str, wrong))}"]}
            )
        return values

    def _reward_recommendations(self, query: dict):
        missing = {
            name: ["This field is required."]
            for name in ("workspace_id", "currency")
            if name not in query
        }
        if missing:
            raise HTTPError(400, missing)
        if query["currency"] not in CURRENCIES:
            raise HTTPError(400, {"currency": [f'"{query["currency"]}" is not a valid choice.']})
        rates = self.reward_rates.get(query["currency"])
        recommendations = []
        if rates:
            minimum, recommended = rates
            recommendations.append(
                {
                    "currency": query["currency"],
                    "min_reward_per_hour": minimum,
                    "recommended_reward_per_hour": recommended,
                }
            )
        return {"results": recommendations} if self.rewards_paged else recommendations

    def _failure(self, method: str, path: str):
        for failure in self.failures:
            # A path ending in "*" matches every path it begins (an id not known yet).
            wanted = failure["path"]
            matches = path.startswith(wanted[:-1]) if wanted.endswith("*") else path == wanted
            if failure["method"] == method and matches and failure["left"]:
                failure["left"] -= 1
                return failure
        return None


class _Handler(BaseHTTPRequestHandler):
    standin: ProlificStandIn

    def _serve(self):
        parts = urlsplit(self.path)
        query = {key: values[-1] for key, values in parse_qs(parts.query).items()}
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        body = json.loads(raw) if raw else None
        standin = self.standin
        with standin.lock:
            standin.requests.append(
                Recorded(self.command, parts.path, query, dict(self.headers), body)
            )
            failure = standin._failure(self.command, parts.path)
            try:
                if self.headers.get("Authorization") != f"Token {TOKEN}":
                    raise HTTPError(401, "Invalid token.", "Unauthorized")
                if failure and not failure["drop"]:
                    raise HTTPError(failure["status"], "Request was throttled.", "Throttled")
                status, answer = standin.handle(self.command, parts.path, query, body or {})
            except HTTPError as error:
                status, answer = (
                    error.status,
                    {
                        "error": {
                            "error_code": 140000 + error.status,
                            "title": error.title,
                            "detail": error.detail,
                            "additional_information": f"/api/v1/errors/{140000 + error.status}",
                        }
                    },
                )
            extra = standin.take_answer_headers()
        if failure and failure["drop"]:
            self.close_connection = True
            self.wfile.flush()
            self.connection.shutdown(2)
            return
        data = json.dumps(answer).encode() if answer != "" else b""
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for name, value in extra.items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)

    do_GET = do_POST = do_PATCH = do_DELETE = _serve

    def log_message(self, format, *args):  # keep test output quiet
        pass


@pytest.fixture
def prolific_api(settings):
    # The workspace pays in the currency the site is set for, as an operator sets it up.
    standin = ProlificStandIn(
        fee_percent=settings.PROLIFIC_FEE_PERCENT, currency=settings.PROLIFIC_CURRENCY
    )
    handler = type("Handler", (_Handler,), {"standin": standin})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    standin.url = f"http://127.0.0.1:{server.server_address[1]}"
    # shutdown() waits for the serving loop's next poll; at the default half second, every
    # test paid it in teardown, most of these suites' time.
    thread = threading.Thread(target=server.serve_forever, args=(0.01,), daemon=True)
    thread.start()
    try:
        yield standin
    finally:
        server.shutdown()
        server.server_close()
        thread.join()
