"""Signals about one worker's descriptions, each with a plain-language explanation.

Plain Python over plain records (no database): ``worker_signals(submissions)`` takes every
description a worker wrote and returns one ``Signal`` per check. An admin reads them to decide
whether to promote a worker; none of them decides anything alone. The checks of each text are
in review.text_checks.
"""

import statistics
from collections import Counter, defaultdict
from dataclasses import dataclass, field, replace
from math import ceil

from collector.provenance import SIGNALS as TYPING_SIGNALS
from collector.provenance import UNKNOWN
from paracrowd.wording import counted

from .text_checks import WORD, TextChecks, language_code, language_name, text_checks

# Above these, a signal is flagged. Rates are fractions of what could be checked.
SPELLING_FLAG = 0.05  # unknown words; the MSVD corpus as a whole has about 1.2%
SHAPE_FLAG = 0.30  # descriptions that are not one plain sentence
LANGUAGE_FLAG = 0.25  # descriptions that do not read as the declared language
DUPLICATE_FLAG = 0.10  # descriptions repeating one written for another segment…
DUPLICATE_MINIMUM = 3  # …and at least this many of them
NEAR_DUPLICATE = 0.7  # Jaccard similarity of the word sets
# Near-copies are looked for among this many of the worker's latest different texts (exact
# copies among all): the comparison grows with the square of the texts compared.
NEAR_DUPLICATE_WINDOW = 2000
BLEU_FLAG_RATIO = 0.5  # mean BLEU below half the mean of the same clusters
PINC_FLAG_RATIO = 0.5  # mean PINC below half the mean of the same clusters
SCORED_MINIMUM = 3  # scored descriptions needed before BLEU or PINC is judged
SPEED_FLAG = 1.0  # median time spent, in segment lengths
# Descriptions (of those with a typing record) flagged by collector.provenance: an honest
# worker pastes now and then (their own sentence, fixed), a paster nearly always.
TYPING_FLAG = 0.20
TYPING_MINIMUM = 2  # …and at least this many of them
REJECTION_FLAG = 0.20
EXAMPLES = 5

SIGNALS = {
    "spelling": "Spelling",
    "shape": "Sentence shape",
    "language": "Language",
    "duplicates": "Copied text",
    "bleu": "Agreement with other descriptions",
    "pinc": "Own wording",
    "speed": "Time spent",
    "typing": "How texts were typed",
    "rejections": "Rejections",
}


@dataclass(frozen=True, slots=True)
class Submission:
    """One description as the signals see it."""

    id: int
    segment_id: int
    text: str
    language: str
    status: str = "pending"
    seconds: float | None = None  # time spent on the task
    segment_seconds: float | None = None
    bleu: float | None = None  # leave-one-out BLEU against its cluster
    pinc: float | None = None
    cluster_bleu: float | None = None  # mean BLEU of the members of its cluster
    cluster_pinc: float | None = None
    checks: TextChecks | None = None  # computed when missing
    # The languages the campaign it came through asked for (ISO 639 codes; empty: any).
    asked: tuple[str, ...] = ()
    # Its typing signals (collector.provenance.typing_signals); ("unknown",): no record.
    typing: tuple[str, ...] = (UNKNOWN,)

    @property
    def checked(self) -> TextChecks:
        return self.checks or text_checks(self.text, self.language)


@dataclass
class Signal:
    key: str
    value: float | None  # the figure the queue sorts on; None when nothing could be checked
    flagged: bool
    explanation: str
    examples: list[dict] = field(default_factory=list)  # {"id": description id, "note": …}

    @property
    def label(self) -> str:
        return SIGNALS[self.key]


def worker_signals(submissions: list[Submission]) -> list[Signal]:
    """Every signal for one worker's descriptions, in the order of SIGNALS."""
    submissions = [
        s if s.checks else replace(s, checks=text_checks(s.text, s.language)) for s in submissions
    ]
    return [
        spelling(submissions),
        sentence_shape(submissions),
        language_match(submissions),
        duplicates(submissions),
        cluster_bleu(submissions),
        pinc(submissions),
        speed(submissions),
        typing(submissions),
        rejections(submissions),
    ]


def declared_languages(submissions: list[Submission]) -> list[str]:
    """Declared languages, the most used first."""
    counts = Counter(s.language for s in submissions)
    return [language for language, _ in counts.most_common()]


def percent(rate: float | None) -> str:
    """A fraction as the review pages show it: 0.087 → "8.7%", 0.25 → "25%"."""
    if rate is None:
        return "—"
    return f"{rate * 100:.1f}%" if rate < 0.1 else f"{rate * 100:.0f}%"


def times(ratio: float | None) -> str:
    """A ratio as the review pages show it: 3.46 → "3.5×", and below 0.1 two significant
    digits (0.0123 → "0.012×"), so that a short but real time never reads as "0.0×"."""
    if ratio is None or ratio <= 0:
        return "—"
    return f"{ratio:.1f}×" if ratio >= 0.1 else f"{ratio:.2g}×"


def _rate(bad: int, checked: int) -> float | None:
    return bad / checked if checked else None


# Spelling ---------------------------------------------------------------------------------


def spelling(submissions: list[Submission]) -> Signal:
    words = wrong = 0
    examples, unchecked = [], Counter()
    for submission in submissions:
        checks = submission.checked
        if checks.misspelt is None:
            unchecked[submission.language] += 1
            continue
        misspelt = checks.misspelt
        words += checks.words
        wrong += len(misspelt)
        if misspelt and len(examples) < EXAMPLES:
            examples.append({"id": submission.id, "note": "unknown: " + ", ".join(misspelt)})
    rate = _rate(wrong, words)
    if rate is None:
        languages = ", ".join(language_name(language_code(x) or x) for x in unchecked) or "—"
        return Signal(
            "spelling",
            None,
            False,
            f"Not checked: there is no spelling dictionary for {languages}.",
        )
    explanation = (
        f"{wrong} of {counted(words, 'word')} ({percent(rate)}) are not in the dictionary of the "
        "declared language."
    )
    if rate > SPELLING_FLAG:
        explanation += f" Careful writers stay under {percent(SPELLING_FLAG)}."
    if unchecked:
        explanation += (
            f" {counted(sum(unchecked.values()), 'description')} in languages without a "
            "dictionary were not checked."
        )
    return Signal("spelling", rate, rate > SPELLING_FLAG, explanation, examples)


# Sentence shape ---------------------------------------------------------------------------


def sentence_shape(submissions: list[Submission]) -> Signal:
    bad, examples, kinds = 0, [], Counter()
    for submission in submissions:
        problems = submission.checked.shape
        if problems:
            bad += 1
            kinds.update(kind for kind, _ in problems)
            if len(examples) < EXAMPLES:
                examples.append(
                    {"id": submission.id, "note": "; ".join(note for _, note in problems)}
                )
    rate = _rate(bad, len(submissions))
    if rate is None:
        return Signal("shape", None, False, "No descriptions yet.")
    explanation = (
        f"{bad} of {counted(len(submissions), 'description')} ({percent(rate)}) are not one plain "
        "sentence (a capital at the start, a sensible length and, in English, a verb)."
    )
    if kinds:
        commonest = ", ".join(f"{kind} ({n})" for kind, n in kinds.most_common(3))
        explanation += f" Most often: {commonest}."
    return Signal("shape", rate, rate > SHAPE_FLAG, explanation, examples)


# Language identification ------------------------------------------------------------------


def language_match(submissions: list[Submission]) -> Signal:
    checked = mismatched = 0
    examples, unchecked, seen_as = [], Counter(), Counter()
    for submission in submissions:
        checks = submission.checked
        asked = {language_code(code) for code in submission.asked}
        written = language_code(submission.language)
        if asked and not ({written, checks.reads_as or written} <= asked):
            # Written (or reading as) a language its study did not ask for.
            checked += 1
            mismatched += 1
            seen_as[checks.reads_as or written] += 1
            if len(examples) < EXAMPLES:
                wanted = " or ".join(sorted(language_name(code) for code in asked))
                examples.append(
                    {
                        "id": submission.id,
                        "note": f"the study asked for {wanted}; declared "
                        f"{language_name(written)}"
                        + (
                            f", reads as {language_name(checks.reads_as)}"
                            if checks.reads_as
                            else ""
                        ),
                    }
                )
            continue
        if not checks.language_checked:
            unchecked[submission.language] += 1
            continue
        checked += 1
        other = checks.reads_as
        if other:
            code = language_code(submission.language)
            mismatched += 1
            seen_as[other] += 1
            if len(examples) < EXAMPLES:
                examples.append(
                    {
                        "id": submission.id,
                        "note": f"declared {language_name(code)}, reads as {language_name(other)}",
                    }
                )
    rate = _rate(mismatched, checked)
    if rate is None:
        names = ", ".join(unchecked) or "—"
        return Signal("language", None, False, f"Not checked: {names} cannot be identified.")
    explanation = (
        f"{mismatched} of {counted(checked, 'description')} ({percent(rate)}) do not read as "
        "the language the worker declared"
    )
    if seen_as:
        explanation += (
            " (they read as "
            + ", ".join(f"{language_name(code)}: {n}" for code, n in seen_as.most_common(3))
            + ")"
        )
    explanation += "."
    if rate > LANGUAGE_FLAG:
        explanation += " Workers who declare the wrong language get paid for work we cannot use."
    return Signal("language", rate, rate > LANGUAGE_FLAG, explanation, examples)


# Copied text ------------------------------------------------------------------------------


def _normalised(text: str) -> str:
    return " ".join(WORD.findall(text.lower())) or text.strip().lower()


def similar_pairs(word_sets: list[frozenset], threshold: float) -> list[tuple[int, int]]:
    """Index pairs whose Jaccard similarity is at least ``threshold``, found by prefix
    filtering: with words in a fixed order (rarest first), two sets that similar must share a
    word among the first |s| − ⌈threshold·|s|⌉ + 1 of each, so only those are indexed. Each
    set is also a bitmask of its words, so a candidate is checked with one AND."""
    frequency = Counter(word for words in word_sets for word in words)
    ordered = sorted(frequency, key=lambda word: (frequency[word], word))
    rank = {word: position for position, word in enumerate(ordered)}
    masks = [sum(1 << rank[word] for word in words) for words in word_sets]
    sizes = [len(words) for words in word_sets]
    index: dict[str, list[int]] = defaultdict(list)
    pairs = []
    for i in sorted(range(len(word_sets)), key=sizes.__getitem__):
        size = sizes[i]
        if not size:
            continue
        words = sorted(word_sets[i], key=rank.__getitem__)
        candidates = set()
        for word in words[: size - ceil(threshold * size) + 1]:
            candidates.update(index[word])
            index[word].append(i)
        for j in candidates:
            if sizes[j] < threshold * size:  # sets come smallest first: only too small ones
                continue
            shared = (masks[i] & masks[j]).bit_count()
            if shared >= threshold * (size + sizes[j] - shared):
                pairs.append((min(i, j), max(i, j)))
    return pairs


def duplicates(submissions: list[Submission]) -> Signal:
    if not submissions:
        return Signal("duplicates", None, False, "No descriptions yet.")
    # Compare each distinct text once: a paster's hundred copies are one text.
    texts = [_normalised(s.text) for s in submissions]
    distinct = list(dict.fromkeys(texts))
    number = {text: n for n, text in enumerate(distinct)}
    word_sets = [frozenset(text.split()) for text in distinct]
    parent = list(range(len(distinct)))

    def root(i):
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    window = max(len(distinct) - NEAR_DUPLICATE_WINDOW, 0)
    for i, j in similar_pairs(word_sets[window:], NEAR_DUPLICATE):
        i, j = i + window, j + window
        # Short sentences are too often alike by chance to call them near-copies.
        if len(word_sets[i]) >= 4 and len(word_sets[j]) >= 4:
            parent[root(i)] = root(j)
    groups = defaultdict(list)
    for i, text in enumerate(texts):
        groups[root(number[text])].append(i)
    # A group counts when its descriptions are about more than one segment.
    copied = [
        members
        for members in groups.values()
        if len({submissions[i].segment_id for i in members}) > 1
    ]
    repeated = sum(len(members) for members in copied)
    exact = sum(
        count for members in copied
        for count in Counter(texts[i] for i in members).values() if count > 1
    )  # fmt: skip
    rate = repeated / len(submissions)
    flagged = rate > DUPLICATE_FLAG and repeated >= DUPLICATE_MINIMUM
    copied.sort(key=len, reverse=True)
    examples = [
        {
            "id": submissions[members[0]].id,
            "note": "the same or nearly the same text on "
            + counted(len({submissions[i].segment_id for i in members}), "segment"),
        }
        for members in copied[:EXAMPLES]
    ]
    if not repeated:
        explanation = "No text is repeated across different segments."
    else:
        explanation = (
            f"{repeated} of {counted(len(submissions), 'description')} ({percent(rate)}) repeat "
            f"text the worker wrote for another segment ({exact} word for word, "
            f"{repeated - exact} nearly)."
        )
        if copied:
            explanation += f" The largest group has {len(copied[0])} descriptions."
        if window:
            explanation += (
                f" Near-copies were looked for among their latest {NEAR_DUPLICATE_WINDOW:,} "
                "different texts."
            )
        if flagged:
            explanation += " Pasting one sentence on many videos is the commonest way to cheat."
    return Signal("duplicates", rate, flagged, explanation, examples)


# Agreement with the cluster ---------------------------------------------------------------


def _cluster_comparison(submissions, key, cluster_key):
    scored = [s for s in submissions if getattr(s, key) is not None]
    clusters = [getattr(s, cluster_key) for s in scored if getattr(s, cluster_key) is not None]
    mean = statistics.fmean(getattr(s, key) for s in scored) if scored else None
    cluster_mean = statistics.fmean(clusters) if clusters else None
    return scored, mean, cluster_mean


def cluster_bleu(submissions: list[Submission]) -> Signal:
    scored, mean, cluster_mean = _cluster_comparison(submissions, "bleu", "cluster_bleu")
    if mean is None:
        return Signal(
            "bleu", None, False, "Not scored yet: no other descriptions of the same segments."
        )
    worst = sorted(scored, key=lambda s: s.bleu)[:EXAMPLES]
    examples = [{"id": s.id, "note": f"BLEU {s.bleu:.1f}"} for s in worst]
    flagged = (
        len(scored) >= SCORED_MINIMUM
        and cluster_mean is not None
        and mean < BLEU_FLAG_RATIO * cluster_mean
    )
    explanation = (
        f"Mean leave-one-out BLEU {mean:.1f} over {counted(len(scored), 'description')}, against "
        f"{cluster_mean:.1f} for everyone's descriptions of the same segments. "
        if cluster_mean is not None
        else f"Mean leave-one-out BLEU {mean:.1f} over {counted(len(scored), 'description')}. "
    )
    explanation += (
        "Far below: the sentences share little with what others wrote about the same videos "
        "(off-topic, or not watching)."
        if flagged
        else "BLEU measures how much a sentence shares with the others written for the same video."
    )
    return Signal("bleu", mean, flagged, explanation, examples)


def pinc(submissions: list[Submission]) -> Signal:
    scored, mean, cluster_mean = _cluster_comparison(submissions, "pinc", "cluster_pinc")
    if mean is None:
        return Signal(
            "pinc", None, False, "Not scored yet: no other descriptions of the same segments."
        )
    lowest = sorted(scored, key=lambda s: s.pinc)[:EXAMPLES]
    examples = [{"id": s.id, "note": f"PINC {s.pinc:.1f}"} for s in lowest]
    flagged = (
        len(scored) >= SCORED_MINIMUM
        and cluster_mean is not None
        and mean < PINC_FLAG_RATIO * cluster_mean
    )
    explanation = f"Mean PINC {mean:.1f} over {counted(len(scored), 'description')}" + (
        f", against {cluster_mean:.1f} for everyone's descriptions of the same segments. "
        if cluster_mean is not None
        else ". "
    )
    explanation += (
        "Far below: the sentences repeat others' wording almost word for word (copied from "
        "somewhere?)."
        if flagged
        else "PINC measures how differently a sentence is worded from the others (higher: more "
        "of its own words)."
    )
    return Signal("pinc", mean, flagged, explanation, examples)


# Time spent -------------------------------------------------------------------------------


def speed(submissions: list[Submission]) -> Signal:
    # A time of zero is no measurement (an imported description, a clock that went back), so
    # it counts as unknown: it must not make a worker look faster than the segment plays.
    timed = [s for s in submissions if s.seconds and s.segment_seconds]
    if not timed:
        return Signal("speed", None, False, "No timings recorded.")
    ratios = sorted(((s.seconds / s.segment_seconds, s) for s in timed), key=lambda pair: pair[0])
    median = statistics.median(ratio for ratio, _ in ratios)
    median_seconds = statistics.median(s.seconds for s in timed)
    median_length = statistics.median(s.segment_seconds for s in timed)
    flagged = median < SPEED_FLAG
    examples = [
        {"id": s.id, "note": f"{s.seconds:.0f} s on a {s.segment_seconds:g} s segment"}
        for ratio, s in ratios[:EXAMPLES]
        if ratio < SPEED_FLAG
    ]
    explanation = (
        f"Median time on a task {median_seconds:.0f} s for segments of {median_length:g} s "
        f"(median {times(median)} the segment's length)."
    )
    if flagged:
        explanation += " Faster than the segment plays: the worker cannot have watched it."
    return Signal("speed", median, flagged, explanation, examples)


# How the texts were typed ---------------------------------------------------------------


def typing(submissions: list[Submission]) -> Signal:
    recorded = [s for s in submissions if UNKNOWN not in s.typing]
    unknown = len(submissions) - len(recorded)
    if not recorded:
        return Signal(
            "typing",
            None,
            False,
            "Not recorded: the task page's script did not run for any of their descriptions "
            "(or they were imported). Unknown, which is not the same as typed.",
        )
    suspect = [s for s in recorded if s.typing]
    rate = len(suspect) / len(recorded)
    flagged = rate > TYPING_FLAG and len(suspect) >= TYPING_MINIMUM
    kinds = Counter(signal for s in suspect for signal in s.typing)
    explanation = (
        f"{len(suspect)} of {counted(len(recorded), 'description')} with a typing record "
        f"({percent(rate)}) do not look typed on the page"
    )
    if kinds:
        explanation += ": " + ", ".join(
            f"{TYPING_SIGNALS[kind].lower()} ({n})" for kind, n in kinds.most_common()
        )
    explanation += "."
    if unknown:
        explanation += f" {unknown} have no record (unknown)."
    if flagged:
        explanation += " Text written elsewhere and pasted is the commonest sign of generated text."
    examples = [
        {"id": s.id, "note": "; ".join(TYPING_SIGNALS[kind].lower() for kind in s.typing)}
        for s in suspect[:EXAMPLES]
    ]
    return Signal("typing", rate, flagged, explanation, examples)


# Rejections -------------------------------------------------------------------------------


def rejections(submissions: list[Submission]) -> Signal:
    reviewed = [s for s in submissions if s.status in ("accepted", "rejected")]
    rejected = [s for s in reviewed if s.status == "rejected"]
    rate = _rate(len(rejected), len(reviewed))
    if rate is None:
        return Signal("rejections", None, False, "None of their work has been reviewed yet.")
    explanation = (
        f"{len(rejected)} of {len(reviewed)} reviewed descriptions ({percent(rate)}) were rejected."
    )
    examples = [{"id": s.id, "note": "rejected"} for s in rejected[:EXAMPLES]]
    return Signal("rejections", rate, rate > REJECTION_FLAG, explanation, examples)
