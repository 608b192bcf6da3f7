"""Amazon Mechanical Turk, an archive since its closure: campaigns published before it closed
are read back for their history; nothing new is published, and no payment is sent after its
last day for payments. The API client is ``client.py``."""

from django.conf import settings

from ..base import ArrivalIds, ArrivalInvalid, Platform, PlatformError, Submission, platform_id
from . import client


def _day(day) -> str:
    return f"{day.day} {day:%B %Y}"


class MechanicalTurkPlatform(Platform):
    name = "mturk"
    label = "Mechanical Turk"
    unit = "HIT"
    pays_by_session = False
    archived = True
    return_advice = "Nothing was saved. Please return the HIT."
    # A HIT's arrival names the HIT, one of a campaign's postings.
    listing_field = "postings__external_hit_id"
    # The parameters Mechanical Turk's ExternalQuestion frame appends to the task's address.
    ARRIVAL_PARAMETERS = ("workerId", "assignmentId", "hitId", "turkSubmitTo")

    def fee_cents(self, cents: int, *, max_assignments: int = 1) -> int:
        return client.fee_cents(cents, max_assignments=max_assignments)

    def configured(self) -> bool:
        return settings.MTURK_ENABLED

    def make_connector(self):
        return client.MechanicalTurk(sandbox=settings.MTURK_SANDBOX)

    has_sandbox = True

    def sandbox(self) -> bool:
        return settings.MTURK_SANDBOX

    def open_check(self, *, today=None) -> None:
        client.closure_check(today=today)

    def payments_open(self, *, today=None) -> bool:
        return client.payments_open(today)

    # Arrivals: the frame's parameters. A worker only looking at the HIT has no workerId and
    # the assignment id PREVIEW_ASSIGNMENT_ID.

    def claims_arrival(self, params) -> bool:
        return any(name in params for name in self.ARRIVAL_PARAMETERS)

    def arrival_read(self, params, *, context) -> ArrivalIds:
        ids = ArrivalIds(
            worker_id=platform_id(params, "workerId"),
            assignment_id=platform_id(params, "assignmentId"),
            listing_id=platform_id(params, "hitId"),
            submit_to=self.submit_address(params, context=context),
        )
        working = ids.worker_id and ids.assignment_id not in ("", client.PREVIEW_ASSIGNMENT_ID)
        if working and not ids.submit_to:
            raise ArrivalInvalid("The parameter turkSubmitTo is missing from this task's address.")
        return ids

    def submit_address(self, params, *, context) -> str:
        # The finished page posts the worker's assignment there: only to a frame we allow.
        submit_to = params.get("turkSubmitTo", "")
        if not isinstance(submit_to, str) or len(submit_to) > 200:
            raise ArrivalInvalid("The parameter turkSubmitTo in this task's address is not valid.")
        submit_to = submit_to.rstrip("/")
        if submit_to and submit_to not in context.frame_origins:
            raise ArrivalInvalid(
                "This task was not opened from a crowd platform we know.", status=403
            )
        return submit_to

    # ---- A campaign's life there: an archive, read back for its history only ----
    # Each HIT is a listing of its own; Tier 2 was ParaCrowd's qualification there.
    listing_per_posting = True
    tier_on_platform = True

    def payments_refusal(self, *, today=None) -> str:
        return "" if self.payments_open(today=today) else client.CLOSURE_MESSAGE

    def listings_stop(self, listing_ids: list[str]) -> None:
        # Its HITs closed with the platform: there is nothing left on offer to stop.
        pass

    def listings_extend(self, listing_ids: list[str], *, until) -> None:
        self.open_check()
        raise PlatformError(client.CLOSURE_MESSAGE)

    def submissions_read(self, listing_ids: list[str]) -> list[Submission]:
        from .. import connector

        account = connector(self.name)
        return [item for hit_id in listing_ids for item in account.assignments(hit_id)]

    def listing_counts(self, listing_ids: list[str]) -> dict:
        from .. import connector

        account = connector(self.name)
        total = {"available": 0, "in_progress": 0, "submitted": 0}
        for hit_id in listing_ids:
            counts = account.hit_counts(hit_id)
            for key in total:
                total[key] += counts.get(key, 0)
        return total

    # What staff read of the archive: why it is not offered, and what its campaigns still allow.
    not_offered = (
        f"Mechanical Turk is not offered: it closed to new HITs on {_day(client.LAST_HIT_DAY)}, "
        f"approvals and bonuses ended on {_day(client.LAST_PAYMENT_DAY)}, and its transaction "
        f"history can be downloaded until {_day(client.LAST_HISTORY_DAY)}."
    )
    closure_notice = (
        f"Mechanical Turk closed on {_day(client.LAST_HIT_DAY)}: its campaigns can be read back "
        "and looked at here, but not published or extended; approvals and bonuses ended on "
        f"{_day(client.LAST_PAYMENT_DAY)}, and its transaction history can be downloaded until "
        f"{_day(client.LAST_HISTORY_DAY)}."
    )
