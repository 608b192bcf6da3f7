"""Study links: every platform that sends participants to a link and takes them back with a
completion code (CloudResearch Connect, SONA, Microworkers, Clickworker, a lab's own panel).
Links, codes and the platforms' exports are ``links.py``; nothing is sent to the platform."""

import secrets

from django.conf import settings

from ..base import (
    PLATFORM_ID,
    ArrivalIds,
    ArrivalInvalid,
    Completion,
    Listing,
    Platform,
    SheetWording,
    origin,
)
from . import links


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

    # Arrivals, sessions and completion: the link names its campaign (``campaign=``); the
    # participant and session ids come in the parameters of the platform the campaign's link
    # was made for (``context.listing_config``), or the settings' names.

    def claims_arrival(self, params) -> bool:
        generic = links.StudyLinkConfig.from_settings()
        return links.CAMPAIGN_PARAMETER in params or generic.participant_param in params

    def arrival_read(self, params, *, context) -> ArrivalIds:
        campaign = params.get(links.CAMPAIGN_PARAMETER, "")
        if not isinstance(campaign, str) or not PLATFORM_ID.fullmatch(campaign):
            raise ArrivalInvalid(
                f"The parameter {links.CAMPAIGN_PARAMETER} in this task's address is missing or "
                "not one this site gives: reopen the study from your platform."
            )
        config = context.listing_config(campaign)
        try:
            ids = links.arrival_ids(params, config, local_study=campaign)
        except ValueError as error:
            raise ArrivalInvalid(str(error)) from None
        return ArrivalIds(
            worker_id=ids.participant_id, assignment_id=ids.session_id, listing_id=campaign
        )

    def session_query(self, *, worker_id: str, session_id: str, listing_id: str, config=None):
        query = {config.participant_param: worker_id, links.CAMPAIGN_PARAMETER: listing_id}
        if config.session_param:
            query[config.session_param] = session_id
        return query

    def completion(self, *, code: str, worker_id: str, session_id: str, config=None):
        verification = links.verification_code(
            session_id=session_id, participant_id=worker_id, config=config
        )
        address = links.completion_address(
            completion_code=code,
            verification=verification,
            config=config,
            participant_id=worker_id,
        )
        return Completion(
            code=code, address=address or "", verification=verification, redirect=bool(address)
        )

    # ---- A campaign's life there ----
    # The researcher pastes the campaign's link into the platform; its export confirms work.
    prints_links = True
    # The platform has no API: these files are how its participants are paid.
    sheet_wording = SheetWording(
        lead="For the platform's own pages:",
        approvals="approvals",
        bonuses="bonuses",
        tail="of every session with paid work.",
    )

    def listing_create(self, listing: Listing) -> str:
        # The study id the printed link carries; nothing is sent anywhere.
        return f"pc{listing.campaign_id}-{secrets.token_hex(6)}"

    def listings_stop(self, listing_ids: list[str]) -> None:
        # Its link stops being taken once the campaign has expired here; nothing to call.
        pass
