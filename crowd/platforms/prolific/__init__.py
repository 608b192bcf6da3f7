"""Prolific: studies published through its API, participants' submissions read back and
decided there, bonuses paid in two steps. The API client is ``client.py``; participant groups,
filters and reward recommendations are ``audience.py``."""

from django.conf import settings

from ..base import Platform, PlatformError
from . import client


class ProlificPlatform(Platform):
    name = "prolific"
    label = "Prolific"
    return_advice = "Nothing was saved. Please return this study on Prolific."
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
