"""PINC: the share of a candidate's n-grams that its source does not have (Chen & Dolan)."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sacrebleu.tokenizers.tokenizer_13a import Tokenizer13a

from paracrowd_metrics import pinc
from paracrowd_metrics.pinc import pinc_from_overlap_table, pinc_from_overlaps
from test_bleu import sentences

TOLERANCE = 1e-9


def test_identical_sentences_score_0():
    assert pinc("a man is playing a guitar", "a man is playing a guitar") == 0.0


def test_sentences_without_a_shared_word_score_100():
    assert pinc("a man is playing a guitar", "two dogs run outside") == 100.0


def test_it_averages_the_novelty_of_each_order():
    # Candidate n-grams, and which of them the source has:
    #   1: a man plays the guitar         -> a, man, guitar shared: 1 - 3/5 = 0.4
    #   2: a man | man plays | plays the | the guitar -> "a man":  1 - 1/4 = 0.75
    #   3 and 4: none shared                                     -> 1 and 1
    expected = 100 * (0.4 + 0.75 + 1 + 1) / 4
    score = pinc("a man is playing a guitar", "a man plays the guitar")
    assert score == pytest.approx(expected, abs=TOLERANCE)


def test_it_ignores_case():
    assert pinc("A MAN Is Playing", "a man is playing") == 0.0


def test_it_counts_distinct_ngrams_not_occurrences():
    # Candidate sets: {a}, {a a}, {a a a}; the source has only {a}. No 4-grams: N' = 3.
    expected = 100 * (0 + 1 + 1) / 3
    assert pinc("a", "a a a") == pytest.approx(expected, abs=TOLERANCE)


def test_it_averages_only_over_orders_the_candidate_has():
    # "big dog": unigrams {big, dog}, one shared -> 0.5; bigram {big dog} new -> 1.
    assert pinc("dog", "big dog") == pytest.approx(100 * (0.5 + 1) / 2, abs=TOLERANCE)
    # "dog" has only a unigram, and the source has it.
    assert pinc("the dog", "dog") == 0.0


def test_an_empty_candidate_scores_0_and_an_empty_source_100():
    assert pinc("a man is playing", "") == 0.0
    assert pinc("a man is playing", "   ") == 0.0
    assert pinc("", "a man is playing") == 100.0


def test_it_is_not_symmetric():
    # Source "a dog", candidate "a big dog": {a, big, dog} 1/3 new; bigrams both new;
    # trigram new. The other way round every n-gram of "a dog" but the bigram is shared.
    assert pinc("a dog", "a big dog") == pytest.approx(100 * (1 / 3 + 1 + 1) / 3, abs=TOLERANCE)
    assert pinc("a big dog", "a dog") == pytest.approx(100 * (0 + 1) / 2, abs=TOLERANCE)


def test_it_splits_punctuation_like_bleu():
    # 13a makes "guitar." two tokens, so "guitar" is shared and so is "a guitar".
    score = pinc("a guitar.", "a guitar")
    assert score == 0.0


def test_it_compares_characters_for_unspaced_languages():
    # Characters of "abd": {a, b, d}, two shared -> 1/3 new; bigrams {ab, bd}, one shared.
    expected = 100 * (1 / 3 + 1 / 2) / 2
    assert pinc("abc", "abd", tokenize="char", max_order=2) == pytest.approx(expected)
    assert pinc("猫在玩", "猫在玩", tokenize="char") == 0.0


def reference_pinc(source, candidate, max_order=4):
    """PINC written out plainly from its definition, for comparison."""
    tokenizer = Tokenizer13a()

    def grams(sentence, n):
        tokens = tokenizer(sentence.lower().rstrip()).split()
        return {tuple(tokens[i : i + n]) for i in range(len(tokens) - n + 1)}

    novelties = [
        1 - len(grams(source, n) & grams(candidate, n)) / len(grams(candidate, n))
        for n in range(1, max_order + 1)
        if grams(candidate, n)
    ]
    return 100 * sum(novelties) / len(novelties) if novelties else 0.0


@settings(max_examples=200, deadline=None)
@given(source=sentences, candidate=sentences, max_order=st.integers(1, 6))
def test_it_follows_the_definition_for_any_text(source, candidate, max_order):
    score = pinc(source, candidate, max_order=max_order)
    assert 0.0 <= score <= 100.0
    assert score == pytest.approx(reference_pinc(source, candidate, max_order), abs=TOLERANCE)
    assert pinc(candidate, candidate, max_order=max_order) == 0.0


@st.composite
def overlap_tables(draw):
    """Candidates' distinct n-gram counts per order, and overlaps each no larger than
    ``sources`` times the count (every source has each n-gram at most once)."""
    orders = draw(st.integers(1, 18))
    sources = draw(st.integers(1, 700))
    rows = draw(st.lists(st.lists(st.integers(0, 40), min_size=orders, max_size=orders)))
    overlaps = [[draw(st.integers(0, size * sources)) for size in sizes] for sizes in rows]
    return overlaps, rows, sources


@settings(max_examples=300)
@given(table=overlap_tables())
def test_the_table_form_gives_each_candidate_the_scalar_form_to_the_last_bit(table):
    overlaps, sizes, sources = table
    columns = len(sizes[0]) if sizes else 1
    scores = pinc_from_overlap_table(
        np.array(overlaps, dtype=np.int64).reshape(-1, columns),
        np.array(sizes, dtype=np.int64).reshape(-1, columns),
        sources,
    ).tolist()
    assert scores == [
        pinc_from_overlaps(row, row_sizes, sources)
        for row, row_sizes in zip(overlaps, sizes, strict=True)
    ]
