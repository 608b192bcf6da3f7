"""Counting again only the n-grams a change touches must give a full count."""

from hypothesis import given, settings
from hypothesis import strategies as st

from paracrowd_metrics.ngrams import ngram_counts, recounted

WORDS = ["a", "A", "dog", "Dog", ".", "runs"]


@st.composite
def units_and_changed(draw):
    """Units (words, or characters as a string) and a copy with up to three units replaced."""
    characters = draw(st.booleans())
    if characters:
        units = draw(st.text("aAb.", max_size=12))
    else:
        units = draw(st.lists(st.sampled_from(WORDS), max_size=10))
    changed = list(units)
    if units:
        for _ in range(draw(st.integers(0, 3))):
            index = draw(st.integers(0, len(units) - 1))
            changed[index] = draw(st.sampled_from("aAb." if characters else WORDS))
    return units, "".join(changed) if characters else changed


@settings(max_examples=500, deadline=None)
@given(units_and_changed(), st.integers(1, 6))
def test_recounting_the_changed_ngrams_equals_counting_them_all(pair, max_order):
    units, changed = pair
    counts = ngram_counts(units, max_order)
    kept = [dict(each) for each in counts]

    assert recounted(counts, units, changed, max_order) == ngram_counts(changed, max_order)
    assert counts == kept
