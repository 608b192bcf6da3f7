"""Prolific: studies published through its API, participants' submissions read back and
decided there, bonuses paid in two steps. The API client is ``client.py``; participant groups,
filters and reward recommendations are ``audience.py``; webhooks (secret, subscriptions, signed
events) are ``hooks.py``."""

from django.conf import settings

from ..base import Platform, PlatformError, Submission, origin
from . import client, hooks


class ProlificPlatform(Platform):
    name = "prolific"
    label = "Prolific"
    return_advice = "Nothing was saved. Please return this study on Prolific."
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
