"""N-gram counts of a tokenised sentence, one dictionary per order.

Keys are compact but unambiguous within one order: a unigram is the token itself, a longer
word n-gram is a tuple of tokens, and a character n-gram is a substring (every unit is one
character, so the substring determines the characters). Only sentences tokenised the same
way are ever compared, so the keys of hypothesis and references always match.
"""

from collections import Counter

NgramCounts = list[dict]
"""``counts[n - 1]`` maps each n-gram of order n to how often it occurs."""


def ngram_counts(units: list[str] | str, max_order: int) -> NgramCounts:
    """Count the n-grams of orders 1..max_order in ``units`` (tokens, or a string of characters)."""
    length = len(units)
    characters = isinstance(units, str)
    # Word n-grams of order n zip the first n of these shifted copies of the tokens.
    shifted = [] if characters else [units[shift:] for shift in range(max_order)]
    counts = []
    grams = list(units) if characters else units
    for order in range(1, max_order + 1):
        if characters:
            # Each order's substrings are the previous order's, one character longer:
            # concatenating in C is faster than slicing each anew.
            if order > 1:
                grams = list(map(str.__add__, grams, units[order - 1 :]))
        else:
            grams = units if order == 1 else zip(*shifted[:order], strict=False)
        # Most n-grams occur once: build that dictionary in C, and count only when the
        # sentence turns out to repeat one (a zip is spent by then, so zip again).
        once = dict.fromkeys(grams, 1)
        if len(once) < length - order + 1:
            if isinstance(grams, zip):
                grams = zip(*shifted[:order], strict=False)
            once = Counter(grams)
        counts.append(once)
    return counts


def ngram_totals(length: int, max_order: int) -> list[int]:
    """How many n-grams of each order a sentence of ``length`` units has."""
    return [max(length - order + 1, 0) for order in range(1, max_order + 1)]
