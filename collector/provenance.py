"""How a typed text came into its box, and what that suggests: the provenance of descriptions
and paraphrases.

The task pages count, without recording the keys themselves: key presses, paste (and drop)
events and the characters they brought, the characters an input method wrote (an IME's
composition, a swipe keyboard's word, an autocorrection, dictation), the time from the page
opening to the first key, the
time from the first change of the text to the last, and how often and how long the page was
left while the text was being written. ``typing_signals`` turns one such record into signals
a reviewer reads. This module is plain Python (no Django), so that any rule engine can call it
on stored values.

A text submitted without a record (JavaScript off, an old page, an import) has the signal
``unknown``: nothing is known about how it was written, which is never the same as clean.
"""

from dataclasses import dataclass, fields

# Most of the text came through paste events when the characters pasted are more than this
# share of its length. Editing a pasted sentence a little leaves most of it pasted.
PASTED_SHARE = 0.5

# Characters typed per second above which no person types. Dhakal et al. (CHI 2018, 136 M
# keystrokes from 168,000 typists) measured a mean of 52 words a minute (about 4–5 characters
# a second) and a fastest group above 120 (10 a second); the fastest typists on record sustain
# about 200 (17 a second) for short bursts only. 15 a second, sustained over a sentence, is
# beyond what the page could see from a person at a keyboard.
MAX_CHARACTERS_PER_SECOND = 15.0
# Fewer characters than this are too few to time: one quick word proves nothing.
SPEED_MINIMUM_CHARACTERS = 20
# Characters typed per key press, at most: predictive suggestions insert a few characters for
# one key, a script or another program the whole text without any. Characters an input method
# wrote (``input_method_characters``) are typing too and are not held to it: an IME writes a
# Chinese or Japanese phrase at the end of a composition, a swipe keyboard a word per gesture,
# dictation a sentence, with few or no key events the page can see.
CHARACTERS_PER_KEY = 3.0

# Written with the page in the background: the page was hidden or out of focus for at least
# this share of the time from the first change of the text to the last, and at least this long
# (a glance at another tab is not writing elsewhere).
BACKGROUND_SHARE = 0.5
BACKGROUND_MINIMUM_MS = 10_000

# The page left right after a copy of the task's text counts when it stays away this long: a
# round trip through a chatbot (paste the prompt, wait for the answer, copy it) takes longer,
# a word looked up in a dictionary tab mostly less. The page's script reads it from the form
# (``data-minimum-ms`` on the field) and counts only such absences; see typing_calibration.
LEFT_AFTER_COPY_MINIMUM_MS = 15_000

# Keys pressed at an even rhythm: the spread of the times between key presses (their standard
# deviation over their mean, the coefficient of variation), over at least EVEN_KEYS_MINIMUM
# intervals, is below EVEN_KEYS_VARIATION. People's intervals vary with the letters, words and
# thought between them (a spread of 0.35 or more); a driven browser pressing keys with a fixed
# delay varies only by the event loop's jitter. Gaps of KEY_PAUSE_MS or more are pauses, not
# rhythm, and a held key's repeats are not key presses. The page sends the spread in thousandths.
EVEN_KEYS_MINIMUM = 20
EVEN_KEYS_VARIATION = 0.15
KEY_PAUSE_MS = 2_000

# Bounds on each recorded figure. A record from the page never comes near them; a larger
# (forged or absurd) value is clamped to the bound rather than stored.
MAX_COUNT = 100_000  # key presses, pastes, characters, focus losses
MAX_MILLISECONDS = 24 * 60 * 60 * 1000  # a day: longer than any assignment is held

UNKNOWN = "unknown"
SIGNALS = {
    UNKNOWN: "Not recorded (the page's script did not run)",
    "pasted": "Most of the text was pasted",
    "too_fast": "Typed faster than a person types",
    "background": "Written with the page in the background",
    # Flags for a reviewer only, never counted against the worker (collector.services.typing):
    # each has an honest explanation. See docs/staff/reviewing.md.
    "copy_then_paste": "The task's own text was copied, then text was pasted",
    "inserted_no_keys": "Text was inserted without key presses (drop, autofill, extension)",
    "synthetic_events": "Input events made by a script, not by the browser",
    "webdriver": "The browser said it was driven by automation (navigator.webdriver)",
    "left_after_copy": "The page was left for a while right after the task's text was copied",
    "even_keys": "Keys pressed at an even, machine-like rhythm",
    # Certain: the text holds the invisible marker of the task's instructions (collector.canary).
    "canary": "Holds the invisible marker of the task's text: written by a language model",
}
CLEAN = "clean"  # how an empty list of signals reads


@dataclass(frozen=True, slots=True)
class TypingRecord:
    """What the page counted while one text was written; every figure is a non-negative
    integer within its bound (see ``bounded``)."""

    key_presses: int
    pastes: int
    pasted_characters: int
    first_key_ms: int  # from the page opening to the first key press or change of the text
    writing_ms: int  # from the first change of the text to the last
    focus_losses: int  # times the page was left between the first change and the last
    background_ms: int  # how long it was left, in all, in that time
    # Written by an input method: IME compositions, swipe and autocorrect words, dictation.
    # Last, with a default: a page opened before it was counted sends none, and that is 0.
    input_method_characters: int = 0
    # Counted since the figures above; None (unknown) in a record from a page that did not
    # count them, and in records stored before. Each is a flag for a reviewer only.
    prompt_copies: int | None = None  # copies of the task's own text (outside the box)
    pastes_after_copy: int | None = None  # pastes into the box after such a copy
    inserted_without_keys: int | None = None  # insertions of words with no key press
    untrusted_events: int | None = None  # input events a script made (isTrusted false)
    webdriver: int | None = None  # 1 when navigator.webdriver was true, else 0
    left_after_copy: int | None = None  # page left with a copy of the task's text the last act
    key_intervals: int | None = None  # times between key presses counted in the rhythm
    key_interval_variation: int | None = None  # their coefficient of variation, in thousandths

    MILLISECONDS = ("first_key_ms", "writing_ms", "background_ms")
    OPTIONAL = ("input_method_characters",)
    UNKNOWN_WHEN_ABSENT = (
        "prompt_copies",
        "pastes_after_copy",
        "inserted_without_keys",
        "untrusted_events",
        "webdriver",
        "left_after_copy",
        "key_intervals",
        "key_interval_variation",
    )
    BOUNDS = {"webdriver": 1}

    @classmethod
    def bounded(cls, **values: int) -> "TypingRecord":
        """A record from untrusted figures: each must be an integer of at least zero (else
        ``ValueError``); one above its bound is clamped to it. An ``OPTIONAL`` figure left out
        is 0, and one of ``UNKNOWN_WHEN_ABSENT`` None."""
        clamped = {}
        for name in cls.field_names():
            if name in cls.UNKNOWN_WHEN_ABSENT and values.get(name) is None:
                clamped[name] = None
                continue
            value = values.get(name, 0) if name in cls.OPTIONAL else values[name]
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise ValueError(f"{name} must be a whole number of at least 0")
            bound = MAX_MILLISECONDS if name in cls.MILLISECONDS else MAX_COUNT
            clamped[name] = min(value, cls.BOUNDS.get(name, bound))
        return cls(**clamped)

    @classmethod
    def field_names(cls) -> tuple[str, ...]:
        return tuple(field.name for field in fields(cls))

    @classmethod
    def always_recorded(cls) -> tuple[str, ...]:
        """The figures every record holds (the rest may be unknown)."""
        return tuple(name for name in cls.field_names() if name not in cls.UNKNOWN_WHEN_ABSENT)

    @classmethod
    def from_stored(cls, row) -> "TypingRecord | None":
        """The record stored on ``row`` (a description or paraphrase, or anything with the
        same attributes prefixed ``typing_``), or None when it has none."""
        values = {name: getattr(row, f"typing_{name}") for name in cls.field_names()}
        if any(values[name] is None for name in cls.always_recorded()):
            return None
        return cls(**values)


def typing_signals(record: TypingRecord | None, text: str, *, canary: bool = False) -> list[str]:
    """The signals of one text written as ``record`` says, in the order of ``SIGNALS``.

    ``["unknown"]`` when there is no record; ``[]`` when nothing looks wrong (the text reads as
    typed by a person, on the page); otherwise any of:

    - ``"pasted"``: the characters pasted are more than ``PASTED_SHARE`` of the text;
    - ``"too_fast"``: the characters from key presses (neither pasted nor written by an input
      method) came faster than ``MAX_CHARACTERS_PER_SECOND`` (counted over at least
      ``SPEED_MINIMUM_CHARACTERS``), or more than ``CHARACTERS_PER_KEY`` of them per key press
      (text that appeared without being typed). Characters an input method wrote are typed,
      and are timed by neither rule: they arrive a word or a phrase at once;
    - ``"background"``: the page was left for at least ``BACKGROUND_SHARE`` of the writing
      time, and at least ``BACKGROUND_MINIMUM_MS``;
    - ``"copy_then_paste"``, ``"inserted_no_keys"``, ``"synthetic_events"``, ``"webdriver"``,
      ``"left_after_copy"``: the page counted at least one such event (an unknown count
      raises nothing);
    - ``"even_keys"``: at least ``EVEN_KEYS_MINIMUM`` intervals between key presses, spread
      less than ``EVEN_KEYS_VARIATION`` (a driven browser's fixed delay);
    - ``"canary"`` (with or without a record): ``canary`` is true, the text holds the marker
      of the task's instructions (``collector.canary``).

    Pure: it reads only its arguments.
    """
    if record is None:
        return [UNKNOWN, "canary"] if canary else [UNKNOWN]
    length = len(text.strip())
    signals = []
    if length and record.pasted_characters > PASTED_SHARE * length:
        signals.append("pasted")
    keyed = max(length - record.pasted_characters - record.input_method_characters, 0)
    # One key's worth more, so that a text of a few characters is not judged on one key.
    too_fast = keyed > CHARACTERS_PER_KEY * (record.key_presses + 1)
    if keyed >= SPEED_MINIMUM_CHARACTERS:
        seconds = record.writing_ms / 1000
        too_fast = too_fast or keyed > MAX_CHARACTERS_PER_SECOND * seconds
    if too_fast:
        signals.append("too_fast")
    if (
        record.background_ms >= BACKGROUND_MINIMUM_MS
        and record.background_ms >= BACKGROUND_SHARE * record.writing_ms
    ):
        signals.append("background")
    events = {
        "copy_then_paste": record.pastes_after_copy,
        "inserted_no_keys": record.inserted_without_keys,
        "synthetic_events": record.untrusted_events,
        "webdriver": record.webdriver,
        "left_after_copy": record.left_after_copy,
    }
    signals.extend(signal for signal, count in events.items() if count)
    if (
        (record.key_intervals or 0) >= EVEN_KEYS_MINIMUM
        and record.key_interval_variation is not None
        and record.key_interval_variation < EVEN_KEYS_VARIATION * 1000
    ):
        signals.append("even_keys")
    if canary:
        signals.append("canary")
    return signals


def signals_text(signals: list[str]) -> str:
    """The signals as one cell of an export: ``clean``, ``unknown`` or the flagged signals'
    keys joined by ``+`` (``pasted+too_fast``)."""
    return "+".join(signals) if signals else CLEAN


def signals_labels(signals: list[str]) -> list[str]:
    """The signals in words, for the review pages."""
    return [SIGNALS.get(signal, signal) for signal in signals]
