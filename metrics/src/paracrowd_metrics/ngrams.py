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


def recounted(
    counts: NgramCounts, units: list[str] | str, changed_units: list[str] | str, max_order: int
) -> NgramCounts:
    """``ngram_counts(changed_units, max_order)``, from the ``counts`` of ``units`` (as many
    units, some changed, e.g. a sentence as typed and lowercased). When one unit changed,
    as when only a sentence's capital first letter is lowered, only the n-grams covering it
    are counted again. ``counts`` is not modified."""
    length = len(units)
    changed = [index for index in range(length) if units[index] != changed_units[index]]
    if len(changed) != 1 or len(counts) < max_order:
        return ngram_counts(changed_units, max_order)
    (index,) = changed
    characters = isinstance(units, str)
    result = []
    for order in range(1, max_order + 1):
        counted = dict(counts[order - 1])
        # The n-grams of this order that cover the changed unit start here.
        starts = range(max(index - order + 1, 0), min(index, length - order) + 1)
        for start in starts:
            if order == 1:
                old, new = units[start], changed_units[start]
            elif characters:
                old, new = units[start : start + order], changed_units[start : start + order]
            else:
                old = tuple(units[start : start + order])
                new = tuple(changed_units[start : start + order])
            if counted[old] == 1:
                del counted[old]
            else:
                counted[old] -= 1
            counted[new] = counted.get(new, 0) + 1
        result.append(counted)
    return result


def ngram_totals(length: int, max_order: int) -> list[int]:
    """How many n-grams of each order a sentence of ``length`` units has."""
    return [max(length - order + 1, 0) for order in range(1, max_order + 1)]
