"""BLEU (Papineni et al., 2002) with sacrebleu's exact semantics, word or character n-grams.

The sufficient statistics of one hypothesis are its length, the length of the closest
reference, and per order the number of clipped matches and of hypothesis n-grams. A corpus
score sums them. ``bleu_from_statistics`` turns them into a score exactly as sacrebleu 2.6.0's
``BLEU.compute_bleu`` does, including smoothing and effective order, so results agree to the
last bit of a float.
"""

import math
from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from dataclasses import dataclass

from paracrowd_metrics.ngrams import NgramCounts, ngram_counts, ngram_totals
from paracrowd_metrics.tokens import default_max_order, sentence_units

# Default smoothing constants, as sacrebleu (after Chen & Cherry, 2014): None means the
# method takes no value.
SMOOTH_DEFAULTS: dict[str, float | None] = {"none": None, "floor": 0.1, "add-k": 1, "exp": None}

# sacrebleu floors log(0) to this so that a zero precision gives a score of 0.
_LOG_OF_ZERO = -9999999999


@dataclass(frozen=True)
class BleuStatistics:
    """What BLEU needs to know about one hypothesis (or, summed, about a corpus)."""

    hypothesis_length: int
    reference_length: int
    matches: tuple[int, ...]
    totals: tuple[int, ...]

    def __add__(self, other: "BleuStatistics") -> "BleuStatistics":
        return BleuStatistics(
            self.hypothesis_length + other.hypothesis_length,
            self.reference_length + other.reference_length,
            tuple(map(int.__add__, self.matches, other.matches)),
            tuple(map(int.__add__, self.totals, other.totals)),
        )


def check_smooth(smooth: str) -> None:
    """Raise ValueError unless ``smooth`` is one of sacrebleu's smoothing methods."""
    if smooth not in SMOOTH_DEFAULTS:
        raise ValueError(f"Unknown smooth {smooth!r}; choose one of {sorted(SMOOTH_DEFAULTS)}")


def bleu_from_statistics(
    matches: Sequence[int],
    totals: Sequence[int],
    hypothesis_length: int,
    reference_length: int,
    *,
    smooth: str = "exp",
    smooth_value: float | None = None,
    effective_order: bool = True,
) -> float:
    """Return BLEU (0-100) from sufficient statistics, as sacrebleu's ``compute_bleu``.

    Smoothing: ``exp`` halves the credit of each successive order without matches (NIST),
    ``floor`` credits ``smooth_value`` matches to such an order, ``add-k`` adds
    ``smooth_value`` to the matches and totals of every order above 1, ``none`` does nothing.
    With ``effective_order`` the geometric mean runs only over the orders the hypothesis
    has n-grams of (what sentence-level BLEU needs); without it a short hypothesis scores 0.
    """
    check_smooth(smooth)
    if smooth_value is None:
        smooth_value = SMOOTH_DEFAULTS[smooth]
    max_order = len(matches)

    brevity_penalty = 1.0
    if hypothesis_length < reference_length:
        brevity_penalty = (
            math.exp(1 - reference_length / hypothesis_length) if hypothesis_length > 0 else 0.0
        )
    if not any(matches):
        return 0.0

    # The log precisions are added up in order, an order with precision 0 adding log(0)
    # floored: on Python 3.11 exactly what sacrebleu's sum() over its list does, bit for bit
    # (3.12's compensated sum() may differ in the last bit).
    log_sum = 0.0
    unmatched_orders_divisor = 1.0
    orders_seen = 0
    for index in range(max_order):
        matched, possible = matches[index], totals[index]
        if smooth == "add-k" and index > 0:
            matched += smooth_value
            possible += smooth_value
        if possible == 0:
            break
        orders_seen += 1
        if matched:
            precision = 100.0 * matched / possible
        elif smooth == "exp":
            unmatched_orders_divisor *= 2
            precision = 100.0 / (unmatched_orders_divisor * possible)
        elif smooth == "floor":
            precision = 100.0 * smooth_value / possible
        else:
            precision = 0.0
        log_sum += math.log(precision) if precision else _LOG_OF_ZERO
    if effective_order:
        return brevity_penalty * math.exp(log_sum / orders_seen)
    # Without effective order, the orders the hypothesis is too short for count as log(0).
    for _ in range(max_order - orders_seen):
        log_sum += _LOG_OF_ZERO
    return brevity_penalty * math.exp(log_sum / max_order)


def closest_reference_length(hypothesis_length: int, reference_lengths: Sequence[int]) -> int:
    """Return the reference length closest to the hypothesis length; ties go to the shorter."""
    return min(reference_lengths, key=lambda length: (abs(hypothesis_length - length), length))


def _closer(length: int, first: int | None, second: int | None) -> int | None:
    """The one of two reference lengths BLEU prefers: nearer, then shorter."""
    if first is None:
        return second
    if second is None:
        return first
    return min(first, second, key=lambda candidate: (abs(length - candidate), candidate))


def closest_sorted_length(lengths: list[int], length: int, *, excluding_own: bool) -> int | None:
    """``closest_reference_length`` for sorted ``lengths``, by bisection; with
    ``excluding_own`` one copy of ``length`` itself (the hypothesis's own) does not count.
    None when there is no other length."""
    low, high = bisect_left(lengths, length), bisect_right(lengths, length)
    if high - low > (1 if excluding_own else 0):
        return length
    below = lengths[low - 1] if low > 0 else None
    above = lengths[high] if high < len(lengths) else None
    return _closer(length, below, above)


def reference_peaks(references: Sequence[NgramCounts]) -> NgramCounts:
    """For every n-gram, the largest count it has in any single reference."""
    peaks = [dict(by_order) for by_order in references[0]]
    for reference in references[1:]:
        for peak, by_order in zip(peaks, reference, strict=True):
            for gram, count in by_order.items():
                if count > peak.get(gram, 0):
                    peak[gram] = count
    return peaks


def clipped_matches(hypothesis: NgramCounts, peaks: NgramCounts) -> list[int]:
    """Per order, how many hypothesis n-grams the references cover (counts clipped)."""
    matches = []
    for by_order, peak in zip(hypothesis, peaks, strict=True):
        matched = 0
        for gram, count in by_order.items():
            available = peak.get(gram, 0)
            matched += count if count < available else available
        matches.append(matched)
    return matches


def sentence_statistics(
    hypothesis: str,
    references: Sequence[str],
    *,
    tokenize: str = "13a",
    max_order: int | None = None,
    lowercase: bool = False,
    keep_spaces: bool = False,
) -> BleuStatistics:
    """Return the BLEU sufficient statistics of one hypothesis against its references."""
    if isinstance(references, str):
        raise TypeError("references must be a sequence of strings, not a string")
    if not references:
        raise ValueError("BLEU needs at least one reference")
    if max_order is None:
        max_order = default_max_order(tokenize)

    def units(sentence: str) -> list[str] | str:
        return sentence_units(
            sentence, tokenize=tokenize, lowercase=lowercase, keep_spaces=keep_spaces
        )

    hypothesis_units = units(hypothesis)
    reference_units = [units(reference) for reference in references]
    peaks = reference_peaks([ngram_counts(each, max_order) for each in reference_units])
    return BleuStatistics(
        hypothesis_length=len(hypothesis_units),
        reference_length=closest_reference_length(
            len(hypothesis_units), [len(each) for each in reference_units]
        ),
        matches=tuple(clipped_matches(ngram_counts(hypothesis_units, max_order), peaks)),
        totals=tuple(ngram_totals(len(hypothesis_units), max_order)),
    )


def sentence_bleu(
    hypothesis: str,
    references: Sequence[str],
    *,
    tokenize: str = "13a",
    max_order: int | None = None,
    smooth: str = "exp",
    smooth_value: float | None = None,
    lowercase: bool = False,
    keep_spaces: bool = False,
    effective_order: bool = True,
) -> float:
    """Return the BLEU score (0-100) of one sentence against one or more references.

    Equal to ``sacrebleu.sentence_bleu`` for word tokenizers and to sacrebleu's
    ``BLEU(tokenize="char", max_ngram_order=18, effective_order=True).sentence_score`` for
    ``tokenize="char"``. ``max_order`` defaults to 4 for words and 18 for characters.
    ``keep_spaces`` (char only) counts each run of whitespace as one space character.
    """
    check_smooth(smooth)
    statistics = sentence_statistics(
        hypothesis,
        references,
        tokenize=tokenize,
        max_order=max_order,
        lowercase=lowercase,
        keep_spaces=keep_spaces,
    )
    return score_statistics(
        statistics, smooth=smooth, smooth_value=smooth_value, effective_order=effective_order
    )


def corpus_bleu(
    hypotheses: Sequence[str],
    references: Sequence[Sequence[str]],
    *,
    tokenize: str = "13a",
    max_order: int | None = None,
    smooth: str = "exp",
    smooth_value: float | None = None,
    lowercase: bool = False,
    keep_spaces: bool = False,
    effective_order: bool = False,
) -> float:
    """Return corpus BLEU (0-100): statistics summed over all hypotheses, then scored.

    ``references[i]`` lists the references of ``hypotheses[i]``; their number may vary.
    Note sacrebleu's ``corpus_bleu`` takes the transpose (one stream per reference); with
    equal reference counts the scores are identical. Effective order is off by default,
    as in sacrebleu.
    """
    check_smooth(smooth)
    if len(hypotheses) != len(references):
        raise ValueError("need one list of references per hypothesis")
    if not hypotheses:
        raise ValueError("corpus BLEU needs at least one hypothesis")
    options = {
        "tokenize": tokenize,
        "max_order": max_order,
        "lowercase": lowercase,
        "keep_spaces": keep_spaces,
    }
    statistics = [
        sentence_statistics(hypothesis, sentence_references, **options)
        for hypothesis, sentence_references in zip(hypotheses, references, strict=True)
    ]
    return score_statistics(
        sum(statistics[1:], statistics[0]),
        smooth=smooth,
        smooth_value=smooth_value,
        effective_order=effective_order,
    )


def score_statistics(
    statistics: BleuStatistics,
    *,
    smooth: str = "exp",
    smooth_value: float | None = None,
    effective_order: bool = True,
) -> float:
    """Return BLEU (0-100) of a ``BleuStatistics``; see ``bleu_from_statistics``."""
    return bleu_from_statistics(
        statistics.matches,
        statistics.totals,
        statistics.hypothesis_length,
        statistics.reference_length,
        smooth=smooth,
        smooth_value=smooth_value,
        effective_order=effective_order,
    )
