"""The weighted consensus alignment: majority with equal weights, the reliable annotators
settling disagreements, a confidence for every link, sure only where most said sure."""

import pytest

from paracrowd_metrics.alignment import (
    Alignment,
    annotator_weights,
    consensus_alignment,
    parse_pharaoh,
)

A = parse_pharaoh("0-0 1-1 2-2")
B = parse_pharaoh("0-0 1-1 2p3")
C = parse_pharaoh("0-0 1p2 2-3")


def test_equal_weights_keep_the_links_most_annotators_marked():
    consensus = consensus_alignment({"A": A, "B": B, "C": C})
    assert consensus.alignment.possible == {(0, 0), (1, 1), (2, 3)}
    # (2, 3) was marked by two of three, only one of them sure: possible in the consensus.
    assert consensus.alignment.sure == {(0, 0), (1, 1)}
    assert consensus.confidence((0, 0)) == 1.0
    assert consensus.confidence((1, 1)) == pytest.approx(2 / 3)
    assert consensus.confidence((2, 2)) == pytest.approx(1 / 3)
    assert consensus.confidence((5, 5)) == 0.0


def test_every_link_anyone_marked_is_listed_most_confident_first():
    consensus = consensus_alignment({"A": A, "B": B, "C": C})
    assert [each.link for each in consensus.links] == [(0, 0), (1, 1), (2, 3), (1, 2), (2, 2)]
    left_out = [each for each in consensus.links if not each.included]
    assert {each.link for each in left_out} == {(1, 2), (2, 2)}
    assert all(not each.sure for each in left_out)


def test_a_reliable_annotator_outweighs_two_unreliable_ones():
    consensus = consensus_alignment({"A": A, "B": B, "C": C}, {"A": 0.9, "B": 0.2, "C": 0.2})
    assert consensus.alignment.possible == {(0, 0), (1, 1), (2, 2)}
    assert consensus.confidence((2, 2)) == pytest.approx(0.9 / 1.3)
    assert consensus.confidence((2, 3)) == pytest.approx(0.4 / 1.3)


def test_two_equal_annotators_who_disagree_leave_the_link_out():
    consensus = consensus_alignment({"A": parse_pharaoh("0-0"), "B": parse_pharaoh("0-1")})
    assert consensus.alignment == Alignment()
    assert [each.confidence for each in consensus.links] == [0.5, 0.5]


def test_one_annotator_is_their_own_consensus_with_full_confidence():
    consensus = consensus_alignment({"A": B}, {"A": 0.3})
    assert consensus.alignment == B
    assert {each.confidence for each in consensus.links} == {1.0}


def test_a_missing_or_zero_weight_is_refused():
    with pytest.raises(ValueError, match="'B' needs a weight above 0"):
        consensus_alignment({"A": A, "B": B}, {"A": 1.0})
    with pytest.raises(ValueError, match="'A' needs a weight above 0"):
        consensus_alignment({"A": A}, {"A": 0.0})


def test_weights_are_the_mean_of_what_is_known_and_a_stranger_gets_the_typical_one():
    weights = annotator_weights(
        {"careful": [0.9, 0.8], "careless": [0.0, None], "new": [None, None]}
    )
    assert weights["careful"] == pytest.approx(0.85)
    assert weights["careless"] == 0.05  # lowered, never silenced
    assert weights["new"] == pytest.approx((0.85 + 0.05) / 2)
    assert annotator_weights({"x": [None], "y": []}) == {"x": 1.0, "y": 1.0}
