"""Brockett's Fleiss' κ over link items: items, categories, item counts, pairwise Cohen's κ."""

import math

import pytest

from paracrowd_metrics.alignment import Alignment, brockett_fleiss_kappa, fleiss_kappa
from paracrowd_metrics.alignment.brockett import (
    NONE,
    NOT_LINKED,
    NULL_TOKEN_ITEM,
    NULL_WORD,
    POSSIBLE,
    SURE,
    UNLINKED,
    brockett_items,
    brockett_labels,
)
from paracrowd_metrics.alignment.kappa import cohen_kappa

TEXT = ("Smith", "visited", "Paris", "yesterday", ".")
HYPOTHESIS = ("Smith", "went", "to", "Paris", ".")
# Links are (text position, hypothesis position).
ANNOTATIONS = {
    "A": Alignment(sure={(0, 0), (1, 1), (2, 3), (4, 4)}),
    "B": Alignment(sure={(0, 0), (2, 3), (4, 4)}, possible={(1, 1), (1, 2)}),
    "C": Alignment(sure={(0, 0), (2, 3), (4, 4)}),
}


def test_items_are_every_linked_word_pair_and_every_hypothesis_word_someone_left_unlinked():
    items = brockett_items(ANNOTATIONS.values(), len(HYPOTHESIS))

    # (hypothesis position, text position); NULL items only for hypothesis words 1 and 2,
    # and the hypothesis's NULL token, which nobody links, first.
    assert items == [
        NULL_TOKEN_ITEM, (0, 0), (1, NULL_WORD), (1, 1), (2, NULL_WORD), (2, 1), (3, 2), (4, 4)
    ]  # fmt: skip


def test_each_annotator_calls_an_item_sure_possible_unlinked_or_not_linked():
    items = brockett_items(ANNOTATIONS.values(), len(HYPOTHESIS))

    assert brockett_labels(ANNOTATIONS["B"], items) == [
        UNLINKED, SURE, NOT_LINKED, POSSIBLE, NOT_LINKED, POSSIBLE, SURE, SURE
    ]  # fmt: skip
    assert brockett_labels(ANNOTATIONS["C"], items) == [
        UNLINKED, SURE, UNLINKED, NOT_LINKED, UNLINKED, NOT_LINKED, SURE, SURE
    ]  # fmt: skip


def test_kappa_is_fleiss_over_sure_possible_none_with_identical_words_kept():
    result = brockett_fleiss_kappa([(TEXT, HYPOTHESIS, ANNOTATIONS)])

    # Columns: sure, possible, none (aligned to NULL is no link).
    table = [
        [0, 0, 3],  # the NULL token
        [3, 0, 0],  # Smith-Smith, identical yet counted
        [1, 1, 1],  # went-visited
        [0, 0, 3],  # went-NULL
        [0, 1, 2],  # to-visited
        [0, 0, 3],  # to-NULL
        [3, 0, 0],  # Paris-Paris
        [3, 0, 0],  # .-.
    ]
    assert result.kappa == pytest.approx(fleiss_kappa(table))
    assert result.items == 8 and result.sentence_pairs == 1


def test_agreement_counts_keep_aligned_to_null_apart_from_not_linked():
    result = brockett_fleiss_kappa([(TEXT, HYPOTHESIS, ANNOTATIONS)])

    # Columns: sure, possible, null, not linked.
    table = [
        [0, 0, 3, 0],  # the NULL token
        [3, 0, 0, 0],  # Smith-Smith
        [1, 1, 0, 1],  # went-visited
        [0, 0, 1, 2],  # went-NULL: all three "none" for κ, but only two agree here
        [0, 1, 0, 2],  # to-visited
        [0, 0, 2, 1],  # to-NULL
        [3, 0, 0, 0],  # Paris-Paris
        [3, 0, 0, 0],  # .-.
    ]
    assert result.agreeing == {3: 4, 2: 3, 1: 1}
    assert (result.all_agree, result.none_agree) == (4, 1)
    assert result.categories == {SURE: 10, POSSIBLE: 2, UNLINKED: 6, NOT_LINKED: 6}
    assert result.kappa_null_apart == pytest.approx(fleiss_kappa(table))


def test_cohens_kappa_per_pair_is_computed_on_the_same_items():
    result = brockett_fleiss_kappa([(TEXT, HYPOTHESIS, ANNOTATIONS)])
    items = brockett_items(ANNOTATIONS.values(), len(HYPOTHESIS))
    a, c = (
        [NONE if label in (UNLINKED, NOT_LINKED) else label for label in labels]
        for labels in (brockett_labels(ANNOTATIONS[name], items) for name in "AC")
    )

    assert set(result.pairwise) == {("A", "B"), ("A", "C"), ("B", "C")}
    assert result.pairwise["A", "C"] == pytest.approx(cohen_kappa(a, c))


def test_pairs_not_aligned_by_every_annotator_are_skipped():
    partial = {"A": ANNOTATIONS["A"], "B": Alignment()}
    full = brockett_fleiss_kappa([(TEXT, HYPOTHESIS, ANNOTATIONS)])
    with_partial = brockett_fleiss_kappa(
        [(TEXT, HYPOTHESIS, ANNOTATIONS), (TEXT, HYPOTHESIS, partial)]
    )

    assert with_partial == full


def test_null_items_can_be_on_the_source_side():
    result = brockett_fleiss_kappa(
        [(("a", "b"), ("x",), {"A": Alignment(sure={(0, 0)}), "B": Alignment(sure={(0, 0)})})],
        null_side="source",
    )

    # Items: a-x (both sure), b-NULL (both unlinked) and the NULL token: perfect agreement.
    assert result.items == 3 and result.kappa == pytest.approx(1.0)


def test_no_shared_pair_gives_no_items_and_no_kappa():
    result = brockett_fleiss_kappa([], ["A", "B"])

    assert result.items == 0 and math.isnan(result.kappa)
