"""Prolific: studies published through its API, participants' submissions read back and
decided there, bonuses paid in two steps. The API client is ``client.py``; participant groups,
filters and reward recommendations are ``audience.py``; webhooks (secret, subscriptions, signed
events) are ``hooks.py``."""

from urllib.parse import urlencode

from django.conf import global_settings, settings

from ..base import (
    ArrivalIds,
    ArrivalInvalid,
    Completion,
    Listing,
    Platform,
    PlatformError,
    SheetWording,
    Submission,
    origin,
    platform_id,
)
from . import client, hooks


class ProlificPlatform(Platform):
    name = "prolific"
    label = "Prolific"
    return_advice = "Nothing was saved. Please return this study on Prolific."
    one_campaign_per_listing = True
    # What the outbox could not send, for Prolific's bulk approve and bulk bonus pages.
    sheet_wording = SheetWording(
        lead="For Prolific's own pages (bulk approve, bulk bonus):",
        approvals="approvals still to send",
        bonuses="bonuses the outbox gave up on",
    )
    done_advice = "Go back to Prolific to finish the study."
    verifies_arrivals = True
    bonus_in_two_steps = True
    webhook_events = hooks.EVENTS
    # Each study is created with a FAILED_ATTENTION_CHECK completion code (client.study_create).
    failed_check_code = True

    def currency(self) -> str:
        return settings.PROLIFIC_CURRENCY

    def fee_cents(self, cents: int, *, max_assignments: int = 1) -> int:
        return client.fee_cents(cents, percent=settings.PROLIFIC_FEE_PERCENT)

    def minimum_hourly_cents(self, *, ask: bool = False) -> int:
        minimum = settings.PROLIFIC_MIN_HOURLY_CENTS
        if not ask:
            return minimum
        from .. import connector

        try:
            recommended = connector(self.name).reward_minimum_cents_per_hour(
                currency=self.currency()
            )
        except PlatformError:
            return minimum
        return max(minimum, recommended)

    def configured(self) -> bool:
        return bool(settings.PROLIFIC_API_TOKEN)

    def make_connector(self):
        return client.Prolific(
            token=settings.PROLIFIC_API_TOKEN,
            base_url=settings.PROLIFIC_API_URL,
            workspace_id=settings.PROLIFIC_WORKSPACE_ID,
            project_id=settings.PROLIFIC_PROJECT_ID,
        )

    def return_origins(self) -> list[str]:
        return (
            [origin(settings.PROLIFIC_COMPLETION_URL)] if settings.PROLIFIC_COMPLETION_URL else []
        )

    def work_read(self, *, listing_ids: list[str]) -> list[Submission]:
        from .. import connector

        account = connector(self.name)
        return [item for study_id in listing_ids for item in account.submissions(study_id)]

    def bonuses_paid(self, *, assignment_id: str) -> list[int]:
        from .. import connector

        return connector(self.name).submission_bonuses(assignment_id)

    def webhook_secret_setting(self) -> str:
        return settings.PROLIFIC_HOOKS_SECRET

    def webhook_handshake(self, headers) -> dict[str, str]:
        return hooks.handshake(headers)

    def webhook_read(self, *, headers, body: bytes, secret: str, now: float):
        return hooks.event_read(headers=headers, body=body, secret=secret, now=now)

    def submission_status(self, word: str) -> str:
        # As the read-back does: anything not listed (RETURNED, TIMED-OUT, …) left no work.
        return client.STATUSES.get(word, Submission.GONE)

    # Arrivals, sessions and completion: Prolific opens the study's URL with the participant's,
    # the study's and the session's ids in these parameters (client.URL_PLACEHOLDERS).

    def claims_arrival(self, params) -> bool:
        return any(name in params for name in client.URL_PLACEHOLDERS)

    def arrival_read(self, params, *, context) -> ArrivalIds:
        ids = ArrivalIds(
            worker_id=platform_id(params, "PROLIFIC_PID"),
            assignment_id=platform_id(params, "SESSION_ID"),
            listing_id=platform_id(params, "STUDY_ID"),
        )
        if ids.worker_id and ids.assignment_id and not ids.listing_id:
            raise ArrivalInvalid("The parameter STUDY_ID is missing from this task's address.")
        return ids

    def arrival_verify(self, ids: ArrivalIds) -> bool:
        from .. import connector

        try:
            # One quick try, none while Prolific is failing (the circuit breaker).
            submission = connector(self.name).submission(ids.assignment_id, quick=True)
        except PlatformError as error:
            if getattr(error, "status", 0) == 404:
                return False
            raise
        return (
            submission.worker_id == ids.worker_id
            and submission.listing_id == ids.listing_id
            and submission.status == Submission.WORKING
        )

    def session_query(self, *, worker_id: str, session_id: str, listing_id: str, config=None):
        return {"PROLIFIC_PID": worker_id, "STUDY_ID": listing_id, "SESSION_ID": session_id}

    def completion(self, *, code: str, worker_id: str, session_id: str, config=None):
        address = settings.PROLIFIC_COMPLETION_URL + "?" + urlencode({"cc": code})
        return Completion(code=code, address=address, redirect=True)

    # ---- A campaign's life there ----
    # Tier 2 is a participant group; Tier-2 studies admit only its members.
    tier_on_platform = True

    def balance_cents(self) -> int:
        from .. import connector

        # Refused unless the workspace pays in the currency every page states and the ledger
        # books (PROLIFIC_CURRENCY).
        return connector(self.name).balance_cents(currency=self.currency())

    def listing_create(self, listing: Listing) -> str:
        from .. import connector

        account = connector(self.name)
        filters = []
        if listing.tier_group_id:
            filters.append(account.group_filter(listing.tier_group_id))
        if listing.languages:
            filters.append(account.language_filter(_language_names(listing.languages)))
        # Asked again with the same internal name, the study of that name is found instead of
        # a second one created (client.study_create).
        return account.study_create(
            name=listing.name,
            internal_name=f"paracrowd-campaign-{listing.campaign_id}",
            description=listing.description,
            url=listing.url,
            completion_code=listing.completion_code,
            reward_cents=listing.reward_cents,
            places=listing.places,
            minutes=listing.minutes,
            maximum_minutes=listing.maximum_minutes,
            filters=filters or None,
            failed_check_code=listing.failed_check_code,
            sessions_per_participant=listing.sessions_per_participant,
        )

    def listing_publish(self, listing_id: str) -> None:
        from .. import connector

        connector(self.name).study_publish(listing_id)

    def listing_counts(self, listing_ids: list[str]) -> dict:
        from .. import connector

        account = connector(self.name)
        return _summed(account.study_counts(listing_id) for listing_id in listing_ids)

    # The bulk approve and bulk bonus boxes of Prolific's own pages.

    def approvals_sheet(self, participant_ids) -> str:
        return client.approvals_csv(participant_ids)

    def bonuses_sheet(self, rows) -> str:
        return client.bonuses_csv(rows)


def _language_names(codes) -> list[str]:
    """The English names Prolific lists languages under ("es" → "Spanish")."""
    known = dict(global_settings.LANGUAGES)
    return [str(known[code]).split(" (")[0] for code in codes]


def _summed(counts) -> dict:
    total = {}
    for one in counts:
        for key, value in one.items():
            total[key] = total.get(key, 0) + value if isinstance(value, int) else value
    return total
