import math
import random

import pytest

from paracrowd_metrics.alignment import (
    Alignment,
    AnnotatedPair,
    agreement_table,
    c_hat,
    chance_corrected,
)
from paracrowd_metrics.alignment.agreement import aligner_against_annotators, majority_alignment

VOCABULARY = [
    "a",
    "the",
    "man",
    "woman",
    "dog",
    "is",
    "runs",
    "slices",
    "tomato",
    "on",
    "table",
    "red",
    "big",
    "in",
    "park",
    "with",
]


def synthetic_pairs(count, annotators=("A", "B"), seed=0):
    """Random sentence pairs, a diagonal-ish pre-alignment, and annotators who edit it."""
    rng = random.Random(seed)
    pairs = []
    for number in range(count):
        n, m = rng.randint(3, 9), rng.randint(3, 9)
        source = tuple(rng.choice(VOCABULARY) for _ in range(n))
        target = tuple(rng.choice(VOCABULARY) for _ in range(m))
        pre = {(i, i * m // n) for i in range(n) if rng.random() < 0.7}
        alignments = {}
        for name in annotators:
            edited = set(pre)
            for _ in range(rng.randint(0, 3)):
                edited ^= {(rng.randrange(n), rng.randrange(m))}
            sure = {link for link in edited if rng.random() < 0.8}
            alignments[name] = Alignment(sure=sure, possible=edited)
        pairs.append(AnnotatedPair(str(number), source, target, Alignment(sure=pre), alignments))
    return pairs


def test_c_hat_is_observed_agreement_corrected_for_chance():
    assert chance_corrected(0.8, 0.2) == pytest.approx(0.75)
    assert math.isnan(chance_corrected(1.0, 1.0))


def test_observed_and_kupper_hafner_agreement_on_a_hand_example():
    pair = AnnotatedPair(
        "1",
        ("a", "b", "c"),
        ("x", "y", "z"),
        Alignment(sure={(0, 0), (1, 1), (2, 2)}),
        {
            "A": Alignment(sure={(0, 0), (1, 1), (2, 2)}),
            "B": Alignment(sure={(0, 0), (1, 2), (2, 1)}),
        },
    )

    agreement = agreement_table([pair], samples=20).pairwise["A", "B"].agreement

    # A_atom = {00, 11, 22}, B_atom = {00, 12, 21}: π̂ = |{00}| / min(3, 3) = 1/3.
    assert agreement.observed == pytest.approx(1 / 3)
    # k = (3·4/2)·(3·4/2) = 36 boxes; π₀ = max(3, 3) / 36 = 1/12;
    # Kupper–Hafner Ĉ = (1/3 − 1/12) / (1 − 1/12) = 3/11.
    assert agreement.kupper_hafner_chance == pytest.approx(1 / 12)
    assert agreement.kupper_hafner_c_hat == pytest.approx(3 / 11)


def test_identical_annotators_agree_perfectly_beyond_chance():
    pairs = [
        AnnotatedPair(
            pair.pair_id,
            pair.source,
            pair.target,
            pair.pre_alignment,
            {"A": pair.alignments["A"], "B": pair.alignments["A"]},
        )
        for pair in synthetic_pairs(15)
    ]

    agreement = c_hat(pairs, samples=50)

    assert agreement.chance < 1
    assert agreement.observed == 1.0
    assert agreement.c_hat == 1.0


def test_chance_agreement_is_reproducible_with_a_seed():
    pairs = synthetic_pairs(12)

    first = c_hat(pairs, samples=40, seed=3)

    assert c_hat(pairs, samples=40, seed=3) == first
    assert c_hat(pairs, samples=40, seed=4).chance != first.chance


def test_the_order_of_the_pairs_does_not_change_the_table():
    pairs = synthetic_pairs(12, annotators=("A", "B", "C"))

    forward = agreement_table(pairs, samples=30)
    backward = agreement_table(pairs[::-1], samples=30)

    for key, row in forward.pairwise.items():
        assert row.words == backward.pairwise[key].words
        assert row.agreement.observed == pytest.approx(backward.pairwise[key].agreement.observed)
        assert row.agreement.chance == pytest.approx(backward.pairwise[key].agreement.chance)


def test_c_hat_is_the_corpus_row_of_the_table():
    pairs = synthetic_pairs(10)

    assert c_hat(pairs, samples=25) == agreement_table(pairs, samples=25).corpus.agreement


def test_three_annotators_get_pairwise_rows_their_own_rows_and_fleiss_kappa():
    table = agreement_table(synthetic_pairs(20, annotators=("A", "B", "C")), samples=20)

    assert set(table.pairwise) == {("A", "B"), ("A", "C"), ("B", "C")}
    assert set(table.per_annotator) == set(table.edit_models) == {"A", "B", "C"}
    assert table.link_fleiss_kappa is not None
    assert all(row.link_kappa is not None for row in table.pairwise.values())
    assert table.corpus.agreement.items == sum(
        row.agreement.items for row in table.pairwise.values()
    )


def test_an_annotators_row_counts_that_annotator_as_the_candidate():
    pair = AnnotatedPair(
        "1",
        ("a", "b"),
        ("x", "y"),
        Alignment(sure={(0, 0)}),
        {"A": Alignment(sure={(0, 0), (1, 1)}), "B": Alignment(sure={(0, 0)})},
    )

    table = agreement_table([pair], samples=10)

    # A proposes two sure links, B accepts one: A's precision 1/2, B's precision 1.
    assert table.per_annotator["A"].words.precision == 0.5
    assert table.per_annotator["B"].words.precision == 1.0
    assert table.pairwise["A", "B"].words.precision == 0.5


def test_pairs_are_binned_by_their_shorter_sentence_as_in_the_paper():
    pairs = synthetic_pairs(30)

    table = agreement_table(pairs, samples=10, length_bins=(5, 7))

    expected = {(1, 5): 0, (6, 7): 0, (8, None): 0}
    for pair in pairs:
        shortest = min(len(pair.source), len(pair.target))
        key = (1, 5) if shortest <= 5 else (6, 7) if shortest <= 7 else (8, None)
        expected[key] += 1
    found = {(row.shortest, row.longest): row.pairs for row in table.by_length}
    assert found == {key: count for key, count in expected.items() if count}
    assert sum(row.summary.agreement.items for row in table.by_length) == (
        table.corpus.agreement.items
    )


def test_pairs_without_atomic_phrase_pairs_are_left_out_of_c_hat():
    empty = AnnotatedPair(
        "empty", ("a",), ("x",), Alignment(), {"A": Alignment(), "B": Alignment(sure={(0, 0)})}
    )
    pairs = synthetic_pairs(5)

    assert c_hat([*pairs, empty], samples=20).items == c_hat(pairs, samples=20).items


def test_a_pair_with_an_empty_sentence_is_skipped():
    empty = AnnotatedPair("empty", (), ("x",), Alignment(), {"A": Alignment(), "B": Alignment()})
    pairs = synthetic_pairs(5)

    assert agreement_table([*pairs, empty], samples=10).corpus == (
        agreement_table(pairs, samples=10).corpus
    )


def test_an_annotated_pair_rejects_links_outside_its_sentences():
    with pytest.raises(ValueError, match="outside"):
        AnnotatedPair("1", ("a",), ("x",), Alignment(sure={(0, 1)}), {})


def test_the_majority_keeps_links_most_annotators_made_and_sure_where_most_said_sure():
    alignments = [
        Alignment(sure={(0, 0), (1, 1)}),
        Alignment(sure={(0, 0)}, possible={(1, 1)}),
        Alignment(possible={(0, 0), (2, 2)}),
    ]

    majority = majority_alignment(alignments)

    assert majority.sure == {(0, 0)}
    assert majority.possible == {(0, 0), (1, 1)}


def test_the_pre_aligner_is_scored_against_each_annotator_and_the_majority():
    pair = AnnotatedPair(
        "1",
        ("a", "man", "runs"),
        ("a", "guy", "jogs"),
        Alignment(sure={(1, 1)}),
        {
            "A": Alignment(sure={(1, 1), (2, 2)}),
            "B": Alignment(sure={(1, 1)}),
            "C": Alignment(sure={(2, 2)}),
        },
    )
    unaligned = AnnotatedPair(
        "2", ("x",), ("y",), Alignment(), {"A": Alignment(sure={(0, 0)})}, pre_aligned=False
    )

    rows = aligner_against_annotators([pair, unaligned])

    assert list(rows) == ["A", "B", "C", "majority"]
    assert rows["A"].words.recall == 0.5 and rows["B"].words.f1 == 1.0
    assert rows["C"].words.precision == 0.0
    assert rows["majority"].words.reference_sure == 2
    assert rows["A"].agreement.items == 1  # the pair without a pre-alignment is left out
