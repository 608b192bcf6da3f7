"""The rules about how texts come into the box: pasting forbidden (set by staff per HIT type),
and texts not typed by the worker counted against them under the warn/stop rule of the
"typing" check (crowd.services.quality). Shared by the services that store descriptions and
paraphrases, and by the alignment service, whose pre-alignments sent back unchanged count
under the same rule."""

from crowd import services as crowd

from ..provenance import TypingRecord


class PasteForbidden(crowd.WorkRefused):
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


# The quality check a flagged text fails; its rule (warn after N, stop after M) is staff's to set
# in the admin like the gold rule's.
TYPING_CHECK = "typing"
# The signals that count against a worker: the text did not come from their own keys. Writing
# with the page in the background is shown to reviewers but counts for nothing here (watching
# the video again in another tab is honest), and so is a text with no record (scripts off).
# An alignment that sent back the pre-alignment it was shown (annotations.services) counts
# here too: a suggestion accepted unchanged is the alignment's equivalent of a paste.
UNCHANGED_SUGGESTION = "unchanged_suggestion"
COUNTED_SIGNALS = ("pasted", "too_fast", UNCHANGED_SUGGESTION)


def typing_quality_record(*, worker, assignment, signals: list[str], source: str) -> None:
    """Record a text flagged with any of ``COUNTED_SIGNALS`` as a failed ``typing`` check of
    ``worker``, so that the rule for that check warns and then stops a worker whose texts keep
    arriving untyped. Only flagged texts are recorded: a clean or unknown one is no evidence
    either way, and the common case costs no query. So the rule counts flagged texts since the
    worker's last stop was lifted, however many typed ones came between."""
    counted = [signal for signal in signals if signal in COUNTED_SIGNALS]
    if counted:
        crowd.quality_check_record(
            worker=worker,
            kind=TYPING_CHECK,
            source=source,
            passed=False,
            details={"signals": counted},
            assignment=assignment,
        )
