"""N-gram counts of a tokenised sentence, one dictionary per order.

Keys are compact but unambiguous within one order: a unigram is the token itself, a longer
word n-gram is a tuple of tokens, and a character n-gram is a substring (every unit is one
character, so the substring determines the characters). Only sentences tokenised the same
way are ever compared, so the keys of hypothesis and references always match.
"""

from collections import Counter

NgramCounts = list[dict]
"""``counts[n - 1]`` maps each n-gram of order n to how often it occurs."""


def _word_ngrams(tokens: list[str], order: int):
    return tokens if order == 1 else zip(*[tokens[shift:] for shift in range(order)], strict=False)


def ngram_counts(units: list[str] | str, max_order: int) -> NgramCounts:
    """Count the n-grams of orders 1..max_order in ``units`` (tokens, or a string of characters)."""
    length = len(units)
    counts = []
    for order in range(1, max_order + 1):
        if isinstance(units, str):
            grams = [units[start : start + order] for start in range(length - order + 1)]
        else:
            grams = _word_ngrams(units, order)
        # Most n-grams occur once: build that dictionary in C, and count only when the
        # sentence turns out to repeat one.
        once = dict.fromkeys(grams, 1)
        if len(once) < length - order + 1:
            once = Counter(grams if isinstance(units, str) else _word_ngrams(units, order))
        counts.append(once)
    return counts


def ngram_totals(length: int, max_order: int) -> list[int]:
    """How many n-grams of each order a sentence of ``length`` units has."""
    return [max(length - order + 1, 0) for order in range(1, max_order + 1)]
