"""Scoring a researcher's paraphrase system the way Chen & Dolan (2011) evaluate one: each
output against the other descriptions of its source's cluster (BLEU), against the source itself
(PINC), and the combined score PINC × sigmoid(BLEU).

Sources must come from the test split of an export (the same split options and filters; the
split is drawn by video, see research.splits), and the references are the ones that export's
test file gives the source (Tier 2 only, or with the source itself, when the split says so):
a source is found by its exact text among the test clusters' descriptions, or, when the same
sentence was written for several segments, by the segment id given with it.

A system may declare what its learned parts (a paraphrase table, a language model) were learned
from (research.learning); the score then says whether they saw the clusters it is scored on.
"""

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from itertools import islice

import paracrowd_metrics as metrics
from paracrowd import sample_size
from paracrowd_metrics.meteor import Meteor
from scoring.services import MeteorConfiguration, meteor_configuration

from .learning import LearnedFrom, declarations, leakage
from .selection import CorpusFilter, video_label
from .splits import SplitOptions, video_key

# Sources looked up in one query.
LOOKUP_BATCH = 1000


class ScoringTooLarge(ValueError):
    """The pairs would take longer to score than one system of a scoring job may take."""

    def __init__(self, work: int, limit: int):
        self.work, self.limit = work, limit
        super().__init__(
            f"Scoring these pairs is about {work:,} units of work; one system of a job may "
            f"take {limit:,}. Send fewer pairs (or shorter outputs) per system, or use the "
            "score_system command, which has no limit."
        )


# Below this many scored pairs a mean, and a comparison's interval and p-value, are shown with
# a warning.
# Why 30: the percentile interval of a bootstrap is only as good as the normal approximation
# to the mean of the per-source differences, and 30 is the customary size from which that
# holds for the skewed, bounded sentence scores compared here; below it the interval is too
# narrow (the bootstrap's variance is (n - 1)/n of the true one, and its percentiles come
# from a lumpy distribution). Worse, n pairs have only C(2n - 1, n) distinct resamples (10 for
# 3 pairs), so a p-value of 0.001 from 1,000 of them says how the resampling ran, not how
# likely the difference is by chance. Koehn (2004), whose test this is, worked with hundreds
# of sentences.
FEW_PAIRS = sample_size.MINIMUM


def few_pairs_warning(pairs: int) -> str | None:
    """What scores over ``pairs`` pairs (a comparison's paired sources) must say beside their
    statistics, or None when there are enough."""
    if pairs >= FEW_PAIRS:
        return None
    return (
        f"Small sample: {pairs} scored pair{'' if pairs == 1 else 's'}. With fewer than "
        f"{FEW_PAIRS}, means vary widely, 95% intervals are too narrow and p-values unreliable "
        f"({pairs} pair{'' if pairs == 1 else 's'} allow only {math.comb(2 * pairs - 1, pairs):,}"
        " distinct resamples); score more test sources before drawing a conclusion."
    )


@dataclass(frozen=True)
class SystemPair:
    source: str
    output: str
    segment_id: int | None = None
    # A description of the cluster that is the output itself (the human reference row): it is
    # left out of the references, so that it is not scored against itself.
    output_description_id: int | None = None


@dataclass
class PairScore:
    index: int  # position in the input, from 1
    segment_id: int
    language: str
    references: int
    bleu: float
    pinc: float
    combined: float
    meteor: float | None = None
    # The source's description: what pairs two systems' scores for the same item.
    description_id: int = 0


@dataclass
class SystemScore:
    pairs: int = 0
    scored: int = 0
    # Corpus BLEU over every scored output (None when outputs need different tokenizers).
    bleu: float | None = None
    mean_bleu: float | None = None
    pinc: float | None = None
    combined: float | None = None
    centre: float = 0.0
    slope: float = 0.0
    bleu_signature: str = ""
    pinc_signature: str = ""
    # Mean METEOR-style score against each source's cluster, with the site's parameters.
    meteor: float | None = None
    meteor_signature: str = ""
    # What the system declared its learned parts were learned from (LearnedFrom.as_dict()),
    # whether any of them saw a scored source's cluster (None: cannot be told), and why.
    learned_from: list[dict] = field(default_factory=list)
    saw_scored_clusters: bool | None = None
    leakage: list[str] = field(default_factory=list)
    # (position from 1, why the pair was not scored)
    unscored: list[tuple[int, str]] = field(default_factory=list)
    scores: list[PairScore] = field(default_factory=list)

    def lines(self) -> list[str]:
        def number(value):
            return "—" if value is None else f"{value:.2f}"

        lines = [
            f"Pairs: {self.pairs}, scored: {self.scored}",
            f"BLEU (corpus, against each source's cluster): {number(self.bleu)}",
            f"BLEU (mean of sentences): {number(self.mean_bleu)}",
            f"PINC (mean, against the source): {number(self.pinc)}",
            f"PINC × sigmoid(BLEU) (mean; centre {self.centre:g}, slope {self.slope:g}): "
            f"{number(self.combined)}",
        ]
        lines.append(f"METEOR-style (mean, against each source's cluster): {number(self.meteor)}")
        if self.bleu_signature:
            lines.append(f"Signatures: {self.bleu_signature} / {self.pinc_signature}")
        if self.meteor_signature:
            lines.append(f"METEOR signature: {self.meteor_signature}")
        for record in map(LearnedFrom.from_dict, self.learned_from):
            lines.append(f"Learned from: the {record.what}: {record.describe()}")
        lines += [f"Warning: {warning}" for warning in self.leakage]
        lines += [f"Not scored: pair {index}: {reason}" for index, reason in self.unscored]
        warning = few_pairs_warning(self.scored) if self.scored else None
        if warning:
            lines.append(f"Warning: {warning}")
        return lines


def system_score(
    *,
    pairs: Iterable[SystemPair],
    corpus_filter: CorpusFilter,
    split: SplitOptions,
    centre: float,
    slope: float,
    work_limit: int | None = None,
    learned_from: Sequence[LearnedFrom] = (),
) -> SystemScore:
    """Score each (source, output) pair whose source is a test-split description, and check
    the system's declared ``learned_from`` records against the scored sources' videos.

    With ``work_limit``, the work is estimated once the sources are found and before anything
    is scored, and ``ScoringTooLarge`` raised above the limit: what a job may ask for is
    bounded by its cost (which grows with the outputs' lengths, the clusters' sizes and the
    n-gram order, 18 for languages scored by character), not only by its number of pairs."""
    result = SystemScore(
        centre=centre, slope=slope, learned_from=[record.as_dict() for record in learned_from]
    )
    meteor = meteor_configuration()
    scorers: dict[str, Meteor] = {}
    references: dict[tuple[int, str], list] = {}
    found_pairs = []
    iterator = iter(enumerate(pairs, start=1))
    while batch := list(islice(iterator, LOOKUP_BATCH)):
        matches = _test_descriptions({pair.source for _, pair in batch}, corpus_filter, split)
        for index, pair in batch:
            result.pairs += 1
            found = [m for m in matches.get(pair.source, []) if _same_segment(m, pair)]
            clusters = {(segment_id, language) for _, segment_id, language, _ in found}
            if not found:
                result.unscored.append((index, _not_found(pair, corpus_filter, split)))
                continue
            if len(clusters) > 1:
                result.unscored.append(
                    (index, f"the source is in {len(clusters)} test clusters; give its segment_id")
                )
                continue
            description_id, segment_id, language, video = found[0]
            cluster = (segment_id, language)
            if cluster not in references:
                references[cluster] = list(
                    corpus_filter.descriptions()
                    .filter(segment_id=segment_id, language=language)
                    .order_by("id")
                    .values_list("id", "text", "tier", named=True)
                )
            members = references[cluster]
            if pair.output_description_id is not None:
                members = [row for row in members if row.id != pair.output_description_id]
            position = next(i for i, row in enumerate(members) if row.id == description_id)
            others = split.references(members, position)
            if not others:
                result.unscored.append(
                    (index, "the source's cluster has no other description to score against")
                )
                continue
            settings = metrics.ClusterSettings(tokenize=metrics.default_tokenize(language))
            found_pairs.append(
                (index, pair, segment_id, language, others, settings, description_id, video)
            )
    if work_limit is not None:
        work = sum(_work(found[1], found[4], found[5]) for found in found_pairs)
        if work > work_limit:
            raise ScoringTooLarge(work, work_limit)
    hypotheses, reference_lists, tokenizers = [], [], set()
    for index, pair, segment_id, language, others, settings, description_id, _ in found_pairs:
        bleu = metrics.sentence_bleu(
            pair.output, others, tokenize=settings.tokenize, max_order=settings.max_order
        )
        pinc = metrics.pinc(
            pair.source,
            pair.output,
            tokenize=settings.tokenize,
            max_order=settings.pinc_max_order,
        )
        result.scores.append(
            PairScore(
                index=index,
                segment_id=segment_id,
                language=language,
                references=len(others),
                bleu=bleu,
                pinc=pinc,
                combined=metrics.combined(bleu, pinc, centre=centre, slope=slope),
                meteor=_scorer(scorers, meteor, language).score(pair.output, others),
                description_id=description_id,
            )
        )
        hypotheses.append(pair.output)
        reference_lists.append(others)
        tokenizers.add(settings)
    _summarise(result, hypotheses, reference_lists, tokenizers)
    if learned_from:
        checked = leakage(learned_from, [found[-1] for found in found_pairs])
        result.saw_scored_clusters = checked.saw_scored_clusters
        result.leakage = list(checked.warnings)
    if result.scores:
        result.meteor = sum(s.meteor for s in result.scores) / len(result.scores)
        result.meteor_signature = "; ".join(
            meteor.signature(language, "var") for language in sorted(scorers)
        )
        if meteor.problem:
            result.meteor_signature += f" (the stored table is not used: {meteor.problem})"
    return result


def pairs_from_tsv(text: str, name: str) -> list[SystemPair]:
    """(source, output[, segment_id]) per line of a system's TSV; a first line starting with
    "source" is a header, blank lines are skipped, and so are the ``# learned-from:`` lines
    that may open the file (``system_tsv`` reads them). Raises ValueError naming ``name`` and
    the line of the first malformed one."""
    pairs = []
    _, declared = declarations(text, name)
    for number, line in enumerate(text.splitlines(), start=1):
        if number <= declared:
            continue
        fields = line.split("\t")
        if (number == declared + 1 and fields[0] == "source") or not line.strip():
            continue
        if len(fields) not in (2, 3):
            raise ValueError(f"{name}:{number}: expected source<TAB>output[<TAB>segment_id]")
        segment_id = None
        if len(fields) == 3 and fields[2].strip():
            try:
                segment_id = int(fields[2])
            except ValueError:
                raise ValueError(f"{name}:{number}: {fields[2]!r} is not a segment id") from None
        pairs.append(SystemPair(source=fields[0], output=fields[1], segment_id=segment_id))
    return pairs


def system_tsv(text: str, name: str) -> tuple[list[SystemPair], list[LearnedFrom]]:
    """A system's TSV file: its pairs and the learned-from records it declares."""
    return pairs_from_tsv(text, name), declarations(text, name)[0]


def _scorer(scorers: dict[str, Meteor], meteor: MeteorConfiguration, language: str) -> Meteor:
    if language not in scorers:
        scorers[language] = meteor.scorer(language)
    return scorers[language]


def _work(pair: SystemPair, others: list[str], settings) -> int:
    """Units of scoring work for one pair: its n-gram units (words, or characters for
    languages without spaces) in output, source and references, times the n-gram order. The
    time to score grows in proportion (about a microsecond a unit; README)."""
    texts = [pair.output, pair.source, *others]
    if settings.tokenize == "char":
        units = sum(len(text) - text.count(" ") for text in texts)
    else:
        units = sum(len(text.split()) for text in texts)
    return units * settings.max_order


def _summarise(result: SystemScore, hypotheses, reference_lists, tokenizers) -> None:
    scores = result.scores
    result.scored = len(scores)
    if not scores:
        return
    result.mean_bleu = sum(s.bleu for s in scores) / len(scores)
    result.pinc = sum(s.pinc for s in scores) / len(scores)
    result.combined = sum(s.combined for s in scores) / len(scores)
    if len(tokenizers) == 1:
        (settings,) = tokenizers
        result.bleu = metrics.corpus_bleu(
            hypotheses, reference_lists, tokenize=settings.tokenize, max_order=settings.max_order
        )
        result.bleu_signature = settings.bleu_signature("var")
        result.pinc_signature = settings.pinc_signature(1)


def _test_descriptions(sources: set[str], corpus_filter, split: SplitOptions):
    """{text: [(description id, segment id, language, video)]} for test-split descriptions."""
    found = {}
    rows = (
        corpus_filter.descriptions()
        .filter(text__in=sources)
        .annotate(video=video_label())
        .order_by("segment_id", "id")
        .values_list("text", "id", "segment_id", "language", "segment__source", "video")
    )
    for text, description_id, segment_id, language, source, video in rows:
        key = video_key(source, video)
        if split.side(key) == "test":
            found.setdefault(text, []).append((description_id, segment_id, language, key))
    return found


def _same_segment(match, pair: SystemPair) -> bool:
    return pair.segment_id is None or match[1] == pair.segment_id


def _not_found(pair: SystemPair, corpus_filter: CorpusFilter, split: SplitOptions) -> str:
    elsewhere = corpus_filter.descriptions().filter(text=pair.source)
    if pair.segment_id is not None:
        elsewhere = elsewhere.filter(segment_id=pair.segment_id)
    if elsewhere.exists():
        return f"the source's video is not in the test split ({split.describe()})"
    return "the source is not a description in the selection"
