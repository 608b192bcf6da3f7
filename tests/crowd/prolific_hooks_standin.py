"""The webhooks part of the Prolific stand-in (prolific_standin.py): the workspace's secret,
subscriptions confirmed with their X-Hook-Secret, and signed deliveries of events.
https://docs.prolific.com/api-reference/webhooks/subscribing
https://docs.prolific.com/api-reference/webhooks/verifying
https://docs.prolific.com/api-reference/webhooks/get-subscriptions (``is_enabled``, default true)
https://docs.prolific.com/api-reference/webhooks/update-subscription (PATCH: ``event_type`` and
``target_url`` required, ``is_enabled`` optional; answers the subscription)
https://docs.prolific.com/api-reference/webhooks/persistent-failures-and-disabling-logic

Prolific only sends to https:// addresses. In a test the site is the live server, on plain
HTTP: ``target_proxy`` stands for the TLS-terminating proxy in front of it, and is where the
stand-in sends what it would send to a subscription's target (its path kept). Without one,
nothing is sent anywhere.

``hook_disable`` does what Prolific does to a subscription whose deliveries all failed for
five days: it stays, disabled, listed only with ``is_enabled=false``, and is sent nothing.

``deliver`` sends a signed event to the subscribed target, as Prolific would; with ``secret``
or ``timestamp`` it sends a forged or stale one, and ``resend`` sends a delivery again byte for
byte (a replay).
"""

import base64
import hashlib
import hmac
import json
import secrets
import time
from dataclasses import dataclass, field
from urllib.parse import urlsplit

import requests

# From GET /api/v1/hooks/event-types/ and the Receiving page.
EVENT_TYPES = {
    "study.status.change",
    "study.progress.change",
    "study.has_high_return_rate",
    "submission.status.change",
    "participant.submission.created",
}


@dataclass
class Delivery:
    url: str
    headers: dict
    body: bytes
    response: requests.Response


@dataclass
class HooksStandIn:
    hook_secrets: dict = field(default_factory=dict)  # workspace id: Prolific's secret object
    subscriptions: dict = field(default_factory=dict)  # id: Prolific's subscription object
    unconfirmed: dict = field(default_factory=dict)  # subscription id: its X-Hook-Secret
    handshakes: list = field(default_factory=list)  # (target, the X-Hook-Secret it echoed)
    deliveries: list = field(default_factory=list)
    target_proxy: str = ""
    answer_headers: dict = field(default_factory=dict)

    # What tests call

    def deliver(
        self,
        event_type: str,
        body: dict,
        *,
        event_id: str | None = None,
        secret: str | None = None,
        timestamp: float | None = None,
    ) -> Delivery:
        """Send ``body`` to the one enabled subscription to ``event_type``, signed with the
        workspace's secret (or ``secret``) at ``timestamp`` (now unless given)."""
        from tests.crowd.prolific_standin import WORKSPACE

        (target,) = [
            s["target_url"]
            for s in self.subscriptions.values()
            if s["event_type"] == event_type and s["is_enabled"]
        ]
        raw = json.dumps(body).encode()
        stamp = str(int(time.time() if timestamp is None else timestamp))
        key = self.hook_secrets[WORKSPACE]["value"] if secret is None else secret
        digest = hmac.new(key.encode(), stamp.encode() + raw, hashlib.sha256).digest()
        headers = {
            "Content-Type": "application/json",
            "X-Prolific-Request-Signature": base64.b64encode(digest).decode(),
            "X-Prolific-Request-Timestamp": stamp,
            "X-Event-ID": event_id or secrets.token_hex(12),
        }
        return self._send(self._reach(target), headers, raw)

    def resend(self, delivery: Delivery, body: bytes | None = None, **headers) -> Delivery:
        """``delivery`` again, byte for byte (with ``body`` or ``headers`` changed, if given)."""
        body = delivery.body if body is None else body
        return self._send(delivery.url, {**delivery.headers, **headers}, body)

    def submission_notify(self, submission_id: str, **options) -> Delivery:
        """Prolific's submission.status.change for the submission's current status."""
        submission = self.submissions[submission_id]
        body = {
            "resource_id": submission_id,
            "event_type": "submission.status.change",
            "participant_id": submission["participant_id"],
            "status": submission["status"],
        }
        return self.deliver("submission.status.change", body, **options)

    def hook_disable(self, event_type: str) -> None:
        """Disable the subscriptions to ``event_type``, as Prolific does after five days of
        failed deliveries."""
        for subscription in self.subscriptions.values():
            if subscription["event_type"] == event_type:
                subscription["is_enabled"] = False

    def take_answer_headers(self) -> dict:
        headers, self.answer_headers = self.answer_headers, {}
        return headers

    # The API

    def handle_hooks(self, method: str, parts: list, query: dict, body) -> tuple[int, object]:
        from tests.crowd.prolific_standin import WORKSPACE, HTTPError, new_id

        match (method, *parts):
            case ("GET", "secrets"):
                if "workspace_id" not in query:
                    raise HTTPError(400, {"workspace_id": ["This field is required."]})
                found = self.hook_secrets.get(query["workspace_id"])
                return 200, {"results": [found] if found else []}
            case ("POST", "secrets"):
                workspace_id = body.get("workspace_id") or WORKSPACE
                if workspace_id != WORKSPACE:
                    raise HTTPError(404, "Workspace not found.", "Not found")
                # One secret per workspace: a new one replaces the old.
                secret = {"id": new_id(), "value": secrets.token_urlsafe(32)}
                self.hook_secrets[workspace_id] = dict(secret, workspace_id=workspace_id)
                return 201, self.hook_secrets[workspace_id]
            case ("GET", "subscriptions"):
                enabled = query.get("is_enabled", "true") == "true"
                found = [
                    s
                    for s in self.subscriptions.values()
                    if s["is_enabled"] == enabled
                    and query.get("workspace_id", s["workspace_id"]) == s["workspace_id"]
                ]
                return 200, self._page(found, "/api/v1/hooks/subscriptions/", query)
            case ("POST", "subscriptions"):
                return 201, {"results": [self._subscribe(body, new_id())]}
            case ("GET", "subscriptions", subscription_id):
                return 200, self._subscription(subscription_id)
            case ("POST", "subscriptions", subscription_id):
                subscription = self._subscription(subscription_id)
                if body.get("secret") != self.unconfirmed.get(subscription_id):
                    raise HTTPError(400, {"secret": ["The secret does not match."]})
                del self.unconfirmed[subscription_id]
                subscription["is_enabled"] = True
                return 200, subscription
            case ("PATCH", "subscriptions", subscription_id):
                subscription = self._subscription(subscription_id)
                changes = self._checked(body, ("event_type", "target_url"))
                if "is_enabled" in body:
                    if not isinstance(body["is_enabled"], bool):
                        raise HTTPError(400, {"is_enabled": ["Must be a valid boolean."]})
                    changes["is_enabled"] = body["is_enabled"]
                subscription.update(changes)
                return 200, subscription
        raise HTTPError(404, "Not found.", "Not found")

    def _subscribe(self, body: dict, subscription_id: str) -> dict:
        from tests.crowd.prolific_standin import HTTPError

        self._checked(body, ("event_type", "target_url", "workspace_id"))
        if body["workspace_id"] not in self.hook_secrets:
            raise HTTPError(400, "Create a secret for the workspace before subscribing.")
        subscription = {
            "id": subscription_id,
            "event_type": body["event_type"],
            "target_url": body["target_url"],
            "workspace_id": body["workspace_id"],
            "is_enabled": False,
        }
        self.subscriptions[subscription_id] = subscription
        handshake = secrets.token_urlsafe(24)
        self.unconfirmed[subscription_id] = handshake
        self.answer_headers["X-Hook-Secret"] = handshake
        if self.target_proxy:
            answer = requests.post(
                self._reach(body["target_url"]), headers={"X-Hook-Secret": handshake}, timeout=5
            )
            self.handshakes.append((body["target_url"], answer.headers.get("X-Hook-Secret")))
        return subscription

    def _checked(self, body: dict, required: tuple) -> dict:
        """The fields ``required`` of a subscription's ``body``, refused as Prolific does."""
        from tests.crowd.prolific_standin import HTTPError

        missing = {name: ["This field is required."] for name in required if not body.get(name)}
        if missing:
            raise HTTPError(400, missing)
        if body["event_type"] not in EVENT_TYPES:
            raise HTTPError(400, {"event_type": [f'"{body["event_type"]}" is not a valid choice.']})
        target = urlsplit(body["target_url"])
        if target.scheme != "https" or target.hostname in ("localhost", "127.0.0.1"):
            raise HTTPError(400, {"target_url": ["Must be a public https:// URL."]})
        return {name: body[name] for name in required}

    def _subscription(self, subscription_id: str) -> dict:
        from tests.crowd.prolific_standin import HTTPError

        if subscription_id not in self.subscriptions:
            raise HTTPError(404, "Not found.", "Not found")
        return self.subscriptions[subscription_id]

    def _reach(self, target: str) -> str:
        assert self.target_proxy, "set target_proxy (the live server) to reach a target"
        parts = urlsplit(target)
        return (
            self.target_proxy.rstrip("/") + parts.path + (f"?{parts.query}" if parts.query else "")
        )

    def _send(self, url: str, headers: dict, body: bytes) -> Delivery:
        response = requests.post(url, data=body, headers=headers, timeout=5)
        delivery = Delivery(url, headers, body, response)
        self.deliveries.append(delivery)
        return delivery
