import pytest
from hypothesis import assume, given, settings
from nltk.translate.metrics import alignment_error_rate

from paracrowd_metrics.alignment import (
    AlignedPair,
    Alignment,
    aer,
    corpus_link_counts,
    link_counts,
    precision_recall,
)
from test_alignment_strategies import alignments

# Candidate A: sure {00, 11}, possible-only {22}.
# Reference B: sure {00, 23}, possible-only {11, 22}.
CANDIDATE = Alignment(sure={(0, 0), (1, 1)}, possible={(2, 2)})
REFERENCE = Alignment(sure={(0, 0), (2, 3)}, possible={(1, 1), (2, 2)})


def test_precision_counts_candidate_sure_links_found_among_reference_possible_links():
    # |A_S ∩ B_P| / |A_S| = |{00, 11}| / |{00, 11}| = 2/2
    assert precision_recall(CANDIDATE, REFERENCE, include_identical=True).precision == 1.0


def test_recall_counts_reference_sure_links_found_among_candidate_possible_links():
    # |A_P ∩ B_S| / |B_S| = |{00}| / |{00, 23}| = 1/2
    assert precision_recall(CANDIDATE, REFERENCE, include_identical=True).recall == 0.5


def test_f1_is_the_harmonic_mean():
    # 2 · 1 · 0.5 / (1 + 0.5) = 2/3
    scores = precision_recall(CANDIDATE, REFERENCE, include_identical=True)
    assert scores.f1 == pytest.approx(2 / 3)


def test_aer_uses_every_candidate_link():
    # A = {00, 11, 22}, S = {00, 23}, P = {00, 23, 11, 22}
    # 1 − (|A∩S| + |A∩P|) / (|A| + |S|) = 1 − (1 + 3) / (3 + 2) = 0.2
    assert aer(CANDIDATE, REFERENCE, include_identical=True) == pytest.approx(0.2)


def test_identical_word_pairs_are_left_out_by_default():
    source = ("the", "cat", "sat")
    target = ("the", "dog", "sat", "down")
    candidate = Alignment(sure={(0, 0), (1, 1), (2, 2)})
    reference = Alignment(sure={(0, 0), (1, 1)}, possible={(2, 3)})

    # Without the-the and sat-sat: A_S = {11}, B_S = {11}, so P = R = 1.
    assert precision_recall(candidate, reference, source, target).precision == 1.0
    # With them: A_S = {00, 11, 22}, B_P = {00, 11, 23}: P = 2/3.
    included = precision_recall(candidate, reference, source, target, include_identical=True)
    assert included.precision == pytest.approx(2 / 3)
    assert included.recall == 1.0


def test_leaving_identical_words_out_needs_the_tokens():
    with pytest.raises(ValueError, match="include_identical=True"):
        precision_recall(CANDIDATE, REFERENCE)


def test_two_empty_alignments_agree_perfectly():
    counts = link_counts(Alignment(), Alignment(), include_identical=True)

    assert (counts.precision, counts.recall, counts.f1, counts.aer) == (1.0, 1.0, 1.0, 0.0)


def test_an_empty_candidate_finds_nothing_but_claims_nothing_wrong():
    counts = link_counts(Alignment(), REFERENCE, include_identical=True)

    assert (counts.precision, counts.recall, counts.f1, counts.aer) == (1.0, 0.0, 0.0, 1.0)


def test_a_reference_without_sure_links_leaves_nothing_to_recall():
    counts = link_counts(CANDIDATE, Alignment(possible={(0, 0)}), include_identical=True)

    # P = |{00}| / 2, R = 1 (no sure link), AER = 1 − (0 + 1) / (3 + 0)
    assert counts.precision == 0.5
    assert counts.recall == 1.0
    assert counts.aer == pytest.approx(2 / 3)


def test_corpus_scores_add_counts_before_dividing():
    source, target = ("a", "b", "c"), ("x", "y", "z")
    references = [
        AlignedPair("1", source, target, Alignment(sure={(0, 0)})),
        AlignedPair("2", source, target, Alignment(sure={(0, 0)})),
    ]
    candidates = [Alignment(sure={(0, 0)}), Alignment(sure={(0, 0), (1, 2), (2, 1)})]

    counts = corpus_link_counts(candidates, references)

    # Micro: (1 + 1) / (1 + 3) = 0.5, not the mean of 1 and 1/3.
    assert counts.precision == 0.5
    assert counts.recall == 1.0


@settings(max_examples=200)
@given(alignments(), alignments())
def test_aer_matches_nltk(hypothesis_case, reference_case):
    hypothesis = hypothesis_case[0].sure
    reference = reference_case[0]
    assume(hypothesis or reference.sure)

    ours = aer(Alignment(sure=hypothesis), reference, include_identical=True)

    expected = alignment_error_rate(set(reference.sure), set(hypothesis), set(reference.possible))
    assert ours == pytest.approx(expected)


@settings(max_examples=100)
@given(alignments())
def test_an_alignment_scores_perfectly_against_itself(case):
    alignment, _, _ = case

    counts = link_counts(alignment, alignment, include_identical=True)

    assert (counts.precision, counts.recall, counts.aer) == (1.0, 1.0, 0.0)


def test_precision_and_recall_split_by_sure_and_possible_as_in_cohn_et_al():
    # Candidate: sure 0-0 and 1-1, possible 2-2. Reference: sure 0-0, possible 1-1 and 3-3.
    candidate = Alignment(sure={(0, 0), (1, 1)}, possible={(2, 2)})
    reference = Alignment(sure={(0, 0)}, possible={(1, 1), (3, 3)})

    counts = link_counts(candidate, reference, include_identical=True)

    assert counts.precision == 1.0  # both sure links are among the reference's links
    assert counts.precision_sure == 0.5  # only 0-0 is among its sure links
    assert counts.recall == 1.0  # the one reference sure link is found
    assert counts.recall_possible == pytest.approx(2 / 3)  # 0-0, 1-1 of 0-0, 1-1, 3-3
    assert counts.f1 == 1.0  # of precision (poss) and recall (sure)
