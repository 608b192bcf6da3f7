"""A seeded simulation of the people and programs who write texts on the task pages, run
through the site's own signals (``provenance.typing_signals``), to calibrate those signals:
how often each flags an honest worker's text, and how much dishonest work it catches.

Each population makes typing records as ``static/js/typing-record.js`` would count them for
that kind of writer (the same fields, bounded by ``TypingRecord.bounded`` as the form bounds
them), with each worker's habits drawn once and each text's figures drawn around them:

Honest (goal: each signal flags at most 1% of their texts)
- every person's keys come at an uneven rhythm: the times between them spread 0.35–0.9 of
  their mean (per worker, ±15% per text); on a phone and through an IME too (their keys are
  taps and romanisation). Switch access and other scanning keyboards, whose keys come at a
  fixed scan rate, are not simulated: *even keys* is a flag for review only;
- *fast typist*: 7–11 characters a second (the fastest groups of Dhakal et al., CHI 2018,
  type about 10), each text within 0.8–1.15 of the worker's rate, 1.02–1.25 key presses a
  character (corrections, shift), 0–3 pauses of 0.5–4 s;
- *slow typist*: 1.5–4 characters a second, 1.05–1.4 keys a character, 0–5 pauses of 1–8 s;
- *IME*: Chinese or Japanese, 8–40 characters, all but 0–2 punctuation marks written by the
  input method, 2–4 keys a character (romanisation and choosing), 0.8–2.5 characters a second;
- *swipe*: a phone keyboard writing 80–100% of the words (and their spaces) by swiping, at
  2–4 characters a second; on Android one key event a word, on iOS none; up to 10% of the
  swiped characters missed by the page (a browser that reports them as plain insertions);
- *phone*: tapping at 1.5–3.5 characters a second, 0–30% of the words taken from the
  suggestion bar (input method), up to 5% of those missed by the page.
  Every honest writer pastes a short word (a name, 3–12 characters) into 3% of their texts,
  and leaves the page mid-writing in 5% of them (for a lognormal time, median 4 s). In 2% of
  texts they copy a few words of the task's text (a word to look up, a name to keep): in half
  of those they leave the page right after the copy (a dictionary in another tab), in a
  quarter they paste what they copied. In 0.5% of texts words come in without a key (autofill,
  a text expander, a keyboard's phrase suggestion). No honest writer's browser reports
  automation (``webdriver`` 0) or makes events by script (``untrusted_events`` 0: a grammar
  extension that does is not simulated), and none writes the canary's marker: the texts are
  placeholder words, so their canary figure is 0 by construction; what it rests on is that the
  marker is a made-up ten-letter word (about 30 bits) no one writes by chance.

Dishonest (goal: at least 95% of their texts flagged by the signals meant for them)
- *paster*: pastes text from elsewhere (one or two pastes, 85–100% of the text), edits it with
  0–8 keys;
- *copy-prompt-paste*: copies the task's text, types a few words, leaves the page for 10–90 s
  (pastes the prompt into a chatbot), pastes the answer (the whole text, or all but the words
  typed): a copy then a paste always; the page left with the copy as the last act in 90% (the
  rest click into the box first). The chatbot reads the canary line that the copy carries and
  follows it as often as the *model answer* population's model does (below);
- *automation*, one way per worker: 30% a script in the page (a userscript, an extension) sets
  the text and dispatches the events a page listens for (no key; untrusted events); 20% a
  driven browser fills the box through the driver (Playwright ``fill``, CDP ``insertText``:
  words inserted without a key); 30% a driven browser presses keys at machine speed (1–20 ms a
  character); 20% at a human pace (5–9 characters a second), half with the driver's fixed
  delay (an even rhythm: the times between keys spread 0.005–0.06 of their mean), half with a
  delay drawn at random between two bounds (0.15–0.35). Of the driven browsers
  (Selenium, Playwright, Puppeteer), 70% say so (``navigator.webdriver``); 30% hide it (a
  stealth plugin, a flag); a script in a person's browser never says so;
- *canary-follower*: a language model followed the hidden line, and the worker hands in its
  answer, pasted (half) or typed at a person's pace (half). The marker comes as a model writes
  a word it was asked to include: mid-sentence, capitalised at the start, in quotes, with a
  plural or possessive ending, or, in a pasted answer that echoes the prompt raw, in tag
  characters. What is measured
  is that the site's check (``canary.canary_found``) finds every such form;
- *model answer*: a language model read the task's text with its hidden line (60% copied
  through the clipboard, the page left right after the copy for a chatbot's round trip; 40%
  read by an assistant in the browser, nothing copied) and the worker types its answer at a
  person's pace. The model includes the marker in ``canary_follows`` of its answers, 50% unless
  told: **an assumption**, not a measurement (models and chat products differ; some strip tag
  characters). No goal: its figures say how much the canary adds where the model may ignore it.

Text lengths (descriptions, paraphrases) are lognormal around 55 characters (12–200).
A new signal is one entry in ``SIGNAL_THRESHOLDS`` (and its key in the ``catches`` of the
populations it is meant for); a new population is one ``Population``.
Plain Python and deterministic for a seed; the canary's marker is the site's
(``canary.canary_marker``, from ``SECRET_KEY``), so it runs with Django's settings.
"""

import math
import random
from collections.abc import Callable
from dataclasses import dataclass

from . import provenance
from .canary import TAG_BASE, canary_found, canary_instruction, canary_marker
from .provenance import TypingRecord, typing_signals

HONEST_GOAL = 0.01  # at most this share of honest texts flagged, per signal
DISHONEST_GOAL = 0.95  # at least this share of dishonest texts flagged by their signals
CANARY_FOLLOWS = 0.5  # assumed share of a model's answers holding the marker (see above)


def _threshold_texts() -> dict[str, str]:
    """What raises each signal on main, in words, from the bounds the code uses."""
    p = provenance
    return {
        "pasted": f"pasted characters > {p.PASTED_SHARE:.0%} of the text",
        "too_fast": (
            f"keyed characters > {p.MAX_CHARACTERS_PER_SECOND:g}/s (over ≥ "
            f"{p.SPEED_MINIMUM_CHARACTERS}) or > {p.CHARACTERS_PER_KEY:g} per key press"
        ),
        "background": (
            f"page left ≥ {p.BACKGROUND_SHARE:.0%} of the writing time and "
            f"≥ {p.BACKGROUND_MINIMUM_MS / 1000:g} s"
        ),
        "copy_then_paste": "a copy of the task's text, then a paste into the box",
        "inserted_no_keys": "words inserted with no key, paste or input method",
        "synthetic_events": "an input event made by a script (`isTrusted` false)",
        "webdriver": "`navigator.webdriver` true",
        "left_after_copy": (
            f"page left ≥ {p.LEFT_AFTER_COPY_MINIMUM_MS / 1000:g} s with a copy of the task's "
            "text the last act"
        ),
        "even_keys": (
            f"≥ {p.EVEN_KEYS_MINIMUM} times between keys (pauses under "
            f"{p.KEY_PAUSE_MS / 1000:g} s) spread < {p.EVEN_KEYS_VARIATION:g} of their mean"
        ),
        "canary": "the text holds the canary's marker (certain when present)",
    }


# The signals reported, in order; a signal another change adds is one more key here.
SIGNAL_THRESHOLDS = _threshold_texts()


def _length(rng: random.Random) -> int:
    return max(12, min(200, round(rng.lognormvariate(math.log(55), 0.35))))


def _text(length: int) -> str:
    # Only the length matters to the signals; words of five letters read like a sentence.
    return ("words " * (length // 6 + 1))[: length - 1] + "."


def _typed_ms(characters: int, rate: float) -> int:
    """Milliseconds from the first change to the last for ``characters`` at ``rate``/s."""
    return round(max(characters - 1, 0) / rate * 1000)


def _honest_extras(rng: random.Random, values: dict, length: int) -> dict:
    """A pasted name now and then, the page left for a moment now and then, a word of the
    task's text copied (to look up, or to paste), words inserted without a key."""
    if rng.random() < 0.03:
        values["pastes"] += 1
        values["pasted_characters"] += min(rng.randint(3, 12), length)
    if rng.random() < 0.05 and values["writing_ms"]:
        values["focus_losses"] += 1
        values["background_ms"] += round(rng.lognormvariate(math.log(4000), 0.8))
    if rng.random() < 0.02:
        values["prompt_copies"] += 1
        after = rng.random()
        if after < 0.5:
            values["left_after_copy"] += _left_after_copy(_lookup_ms(rng))
        elif after < 0.75:
            values["pastes"] += 1
            values["pastes_after_copy"] += 1
            values["pasted_characters"] += min(rng.randint(3, 12), length)
    if rng.random() < 0.005:
        values["inserted_without_keys"] += 1
    return values


def _lookup_ms(rng: random.Random) -> int:
    """How long an honest writer stays in another tab after copying a word of the task's text
    (a dictionary, a translator): lognormal, median 6 s."""
    return round(rng.lognormvariate(math.log(6000), 0.7))


def _chatbot_ms(rng: random.Random) -> int:
    """A round trip through a chatbot: paste the prompt, wait for the answer, copy it."""
    return rng.randint(10000, 90000)


def _left_after_copy(away_ms: int) -> int:
    """What the page counts for leaving ``away_ms`` right after a copy of the task's text."""
    return int(away_ms >= provenance.LEFT_AFTER_COPY_MINIMUM_MS)


def _record(**values: int) -> dict:
    base = dict.fromkeys(TypingRecord.field_names(), 0)
    base.update(values)
    return base


def _with_marker(text: str, marker: str) -> str:
    """``text`` with the canary's marker as its last word, the length kept where it can be."""
    return text[: max(len(text) - len(marker) - 2, 0)] + " " + marker + "."


def _model_follows(rng: random.Random, text: str, follows: float, marker: str) -> str:
    return _with_marker(text, marker) if rng.random() < follows else text


def _marker_as_written(rng: random.Random, text: str, marker: str, *, pasted: bool) -> str:
    """``text`` holding ``marker`` as a model writes a word it was told to include; only a
    paste carries tag characters (no one types them)."""
    form = rng.choice(["middle", "start", "quoted", "ending"] + (["tags"] if pasted else []))
    if form == "start":
        return marker.capitalize() + " " + text[len(marker) + 1 :]
    if form == "quoted":
        return _with_marker(text, f'"{marker}"')
    if form == "ending":
        return _with_marker(text, marker + rng.choice(["s", "'s", "-like"]))
    if form == "tags":  # the instructions' line pasted back raw
        return text + "".join(chr(TAG_BASE + ord(c)) for c in canary_instruction(marker))
    middle = len(text) // 2
    return f"{text[:middle]} {marker} {text[middle:]}"


def _person_rhythm(rng: random.Random) -> Callable[[random.Random, int], dict]:
    """A person's spread of the times between keys, drawn once per worker (0.35–0.9 of the
    mean: letters, words and thought between them) and varying a little per text."""
    spread = rng.uniform(350, 900)

    def rhythm(rng: random.Random, intervals: int) -> dict:
        variation = round(spread * rng.uniform(0.85, 1.15))
        return {"key_intervals": max(intervals, 0), "key_interval_variation": variation}

    return rhythm


def _keyboard(rate_range, keys_range, pauses, pause_range):
    """A typist at a keyboard; their rate is drawn once per worker."""

    def worker(rng: random.Random) -> Callable[[random.Random], tuple[dict, str]]:
        rate = rng.uniform(*rate_range)
        rhythm = _person_rhythm(rng)

        def text(rng: random.Random) -> tuple[dict, str]:
            length = _length(rng)
            writing = _typed_ms(length, rate * rng.uniform(0.8, 1.15))
            paused = rng.randint(0, pauses)
            writing += sum(round(rng.uniform(*pause_range)) for _ in range(paused))
            keys = round(length * rng.uniform(*keys_range))
            values = _record(
                key_presses=keys,
                first_key_ms=rng.randint(2000, 30000),
                writing_ms=writing,
                **rhythm(rng, keys - 1 - paused),
            )
            return _honest_extras(rng, values, length), _text(length)

        return text

    return worker


def _ime(rng: random.Random):
    rate = rng.uniform(0.8, 2.5)
    rhythm = _person_rhythm(rng)

    def text(rng: random.Random) -> tuple[dict, str]:
        length = rng.randint(8, 40)
        typed = rng.randint(0, 2)  # punctuation, typed directly
        keys = round((length - typed) * rng.uniform(2, 4)) + typed
        values = _record(
            **rhythm(rng, keys - 1),
            key_presses=keys,
            first_key_ms=rng.randint(2000, 30000),
            writing_ms=_typed_ms(length, rate),
            input_method_characters=length - typed,
        )
        return _honest_extras(rng, values, length), "字" * length

    return text


def _phone(*, swiped_share, rate_range, missed_share):
    """A phone keyboard: ``swiped_share`` of the words written by the input method (swiped,
    or taken from the suggestion bar), the rest tapped; Android sends one key event per
    input-method word, iOS none."""

    def worker(rng: random.Random):
        rate = rng.uniform(*rate_range)
        android = rng.random() < 0.7
        rhythm = _person_rhythm(rng)

        def text(rng: random.Random) -> tuple[dict, str]:
            length = _length(rng)
            words = max(1, length // 6)
            by_method = round(words * rng.uniform(*swiped_share))
            method_characters = min(length, by_method * 6)
            missed = round(method_characters * rng.uniform(0, missed_share))
            tapped = length - method_characters
            keys = round(tapped * rng.uniform(1.0, 1.2)) + (by_method if android else 0)
            values = _record(
                **rhythm(rng, keys - 1),
                key_presses=keys,
                first_key_ms=rng.randint(2000, 30000),
                writing_ms=_typed_ms(length, rate),
                input_method_characters=method_characters - missed,
            )
            return _honest_extras(rng, values, length), _text(length)

        return text

    return worker


def _paster(rng: random.Random):
    def text(rng: random.Random) -> tuple[dict, str]:
        length = _length(rng)
        values = _record(
            pastes=rng.randint(1, 2),
            pasted_characters=round(length * rng.uniform(0.85, 1.0)),
            key_presses=rng.randint(0, 8),
            first_key_ms=rng.randint(3000, 120000),
            writing_ms=rng.randint(300, 20000),
        )
        return values, _text(length)

    return text


def _copy_prompt_paste(rng: random.Random, follows: float, marker: str):
    def text(rng: random.Random) -> tuple[dict, str]:
        length = _length(rng)
        typed = rng.choice([0, rng.randint(3, 12)])
        away = _chatbot_ms(rng)
        values = _record(
            pastes=1,
            pasted_characters=length - typed,
            key_presses=typed,
            first_key_ms=rng.randint(2000, 20000),
            writing_ms=_typed_ms(typed, 5) + away + rng.randint(200, 3000),
            focus_losses=1 if typed else 0,
            background_ms=away if typed else 0,
            prompt_copies=1,
            pastes_after_copy=1,
            left_after_copy=_left_after_copy(away) if rng.random() < 0.9 else 0,
        )
        return values, _model_follows(rng, _text(length), follows, marker)

    return text


def _automation(rng: random.Random):
    how = rng.choices(
        ["script events", "driver fill", "machine keys", "human-paced keys"], weights=[3, 2, 3, 2]
    )[0]
    # A driven browser says so unless hidden; a script in a person's browser never does.
    webdriver = int(how != "script events" and rng.random() < 0.7)
    # Keys at a person's pace: half with the driver's fixed delay (the event loop's jitter, a
    # few hundredths of it), half with a random delay drawn evenly between two bounds (about
    # 0.15–0.35). At machine speed the jitter is large against the delay.
    fixed = rng.random() < 0.5
    spread = (20, 400) if how == "machine keys" else (5, 60) if fixed else (150, 350)

    def text(rng: random.Random) -> tuple[dict, str]:
        length = _length(rng)
        if how == "script events":
            values = _record(
                first_key_ms=rng.randint(100, 5000), untrusted_events=rng.randint(1, 3)
            )
        elif how == "driver fill":
            values = _record(first_key_ms=rng.randint(100, 5000), inserted_without_keys=1)
        else:
            machine = how == "machine keys"
            per_character = rng.uniform(1, 20) if machine else 1000 / rng.uniform(5, 9)
            values = _record(
                key_presses=length,
                first_key_ms=rng.randint(100, 5000),
                writing_ms=round((length - 1) * per_character * rng.uniform(0.9, 1.1)),
                key_intervals=length - 1,
                key_interval_variation=round(rng.uniform(*spread)),
            )
        values["webdriver"] = webdriver
        return values, _text(length)

    return text


def _canary_follower(rng: random.Random, follows: float, marker: str):
    """An answer of a model that followed the line, pasted or typed."""
    typist = _keyboard((3, 7), (1.02, 1.25), 2, (500, 3000))(rng)
    pasted = rng.random() < 0.5

    def text(rng: random.Random) -> tuple[dict, str]:
        values, written = _paster(rng)(rng) if pasted else typist(rng)
        return values, _marker_as_written(rng, written, marker, pasted=pasted)

    return text


def _model_answer(rng: random.Random, follows: float, marker: str):
    """A model's answer typed at a person's pace; the task's text reached the model through a
    copy (the page left right after it) or an assistant reading the page."""
    typist = _keyboard((3, 7), (1.02, 1.25), 2, (500, 3000))(rng)
    copied = rng.random() < 0.6

    def text(rng: random.Random) -> tuple[dict, str]:
        values, written = typist(rng)
        if copied:
            values["prompt_copies"] += 1
            values["left_after_copy"] += _left_after_copy(_chatbot_ms(rng))
        return values, _model_follows(rng, written, follows, marker)

    return text


@dataclass(frozen=True)
class Population:
    """Writers of one kind: ``worker(rng)`` draws one worker's habits and returns their
    ``text(rng)``, which makes one (record figures, text); a worker whose texts go through a
    language model (``model``) takes ``worker(rng, follows, marker)``. An honest population's texts
    should raise no signal; a dishonest one's should raise one of ``catches``, and counts
    toward the goal of ``goal`` (paste, automation, canary)."""

    name: str
    honest: bool
    worker: Callable
    goal: str = ""
    catches: tuple[str, ...] = ()
    model: bool = False


POPULATIONS = (
    Population("fast typist", True, _keyboard((7, 11), (1.02, 1.25), 3, (500, 4000))),
    Population("slow typist", True, _keyboard((1.5, 4), (1.05, 1.4), 5, (1000, 8000))),
    Population("IME", True, _ime),
    Population("swipe", True, _phone(swiped_share=(0.8, 1.0), rate_range=(2, 4), missed_share=0.1)),
    Population(
        "phone", True, _phone(swiped_share=(0, 0.3), rate_range=(1.5, 3.5), missed_share=0.05)
    ),
    Population("paster", False, _paster, goal="paste", catches=("pasted",)),
    Population(
        "copy-prompt-paste",
        False,
        _copy_prompt_paste,
        goal="paste",
        catches=("pasted", "copy_then_paste", "left_after_copy", "canary"),
        model=True,
    ),
    Population(
        "automation",
        False,
        _automation,
        goal="automation",
        catches=("too_fast", "synthetic_events", "inserted_no_keys", "webdriver", "even_keys"),
    ),
    Population("canary-follower", False, _canary_follower, "canary", ("canary",), model=True),
    # Typed at a person's pace, the marker there only as often as assumed: no goal.
    Population("model answer", False, _model_answer, catches=("canary",), model=True),
)


@dataclass(frozen=True)
class Calibration:
    seed: int
    workers: int
    texts: int
    canary_follows: float
    flagged: dict[str, dict[str, int]]  # population -> signal -> texts flagged
    caught: dict[str, int]  # dishonest population -> texts its signals flagged
    any_signal: dict[str, int]  # population -> texts any signal flagged
    totals: dict[str, int]  # population -> texts


def calibrate(
    *, seed: int, workers: int, texts: int, canary_follows: float = CANARY_FOLLOWS
) -> Calibration:
    """Run every population (``workers`` writers of ``texts`` texts each) through the site's
    signals (``typing_signals``, with ``canary_found`` on each text), seeded: the same
    arguments give the same counts. ``canary_follows`` is the assumed share of a language
    model's answers that hold the canary's marker."""
    rng = random.Random(seed)
    marker = canary_marker()
    flagged, caught, any_signal, totals = {}, {}, {}, {}
    for population in POPULATIONS:
        counts = dict.fromkeys(SIGNAL_THRESHOLDS, 0)
        hits = anything = 0
        for _ in range(workers):
            if population.model:
                text = population.worker(rng, canary_follows, marker)
            else:
                text = population.worker(rng)
            for _ in range(texts):
                values, written = text(rng)
                signals = typing_signals(
                    TypingRecord.bounded(**values), written, canary=canary_found(written)
                )
                for signal in signals:
                    if signal in counts:
                        counts[signal] += 1
                hits += any(signal in population.catches for signal in signals)
                anything += bool(signals)
        flagged[population.name] = counts
        any_signal[population.name] = anything
        totals[population.name] = workers * texts
        if not population.honest:
            caught[population.name] = hits
    return Calibration(seed, workers, texts, canary_follows, flagged, caught, any_signal, totals)


def _share(count: int, total: int) -> str:
    return f"{count / total:.1%}" if total else "–"


def calibration_table(result: Calibration) -> str:
    """The figures as Markdown: per signal (threshold, honest texts flagged, worst honest
    population), per dishonest population (texts flagged by the signals meant for it, and by
    any signal), and per population and signal."""
    honest = [p for p in POPULATIONS if p.honest]
    dishonest = [p for p in POPULATIONS if not p.honest]
    honest_total = sum(result.totals[p.name] for p in honest)
    honest_any = sum(result.any_signal[p.name] for p in honest)
    lines = [
        f"Seed {result.seed}; {result.workers} workers a population, {result.texts} texts each; "
        f"shares of texts. Assumed: a language model includes the canary's marker in "
        f"{result.canary_follows:.0%} of its answers.",
        "",
        "| signal | raised when | honest texts flagged (goal ≤ 1%) | worst honest population |",
        "|---|---|---|---|",
    ]
    for signal, threshold in SIGNAL_THRESHOLDS.items():
        count = sum(result.flagged[p.name][signal] for p in honest)
        worst = max(honest, key=lambda p: result.flagged[p.name][signal])
        worst_share = _share(result.flagged[worst.name][signal], result.totals[worst.name])
        worst_text = f"{worst.name} {worst_share}" if count else "–"
        lines.append(f"| `{signal}` | {threshold} | {_share(count, honest_total)} | {worst_text} |")
    lines += [
        f"| any signal | | {_share(honest_any, honest_total)} | |",
        "",
        "| dishonest work | population | caught by | texts flagged by them (goal ≥ 95%) "
        "| by any signal |",
        "|---|---|---|---|---|",
    ]
    for population in dishonest:
        total = result.totals[population.name]
        figure = _share(result.caught[population.name], total)
        by = ", ".join(f"`{key}`" for key in population.catches)
        lines.append(
            f"| {population.goal or '– (no goal)'} | {population.name} | {by} | {figure} | "
            f"{_share(result.any_signal[population.name], total)} |"
        )
    lines += [
        "",
        "| population | " + " | ".join(f"`{signal}`" for signal in SIGNAL_THRESHOLDS) + " |",
        "|---|" + "---|" * len(SIGNAL_THRESHOLDS),
    ]
    for population in POPULATIONS:
        total = result.totals[population.name]
        cells = [_share(result.flagged[population.name][s], total) for s in SIGNAL_THRESHOLDS]
        kind = "honest" if population.honest else "dishonest"
        lines.append(f"| {population.name} ({kind}) | " + " | ".join(cells) + " |")
    return "\n".join(lines)
