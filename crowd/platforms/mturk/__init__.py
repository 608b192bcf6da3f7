"""Amazon Mechanical Turk, an archive since its closure: campaigns published before it closed
are read back for their history; nothing new is published, and no payment is sent after its
last day for payments. The API client is ``client.py``."""

from django.conf import settings

from ..base import Platform
from . import client


class MechanicalTurkPlatform(Platform):
    name = "mturk"
    label = "Mechanical Turk"
    unit = "HIT"
    pays_by_session = False
    archived = True
    return_advice = "Nothing was saved. Please return the HIT."

    def fee_cents(self, cents: int, *, max_assignments: int = 1) -> int:
        return client.fee_cents(cents, max_assignments=max_assignments)

    def configured(self) -> bool:
        return settings.MTURK_ENABLED

    def make_connector(self):
        return client.MechanicalTurk(sandbox=settings.MTURK_SANDBOX)

    def sandbox(self) -> bool:
        return settings.MTURK_SANDBOX

    def open_check(self, *, today=None) -> None:
        client.closure_check(today=today)

    def payments_open(self, *, today=None) -> bool:
        return client.payments_open(today)
