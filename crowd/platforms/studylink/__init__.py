"""Study links: every platform that sends participants to a link and takes them back with a
completion code (CloudResearch Connect, SONA, Microworkers, Clickworker, a lab's own panel).
Links, codes and the platforms' exports are ``links.py``; nothing is sent to the platform."""

import secrets

from django.conf import settings

from ..base import Listing, Platform, origin


class StudyLinkPlatform(Platform):
    name = "studylink"
    label = "Study link"

    def currency(self) -> str:
        return settings.STUDY_LINK_CURRENCY

    def fee_cents(self, cents: int, *, max_assignments: int = 1) -> int:
        if cents <= 0:
            return 0
        return -(-cents * settings.STUDY_LINK_FEE_PERCENT // 100)

    def minimum_hourly_cents(self, *, ask: bool = False) -> int:
        return settings.STUDY_LINK_MIN_HOURLY_CENTS

    def configured(self) -> bool:
        # Its campaigns live here and their links name them: there is nothing to connect to.
        return True

    def return_origins(self) -> list[str]:
        return (
            [origin(settings.STUDY_LINK_COMPLETION_URL)]
            if settings.STUDY_LINK_COMPLETION_URL
            else []
        )

    # ---- A campaign's life there ----
    # The researcher pastes the campaign's link into the platform; its export confirms work.
    prints_links = True

    def listing_create(self, listing: Listing) -> str:
        # The study id the printed link carries; nothing is sent anywhere.
        return f"pc{listing.campaign_id}-{secrets.token_hex(6)}"

    def listings_stop(self, listing_ids: list[str]) -> None:
        # Its link stops being taken once the campaign has expired here; nothing to call.
        pass
