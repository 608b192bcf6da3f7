import math

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from sklearn.metrics import cohen_kappa_score
from statsmodels.stats.inter_rater import fleiss_kappa as statsmodels_fleiss_kappa

from paracrowd_metrics.alignment import (
    Alignment,
    cohen_kappa,
    fleiss_kappa,
    link_cohen_kappa,
    link_fleiss_kappa,
)
from paracrowd_metrics.alignment.kappa import NULL, link_items, link_labels


def test_cohen_kappa_on_a_small_hand_example():
    # P_o = 3/4; P_e = (2/4)(1/4) + (2/4)(3/4) = 1/2; κ = (3/4 − 1/2) / (1 − 1/2) = 1/2
    assert cohen_kappa([1, 1, 0, 0], [1, 0, 0, 0]) == pytest.approx(0.5)


def test_fleiss_kappa_on_a_small_hand_example():
    # Items [3, 0] and [1, 2], three raters: P_i = 1 and 1/3, P̄ = 2/3;
    # p = (4/6, 2/6), P̄_e = 5/9; κ = (2/3 − 5/9) / (4/9) = 1/4
    assert fleiss_kappa([[3, 0], [1, 2]]) == pytest.approx(0.25)


def test_kappa_is_nan_when_everyone_always_picks_the_same_category():
    assert math.isnan(cohen_kappa(["a", "a"], ["a", "a"]))
    assert math.isnan(fleiss_kappa([[3, 0], [3, 0]]))


def test_fleiss_kappa_needs_the_same_number_of_raters_per_item():
    with pytest.raises(ValueError, match="same number of raters"):
        fleiss_kappa([[3, 0], [1, 1]])


@settings(max_examples=200)
@given(st.lists(st.tuples(st.integers(0, 3), st.integers(0, 3)), min_size=1, max_size=40))
def test_cohen_kappa_matches_scikit_learn(labels):
    first, second = zip(*labels, strict=True)
    assume(len(set(first) | set(second)) > 1)

    assert cohen_kappa(first, second) == pytest.approx(cohen_kappa_score(first, second))


@st.composite
def rating_tables(draw):
    """Items × 3 categories; each row splits the same number of raters at two cut points."""
    raters = draw(st.integers(2, 6))
    cuts = st.lists(st.integers(0, raters), min_size=2, max_size=2).map(sorted)
    rows = draw(st.lists(cuts, min_size=1, max_size=30))
    return [[low, high - low, raters - high] for low, high in rows]


@settings(max_examples=200)
@given(rating_tables())
def test_fleiss_kappa_matches_statsmodels(table):
    with np.errstate(invalid="ignore", divide="ignore"):
        expected = statsmodels_fleiss_kappa(np.array(table))
    assume(not math.isnan(expected))

    assert fleiss_kappa(table) == pytest.approx(expected)


def test_link_items_include_null_links_for_unlinked_words():
    first = Alignment(sure={(0, 0)})
    second = Alignment(sure={(0, 0)}, possible={(1, 1)})

    items = link_items([first, second], ("a", "b"), ("x", "y"), include_identical=True)

    # first leaves source 1 and target 1 unlinked; second links everything.
    assert items == [(NULL, 1), (0, 0), (1, NULL), (1, 1)]
    assert link_labels(first, items) == ["sure", "sure", "sure", "none"]
    assert link_labels(second, items) == ["none", "sure", "none", "possible"]


def test_link_items_leave_identical_words_out_by_default():
    alignment = Alignment(sure={(0, 0), (1, 1)})

    assert link_items([alignment], ("the", "cat"), ("the", "dog")) == [(1, 1)]


def test_link_fleiss_kappa_on_a_small_hand_example():
    source, target = ("a", "b"), ("x", "y")
    alignments = {
        "A": Alignment(sure={(0, 0), (1, 1)}),
        "B": Alignment(sure={(0, 0), (1, 1)}),
        "C": Alignment(sure={(0, 0)}, possible={(1, 1)}),
    }

    kappa = link_fleiss_kappa([(source, target, alignments)])

    # Items 0-0 [3 sure] and 1-1 [2 sure, 1 possible] (nobody leaves a word unlinked).
    # P_i = 1 and 1/3, P̄ = 2/3; p = (5/6, 1/6, 0), P̄_e = 26/36; κ = (2/3 − 13/18) / (5/18)
    assert kappa == pytest.approx((2 / 3 - 13 / 18) / (5 / 18))


def test_link_fleiss_kappa_skips_pairs_some_annotator_did_not_align():
    full = {"A": Alignment(sure={(0, 0)}), "B": Alignment(sure={(0, 0)}), "C": Alignment()}
    partial = {"A": Alignment(sure={(0, 1)}), "B": Alignment(sure={(0, 0)})}
    pairs = [(("a",), ("x", "y"), full), (("a",), ("x", "y"), partial)]

    assert link_fleiss_kappa(pairs, ["A", "B", "C"], include_identical=True) == pytest.approx(
        link_fleiss_kappa(pairs[:1], ["A", "B", "C"], include_identical=True)
    )


def test_link_cohen_kappa_pools_items_over_sentence_pairs():
    pairs = [
        (("a", "b"), ("x", "y"), Alignment(sure={(0, 0)}), Alignment(sure={(0, 0)})),
        (("a",), ("x",), Alignment(sure={(0, 0)}), Alignment(possible={(0, 0)})),
    ]

    # Items: 0-0, (1, NULL), (NULL, 1) of the first pair (all agreed), 0-0 of the second
    # (sure against possible): labels s s s s / s s s p; P_o = 3/4, P_e = (4/4)(3/4) = 3/4.
    assert link_cohen_kappa(pairs) == pytest.approx(0.0)
