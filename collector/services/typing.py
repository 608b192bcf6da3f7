"""The rule staff may set on a HIT type about how its texts come into the box: pasting
forbidden. Shared by the services that store descriptions and paraphrases."""

from crowd.services import WorkRefused

from ..provenance import TypingRecord


class PasteForbidden(WorkRefused):
    """A text whose page reported a paste, on a HIT type where staff forbid pasting."""


def typing_check(record: TypingRecord | None, *, hit_type, noun: str) -> None:
    """Refuse (``PasteForbidden``) a text whose page reported a paste when ``hit_type``
    forbids pasting. The page itself blocks pastes there, so a reported one means the page was
    bypassed or the rule changed while the task was open: the worker types the text again.
    A text sent without a record (scripts off) is stored, its provenance unknown."""
    if hit_type.paste_allowed or record is None or not record.pastes:
        return
    raise PasteForbidden(
        f"Pasting is turned off for this task, and text was pasted into the box. Nothing was "
        f"stored: type your {noun} yourself, then submit again."
    )
