"""Learning a paraphrase table from clusters of descriptions (after Denkowski & Lavie 2010).

Three sources of phrase pairs, each giving a table of P(n₂|n₁) for the target language:

- monolingual: descriptions of one cluster in the target language are paired (each with the
  next ``pairs_per_description`` of its cluster), word-aligned with the project's aligner
  trained on those same pairs, and every phrase pair consistent with the alignment is
  counted (in both directions: a paraphrase relation has no direction). P(n₂|n₁) is the
  relative frequency of n₂ among the phrases n₁ was aligned to, n₁ itself included, so a
  phrase the writers keep unchanged has low paraphrase probabilities;
- pivot: where a segment also has descriptions in another language, target and foreign
  descriptions are paired and aligned the same way, giving P(f|n) and P(n|f) by relative
  frequency, and P(n₂|n₁) = Σ_f P(f|n₁)·P(n₂|f) over foreign phrases f, n₂ ≠ n₁;
- annotators: phrase pairs consistent with the sure links of collected word alignments,
  counted like the monolingual ones.

The paper's filters apply to every instance (n₁, f, n₂), or (n₁, n₂) without a pivot: an
instance whose P(f|n₁)·P(n₂|f) is below ``min_instance_probability`` (0.001) is dropped, and so
is one where any phrase holds a punctuation character or only common words (relative
frequency of at least ``common_frequency``, 0.001, among the tokens of its language). The
tables are merged with weights proportional to their number of sentence pairs, and entries
below the final ``threshold`` (0.01) are dropped.
"""

from __future__ import annotations

import unicodedata
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

from paracrowd_metrics.alignment import extract_phrase_pairs, train_aligner

from .matchers import meteor_tokens, primary_language
from .table import ParaphraseTable, Phrase, merge_tables

Tokens = tuple[str, ...]
Link = tuple[int, int]
# Told how many sentence pairs a stage ("monolingual", "pivot:de", …) has finished.
Progress = Callable[[str, int], None]


@dataclass(frozen=True)
class ExtractionSettings:
    language: str = "en"
    max_phrase_length: int = 4
    pairs_per_description: int = 2
    min_instance_probability: float = 0.001
    common_frequency: float = 0.001
    threshold: float = 0.01
    # Not in the paper: a phrase pair seen fewer times is ignored. On a corpus of thousands
    # rather than millions of sentences, pairs seen once are mostly alignment noise.
    min_count: int = 2
    aligner_iterations: int = 5
    # The aligner learns from at most this many sentence pairs (it then aligns all of them).
    max_training_pairs: int = 100_000

    def __post_init__(self) -> None:
        primary_language(self.language)
        if min(self.max_phrase_length, self.pairs_per_description, self.min_count) < 1:
            raise ValueError(
                "max_phrase_length, pairs_per_description and min_count must be at least 1"
            )
        for name in ("min_instance_probability", "common_frequency", "threshold"):
            if not 0.0 <= getattr(self, name) <= 1.0:
                raise ValueError(f"{name} must be between 0 and 1")


@dataclass
class ExtractionReport:
    descriptions: int = 0
    clusters: int = 0
    # Sentence pairs behind each table ("monolingual", "pivot:de", "annotators").
    sentence_pairs: dict[str, int] = field(default_factory=dict)
    entries: dict[str, int] = field(default_factory=dict)
    final_entries: int = 0

    def lines(self) -> list[str]:
        lines = [f"Descriptions: {self.descriptions} in {self.clusters} clusters"]
        for source, pairs in self.sentence_pairs.items():
            lines.append(f"{source}: {pairs} sentence pairs, {self.entries.get(source, 0)} entries")
        lines.append(f"Final table: {self.final_entries} entries")
        return lines


def has_punctuation(phrase: Phrase) -> bool:
    return any(unicodedata.category(c).startswith("P") for word in phrase for c in word)


def common_words(sentences: Iterable[Tokens], min_frequency: float) -> frozenset[str]:
    """Words whose relative frequency among all the tokens is at least ``min_frequency``."""
    counts = Counter(word for sentence in sentences for word in sentence)
    total = sum(counts.values())
    if not total:
        return frozenset()
    return frozenset(word for word, count in counts.items() if count / total >= min_frequency)


def usable(phrase: Phrase, common: frozenset[str]) -> bool:
    """Neither punctuation nor common words only: a phrase the paper keeps."""
    return not has_punctuation(phrase) and not all(word in common for word in phrase)


class PhrasePairCounts:
    """How often each (phrase, aligned phrase) pair was extracted."""

    def __init__(self, max_length: int):
        self.max_length = max_length
        self.counts: Counter[tuple[Phrase, Phrase]] = Counter()

    def at_least(self, minimum: int) -> PhrasePairCounts:
        kept = PhrasePairCounts(self.max_length)
        kept.counts = Counter({k: c for k, c in self.counts.items() if c >= minimum})
        return kept

    def add(self, source: Sequence[str], target: Sequence[str], links: Iterable[Link]) -> None:
        limit = self.max_length
        for pair in extract_phrase_pairs(links).all:
            if pair.source_end - pair.source_start > limit:
                continue
            if pair.target_end - pair.target_start > limit:
                continue
            key = (
                tuple(source[pair.source_start : pair.source_end]),
                tuple(target[pair.target_start : pair.target_end]),
            )
            self.counts[key] += 1


def _conditional(counts: Counter, *, given: int) -> dict[Phrase, dict[Phrase, float]]:
    """{given side: {other side: P(other | given)}} by relative frequency."""
    totals: Counter[Phrase] = Counter()
    for key, count in counts.items():
        totals[key[given]] += count
    table: dict[Phrase, dict[Phrase, float]] = {}
    for key, count in counts.items():
        table.setdefault(key[given], {})[key[1 - given]] = count / totals[key[given]]
    return table


def monolingual_table(
    counts: PhrasePairCounts, common: frozenset[str], settings: ExtractionSettings
) -> ParaphraseTable:
    """P(n₂|n₁) by relative frequency over phrase pairs counted in both directions."""
    both: Counter[tuple[Phrase, Phrase]] = Counter()
    for (first, second), count in counts.at_least(settings.min_count).counts.items():
        both[first, second] += count
        both[second, first] += count
    table = ParaphraseTable()
    for phrase, row in _conditional(both, given=0).items():
        if not usable(phrase, common):
            continue
        for paraphrase, probability in row.items():
            if (
                paraphrase != phrase
                and probability >= settings.min_instance_probability
                and usable(paraphrase, common)
            ):
                table.add(phrase, paraphrase, probability)
    return table


def pivot_table(
    counts: PhrasePairCounts,
    native_common: frozenset[str],
    foreign_common: frozenset[str],
    settings: ExtractionSettings,
) -> ParaphraseTable:
    """P(n₂|n₁) = Σ_f P(f|n₁)·P(n₂|f) from counts of (native phrase, foreign phrase)."""
    kept = counts.at_least(settings.min_count).counts
    foreign_given_native = _conditional(kept, given=0)
    native_given_foreign = _conditional(kept, given=1)
    sums: dict[tuple[Phrase, Phrase], float] = {}
    for native, row in foreign_given_native.items():
        if not usable(native, native_common):
            continue
        for foreign, to_foreign in row.items():
            if not usable(foreign, foreign_common):
                continue
            for other, from_foreign in native_given_foreign[foreign].items():
                instance = to_foreign * from_foreign
                if (
                    other == native
                    or instance < settings.min_instance_probability
                    or not usable(other, native_common)
                ):
                    continue
                sums[native, other] = sums.get((native, other), 0.0) + instance
    table = ParaphraseTable()
    for (native, other), probability in sums.items():
        table.add(native, other, min(1.0, probability))
    return table


def cluster_pairs(count: int, per_description: int) -> list[tuple[int, int]]:
    """Each member paired with the next ``per_description`` members (cyclically), once."""
    pairs = set()
    for first in range(count):
        for step in range(1, min(per_description, count - 1) + 1):
            second = (first + step) % count
            pairs.add((min(first, second), max(first, second)))
    return sorted(pairs)


def _cross_pairs(native: int, foreign: int, per_description: int) -> list[tuple[int, int]]:
    """Each native member paired with ``per_description`` foreign members, spread evenly."""
    return sorted(
        {(i, (i + step) % foreign) for i in range(native) for step in range(per_description)}
    )


def _aligned_counts(
    pairs: list[tuple[Tokens, Tokens]], settings: ExtractionSettings, stage: str, progress
) -> PhrasePairCounts:
    counts = PhrasePairCounts(settings.max_phrase_length)
    pairs = [(source, target) for source, target in pairs if source and target]
    if not pairs:
        return counts
    step = -(-len(pairs) // settings.max_training_pairs)  # a spread sample, not the first ones
    aligner = train_aligner(pairs[::step], iterations=settings.aligner_iterations)
    for number, (source, target) in enumerate(pairs, start=1):
        counts.add(source, target, aligner.align(source, target).sure)
        if progress and number % 1000 == 0:
            progress(stage, 1000)
    if progress:
        progress(stage, len(pairs) % 1000)
    return counts


@dataclass(frozen=True)
class AnnotatedPair:
    """Two tokenised sentences of the target language and an annotator's sure links."""

    source: Tokens
    target: Tokens
    sure: frozenset[Link]


def extract_paraphrases(
    clusters: Iterable[Sequence[tuple[str, str]]],
    *,
    settings: ExtractionSettings | None = None,
    annotated: Iterable[AnnotatedPair] = (),
    progress: Progress | None = None,
) -> tuple[ParaphraseTable, ExtractionReport]:
    """A paraphrase table for ``settings.language`` learned from ``clusters``.

    Each cluster is one segment's descriptions as (language, text) pairs, in any languages;
    those in the target language are paired with each other (monolingual) and with those
    in every other language (pivot). See the module docstring.
    """
    settings = settings or ExtractionSettings()
    target = primary_language(settings.language)
    report = ExtractionReport()
    by_cluster: list[dict[str, list[Tokens]]] = []
    for cluster in clusters:
        members: dict[str, list[Tokens]] = {}
        for language, text in cluster:
            code = primary_language(language)
            members.setdefault(code, []).append(meteor_tokens(text, code))
            report.descriptions += 1
        report.clusters += 1
        by_cluster.append(members)
    languages = sorted({code for members in by_cluster for code in members} - {target})
    common = {
        code: common_words(
            (s for members in by_cluster for s in members.get(code, ())), settings.common_frequency
        )
        for code in [target, *languages]
    }
    tables: list[tuple[str, ParaphraseTable, int]] = []

    monolingual = []
    for members in by_cluster:
        own = members.get(target, [])
        monolingual += [
            (own[i], own[j]) for i, j in cluster_pairs(len(own), settings.pairs_per_description)
        ]
    counts = _aligned_counts(monolingual, settings, "monolingual", progress)
    tables.append(
        ("monolingual", monolingual_table(counts, common[target], settings), len(monolingual))
    )

    for language in languages:
        crossed = []
        for members in by_cluster:
            own, foreign = members.get(target, []), members.get(language, [])
            if own and foreign:
                crossed += [
                    (own[i], foreign[j])
                    for i, j in _cross_pairs(len(own), len(foreign), settings.pairs_per_description)
                ]
        counts = _aligned_counts(crossed, settings, f"pivot:{language}", progress)
        table = pivot_table(counts, common[target], common[language], settings)
        tables.append((f"pivot:{language}", table, len(crossed)))

    annotated = list(annotated)
    if annotated:
        counts = PhrasePairCounts(settings.max_phrase_length)
        for pair in annotated:
            counts.add(pair.source, pair.target, pair.sure)
        table = monolingual_table(counts, common[target], settings)
        tables.append(("annotators", table, len(annotated)))

    for name, table, pairs in tables:
        report.sentence_pairs[name] = pairs
        report.entries[name] = len(table)
    merged = merge_tables((table, pairs) for _, table, pairs in tables if pairs).above(
        settings.threshold
    )
    report.final_entries = len(merged)
    return merged, report
