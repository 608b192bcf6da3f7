"""Prolific's webhooks: the workspace's signing secret, subscriptions to the events the site
acts on, and reading a signed event.
https://docs.prolific.com/api-reference/webhooks/subscribing
https://docs.prolific.com/api-reference/webhooks/receiving
https://docs.prolific.com/api-reference/webhooks/verifying
https://docs.prolific.com/api-reference/webhooks/get-subscriptions
https://docs.prolific.com/api-reference/webhooks/update-subscription
https://docs.prolific.com/api-reference/webhooks/persistent-failures-and-disabling-logic

A workspace has one secret at a time, and creating one replaces it (so events already on their
way would no longer verify): the secret is read first and created only when there is none. A
subscription is confirmed by sending back the ``X-Hook-Secret`` its creation answered with;
one the workspace already has for the same event and address is kept, so subscribing twice
makes nothing twice. Prolific disables a subscription whose deliveries all failed for five
days (and lists it only when asked for disabled ones, ``is_enabled=false``); subscribing
again re-enables it (PATCH with ``is_enabled`` true) rather than adding a second one.
"""

import base64
import hashlib
import hmac
import json

from ..base import (
    HOOK_CREATED,
    HOOK_KEPT,
    HOOK_REENABLED,
    PlatformError,
    WebhookEvent,
    WebhookRefused,
)

SUBMISSION_STATUS_CHANGE = "submission.status.change"
STUDY_STATUS_CHANGE = "study.status.change"
EVENTS = {
    SUBMISSION_STATUS_CHANGE: WebhookEvent.SUBMISSION,
    STUDY_STATUS_CHANGE: WebhookEvent.LISTING,
}
SIGNATURE_HEADER = "X-Prolific-Request-Signature"
TIMESTAMP_HEADER = "X-Prolific-Request-Timestamp"
# The same for every delivery of one event.
# https://docs.prolific.com/api-reference/webhooks/idempotency-and-the-x-event-id-header
EVENT_ID_HEADER = "X-Event-ID"
HANDSHAKE_HEADER = "X-Hook-Secret"
# A signed request older (or newer) than this is refused, so a captured one cannot be replayed
# later; Prolific redelivers a failed event with a fresh timestamp and signature.
TIMESTAMP_TOLERANCE_SECONDS = 300
EVENT_ID_MAX = 100


def signature(secret: str, timestamp: str, body: bytes) -> str:
    """Prolific's signature of a request: base64 of HMAC-SHA256 over timestamp + body."""
    digest = hmac.new(secret.encode(), timestamp.encode() + body, hashlib.sha256).digest()
    return base64.b64encode(digest).decode()


def event_read(*, headers, body: bytes, secret: str, now: float) -> WebhookEvent:
    """The event of a request Prolific signed with ``secret`` less than five minutes from
    ``now``; ``WebhookRefused`` (403) for any other, whatever its body says."""
    given = headers.get(SIGNATURE_HEADER) or ""
    timestamp = headers.get(TIMESTAMP_HEADER) or ""
    if not secret:
        raise WebhookRefused("No webhook secret is saved for Prolific: nothing can be verified.")
    if not given or not hmac.compare_digest(signature(secret, timestamp, body), given):
        raise WebhookRefused("The request's signature is not Prolific's.")
    try:
        sent_at = float(timestamp)
    except ValueError:
        raise WebhookRefused("The request's timestamp is not a UNIX time.") from None
    if abs(now - sent_at) > TIMESTAMP_TOLERANCE_SECONDS:
        raise WebhookRefused("The request's timestamp is more than five minutes off.")
    event_id = headers.get(EVENT_ID_HEADER) or ""
    if not event_id or len(event_id) > EVENT_ID_MAX:
        raise WebhookRefused(f"The request has no usable {EVENT_ID_HEADER}.", status=400)
    try:
        data = json.loads(body)
    except ValueError:
        raise WebhookRefused("The request's body is not JSON.", status=400) from None
    if not isinstance(data, dict) or not isinstance(data.get("event_type"), str):
        raise WebhookRefused("The request's body names no event_type.", status=400)
    return WebhookEvent(
        event_id=event_id,
        event_type=data["event_type"][:60],
        about=EVENTS.get(data["event_type"], ""),
        resource_id=str(data.get("resource_id") or "")[:64],
        status=str(data.get("status") or "")[:30],
        worker_id=str(data.get("participant_id") or "")[:64],
        body=data,
    )


def handshake(headers) -> dict[str, str]:
    """A request carrying ``X-Hook-Secret`` and no signature is answered by echoing it back."""
    value = headers.get(HANDSHAKE_HEADER) or ""
    if value and not headers.get(SIGNATURE_HEADER) and len(value) <= 200:
        return {HANDSHAKE_HEADER: value}
    return {}


class ProlificHooks:
    """The workspace's webhook secret and subscriptions, for ``Prolific``.

    A mixin: it sends everything through its host's ``_call`` (whose answer's headers are in
    ``last_headers``) and ``_pages``, and asks ``_workspace_id`` for the workspace."""

    def hooks_secret(self) -> str:
        """The workspace's signing secret, created when it has none (never replaced)."""
        workspace_id = self._workspace_id("webhook secrets")
        answer = self._call("GET", "/api/v1/hooks/secrets/", params={"workspace_id": workspace_id})
        # Documented as {"results": [...]}; its example keys them "0", "1", …
        found = answer.get("results", list(answer.values())) if isinstance(answer, dict) else []
        for secret in found:
            if isinstance(secret, dict) and secret.get("value"):
                return secret["value"]
        created = self._call("POST", "/api/v1/hooks/secrets/", json={"workspace_id": workspace_id})
        if not created.get("value"):
            raise PlatformError("Prolific created a webhook secret but did not return it.")
        return created["value"]

    def hooks_subscriptions(self, *, enabled: bool = True) -> list[dict]:
        """The workspace's enabled subscriptions, or its disabled ones (Prolific lists one or
        the other, the enabled ones unless asked)."""
        workspace_id = self._workspace_id("webhook subscriptions")
        query = {"workspace_id": workspace_id, "is_enabled": "true" if enabled else "false"}
        return list(self._pages("/api/v1/hooks/subscriptions/", query))

    def hooks_subscribe(self, *, event_type: str, target_url: str) -> str:
        """Have Prolific send ``event_type`` to ``target_url``. Returns what was done:
        ``HOOK_KEPT`` (an enabled subscription of the same event and address exists),
        ``HOOK_REENABLED`` (one existed that Prolific had disabled: it is enabled again) or
        ``HOOK_CREATED`` (a new one, confirmed). (One left unconfirmed, its answer lost, is
        disabled too, and is enabled the same way.)"""
        workspace_id = self._workspace_id("webhook subscriptions")
        for enabled in (True, False):
            for existing in self.hooks_subscriptions(enabled=enabled):
                if existing.get("event_type") == event_type and (
                    existing.get("target_url") == target_url
                ):
                    if not enabled:
                        self._hooks_enable(existing["id"], event_type, target_url)
                    return HOOK_KEPT if enabled else HOOK_REENABLED
        body = {"workspace_id": workspace_id, "event_type": event_type, "target_url": target_url}
        answer = self._call("POST", "/api/v1/hooks/subscriptions/", json=body)
        secret = self.last_headers.get(HANDSHAKE_HEADER, "")
        # Documented as the subscription list; a bare subscription is read the same way.
        created = [answer, *answer.get("results", [])] if isinstance(answer, dict) else []
        subscription_id = next(
            (
                item["id"]
                for item in created
                if item.get("id") and item.get("event_type", event_type) == event_type
            ),
            None,
        )
        if not subscription_id or not secret:
            raise PlatformError(
                f"Prolific did not answer the subscription to {event_type} with its id and "
                f"{HANDSHAKE_HEADER}."
            )
        # https://docs.prolific.com/api-reference/webhooks/confirm-subscription
        self._call(
            "POST", f"/api/v1/hooks/subscriptions/{subscription_id}/", json={"secret": secret}
        )
        return HOOK_CREATED

    def _hooks_enable(self, subscription_id: str, event_type: str, target_url: str) -> None:
        # The update takes the event and address as well (both required), unchanged.
        body = {"event_type": event_type, "target_url": target_url, "is_enabled": True}
        answer = self._call("PATCH", f"/api/v1/hooks/subscriptions/{subscription_id}/", json=body)
        # The answer is the subscription; its is_enabled is documented as optional.
        if isinstance(answer, dict) and answer.get("is_enabled") is False:
            raise PlatformError(f"Prolific left its subscription to {event_type} disabled.")
