"""Agreement between annotators of word alignments, after Cohn, Callison-Burch & Lapata (2008).

The chance-corrected statistic Ĉ (after Kupper & Hafner 1989) compares atomic phrase pairs:

    π̂  = (1/I) Σᵢ |Aᵢ ∩ Bᵢ| / min(|Aᵢ|, |Bᵢ|)        over items i (sentence pair × annotator pair)
    Ĉ  = (π̂ − π̂₀) / (1 − π̂₀)

π̂₀ is estimated by Monte Carlo under the edit model of ``chance``: J random alignments per
annotator and sentence pair, paired sample by sample. Kupper & Hafner's own π₀ assumes each
annotator picks their |Aᵢ| items uniformly from all k candidates, giving max(|Aᵢ|, |Bᵢ|) / k;
here k is the number of (source span, target span) boxes of the sentence pair. It is reported
for comparison.

Which items count: an item enters π̂ (and both chance terms) only when both annotators have at
least one scored atomic phrase pair and at least one sample pair does too; otherwise the
ratio is 0/0. With no item at all, π̂, π̂₀ and Ĉ are NaN. Ĉ is NaN when π̂₀ is 1.

Identical word pairs are left out by default: links between identical words from word
counts and κ, phrase pairs whose two sides are the same words from phrase counts and Ĉ
(phrases are extracted from the whole alignment first, so the structure is unchanged).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import combinations

from .brockett import BrockettAgreement
from .chance import (
    EditModel,
    changed_cell_fraction,
    draw_alignments,
    fit_edit_model,
    grid_overlaps,
    sample_generator,
    sampled_phrase_grids,
)
from .links import Alignment
from .measures import LinkCounts, link_counts
from .phrases import (
    PhraseCounts,
    PhraseLinks,
    phrase_counts_between,
    phrase_links,
    scored_phrase_pairs,
)


@dataclass(frozen=True)
class AnnotatedPair:
    """A sentence pair, its automatic pre-alignment and each annotator's alignment of it."""

    pair_id: str
    source: tuple[str, ...]
    target: tuple[str, ...]
    pre_alignment: Alignment
    alignments: Mapping[str, Alignment]
    corpus: str = ""  # where the pair comes from, for the per-corpus rows
    pre_aligned: bool = True  # False: no aligner gave this pair a pre-alignment

    def __post_init__(self) -> None:
        object.__setattr__(self, "source", tuple(self.source))
        object.__setattr__(self, "target", tuple(self.target))
        for name, alignment in {"pre-alignment": self.pre_alignment, **self.alignments}.items():
            for i, j in alignment.possible:
                if i >= len(self.source) or j >= len(self.target):
                    raise ValueError(
                        f"pair {self.pair_id}, {name}: link ({i}, {j}) is outside a "
                        f"{len(self.source)}×{len(self.target)} sentence pair"
                    )


def chance_corrected(observed: float, chance: float) -> float:
    """(observed − chance) / (1 − chance); NaN when chance agreement is 1."""
    if chance == 1:
        return math.nan
    return (observed - chance) / (1 - chance)


@dataclass(frozen=True)
class ChanceCorrected:
    """Observed and chance agreement over atomic phrase pairs, and Ĉ."""

    items: int
    observed: float  # π̂
    chance: float  # π̂₀, Monte Carlo under the edit model
    kupper_hafner_chance: float  # π₀ of Kupper & Hafner

    @property
    def c_hat(self) -> float:
        """Ĉ = (π̂ − π̂₀) / (1 − π̂₀)."""
        return chance_corrected(self.observed, self.chance)

    @property
    def kupper_hafner_c_hat(self) -> float:
        """The same statistic with Kupper & Hafner's uniform π₀."""
        return chance_corrected(self.observed, self.kupper_hafner_chance)


@dataclass(frozen=True)
class AgreementSummary:
    """Agreement of one group of items: word and phrase counts, and Ĉ.

    Counts are micro-averaged with the first annotator of each item as the candidate (for a
    single annotator's row: that annotator against each other one). ``link_kappa`` is Cohen's
    κ over link items, given for pairs of annotators only.
    """

    words: LinkCounts
    phrases: PhraseCounts
    agreement: ChanceCorrected
    link_kappa: float | None = None


@dataclass(frozen=True)
class LengthBin:
    """Sentence pairs whose shorter sentence has ``shortest``..``longest`` words (None: no limit).

    Cohn et al. (2008, Figure 4) bin by the shorter sentence of each pair.
    """

    shortest: int
    longest: int | None
    pairs: int
    summary: AgreementSummary


@dataclass(frozen=True)
class AgreementTable:
    """The full agreement table of an annotated corpus."""

    corpus: AgreementSummary
    pairwise: dict[tuple[str, str], AgreementSummary]
    per_annotator: dict[str, AgreementSummary]
    by_length: list[LengthBin]
    by_corpus: dict[str, AgreementSummary]
    edit_models: dict[str, EditModel]
    # Fleiss' κ over non-identical link items with NULL items on both sides (see ``kappa``)
    link_fleiss_kappa: float | None  # over all annotators, when there are three or more
    samples: int
    # The pre-alignment against each annotator and the majority (pre-aligned pairs only)
    aligner: dict[str, AgreementSummary] = field(default_factory=dict)
    # Brockett's (2007) Fleiss' κ over link items, with Cohen's κ per pair on the same items
    brockett: BrockettAgreement | None = None


@dataclass(frozen=True)
class _Item:
    """One sentence pair scored for one pair of annotators, in both directions."""

    pair: AnnotatedPair
    first: str
    second: str
    words: LinkCounts  # first as candidate
    words_reversed: LinkCounts  # second as candidate
    phrases: PhraseCounts  # first as candidate
    phrases_reversed: PhraseCounts  # second as candidate
    observed: float | None
    chance: float | None
    kupper_hafner_chance: float | None

    def involves(self, annotator: str) -> bool:
        return annotator in (self.first, self.second)


def _overlap_ratio(first: frozenset, second: frozenset) -> float | None:
    smaller = min(len(first), len(second))
    return len(first & second) / smaller if smaller else None


def _candidate_boxes(pair: AnnotatedPair) -> int:
    n, m = len(pair.source), len(pair.target)
    return n * (n + 1) // 2 * (m * (m + 1) // 2)


def fit_edit_models(
    pairs: Sequence[AnnotatedPair], *, links: PhraseLinks = "all"
) -> dict[str, EditModel]:
    """Each annotator's edit model, fitted on the pairs they aligned."""
    observations: dict[str, list[tuple[int, int, float]]] = {}
    for pair in pairs:
        n, m = len(pair.source), len(pair.target)
        if not n or not m:
            continue  # an empty sentence has no cells to edit
        pre = phrase_links(pair.pre_alignment, links)
        for annotator, alignment in pair.alignments.items():
            fraction = changed_cell_fraction(pre, phrase_links(alignment, links), n, m)
            observations.setdefault(annotator, []).append((n, m, fraction))
    return {name: fit_edit_model(found) for name, found in sorted(observations.items())}


def _score_pair(
    pair: AnnotatedPair,
    models: Mapping[str, EditModel],
    *,
    samples: int,
    seed: int,
    include_identical: bool,
    links: PhraseLinks,
) -> list[_Item]:
    names = sorted(pair.alignments)
    if len(names) < 2 or not pair.source or not pair.target:
        return []
    n, m = len(pair.source), len(pair.target)
    phrases = {
        name: scored_phrase_pairs(
            pair.alignments[name],
            pair.source,
            pair.target,
            include_identical=include_identical,
            links=links,
        )
        for name in names
    }
    sure_phrases = {
        name: scored_phrase_pairs(
            pair.alignments[name],
            pair.source,
            pair.target,
            include_identical=include_identical,
            links="sure",
        )
        for name in names
    }
    pre = phrase_links(pair.pre_alignment, links)
    draws = [
        draw_alignments(
            sample_generator(seed, pair.pair_id, name),
            pre,
            n,
            m,
            models[name].probability(n, m),
            samples,
        )
        for name in names
    ]
    found = sampled_phrase_grids(
        draws, pair.source, pair.target, include_identical=include_identical
    )
    grids = dict(zip(names, found, strict=True))
    items = []
    for first, second in combinations(names, 2):
        a, b = pair.alignments[first], pair.alignments[second]
        observed = _overlap_ratio(phrases[first].atomic, phrases[second].atomic)
        chance = grid_overlaps(grids[first], grids[second]).mean_ratio()
        kupper_hafner = None
        if observed is not None and chance is not None:
            larger = max(len(phrases[first].atomic), len(phrases[second].atomic))
            kupper_hafner = larger / _candidate_boxes(pair)
        else:
            observed = chance = None
        items.append(
            _Item(
                pair=pair,
                first=first,
                second=second,
                words=link_counts(
                    a, b, pair.source, pair.target, include_identical=include_identical
                ),
                words_reversed=link_counts(
                    b, a, pair.source, pair.target, include_identical=include_identical
                ),
                phrases=phrase_counts_between(
                    phrases[first], phrases[second], sure_phrases[first], sure_phrases[second]
                ),
                phrases_reversed=phrase_counts_between(
                    phrases[second], phrases[first], sure_phrases[second], sure_phrases[first]
                ),
                observed=observed,
                chance=chance,
                kupper_hafner_chance=kupper_hafner,
            )
        )
    return items


MAJORITY = "majority"


def majority_alignment(alignments: Sequence[Alignment]) -> Alignment:
    """Links more than half of the alignments have; sure where more than half say sure."""
    half = len(alignments) / 2
    every = [link for alignment in alignments for link in alignment.possible]
    sure = [link for alignment in alignments for link in alignment.sure]
    return Alignment(
        sure={link for link in set(sure) if sure.count(link) > half},
        possible={link for link in set(every) if every.count(link) > half},
    )


def aligner_against_annotators(
    pairs: Iterable[AnnotatedPair], *, include_identical: bool = False, links: PhraseLinks = "all"
) -> dict[str, AgreementSummary]:
    """The pre-alignment as candidate against each annotator and the majority as reference.

    Only pre-aligned pairs count; the majority needs three or more annotators of a pair. Ĉ is
    not given (NaN): the chance model edits the pre-alignment itself, so it would be 0 by
    construction, as Cohn et al. note for their Table 5.
    """
    words: dict[str, LinkCounts] = {}
    phrases: dict[str, PhraseCounts] = {}
    counted: dict[str, int] = {}
    for pair in pairs:
        if not pair.pre_aligned:
            continue
        references = dict(pair.alignments)
        if len(references) >= 3:
            references[MAJORITY] = majority_alignment(list(pair.alignments.values()))
        tiers = {
            tier: scored_phrase_pairs(
                pair.pre_alignment,
                pair.source,
                pair.target,
                include_identical=include_identical,
                links=tier,
            )
            for tier in (links, "sure")
        }
        for name, reference in references.items():
            words[name] = words.get(name, LinkCounts()) + link_counts(
                pair.pre_alignment,
                reference,
                pair.source,
                pair.target,
                include_identical=include_identical,
            )
            reference_tiers = [
                scored_phrase_pairs(
                    reference,
                    pair.source,
                    pair.target,
                    include_identical=include_identical,
                    links=tier,
                )
                for tier in (links, "sure")
            ]
            phrases[name] = phrases.get(name, PhraseCounts()) + phrase_counts_between(
                tiers[links], reference_tiers[0], tiers["sure"], reference_tiers[1]
            )
            counted[name] = counted.get(name, 0) + 1
    nan = math.nan
    return {
        name: AgreementSummary(
            words[name], phrases[name], ChanceCorrected(counted[name], nan, nan, nan)
        )
        for name in sorted(words, key=lambda name: (name == MAJORITY, name))
    }
