from itertools import product

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from paracrowd_metrics.alignment import (
    Alignment,
    PhrasePair,
    extract_phrase_pairs,
    phrase_counts,
    phrase_precision_recall,
)
from paracrowd_metrics.alignment.phrase_grids import atomic_phrase_grid, row_masks
from test_alignment_strategies import alignments


def boxes(*spans):
    """Phrase pairs from inclusive (i1, i2, j1, j2) boxes, for readable expectations."""
    return {PhrasePair(i1, i2 + 1, j1, j2 + 1) for i1, i2, j1, j2 in spans}


def brute_force_phrase_pairs(links, n, m):
    """Every box checked against the definition, independently of the library's shortcuts."""
    rows = {i for i, _ in links}
    columns = {j for _, j in links}

    def valid(i1, i2, j1, j2):
        inside = any(i1 <= i <= i2 and j1 <= j <= j2 for i, j in links)
        leaks = any((i1 <= i <= i2) != (j1 <= j <= j2) for i, j in links)
        boundaries = {i1, i2} <= rows and {j1, j2} <= columns
        return inside and not leaks and boundaries

    every, atomic = set(), set()
    for i1, j1 in product(range(n), range(m)):
        for i2, j2 in product(range(i1, n), range(j1, m)):
            if not valid(i1, i2, j1, j2):
                continue
            composite = any(
                (valid(i1, k, j1, l) and valid(k + 1, i2, l + 1, j2))
                or (valid(i1, k, l + 1, j2) and valid(k + 1, i2, j1, l))
                for k in range(i1, i2)
                for l in range(j1, j2)  # noqa: E741 - the usual name for a target split
            )
            every |= boxes((i1, i2, j1, j2))
            if not composite:
                atomic |= boxes((i1, i2, j1, j2))
    return every, atomic


def test_a_monotone_alignment_has_single_links_as_its_atomic_pairs():
    pairs = extract_phrase_pairs({(0, 0), (1, 1), (2, 2)})

    # Every contiguous span is a phrase pair; only the three 1×1 ones cannot be split.
    assert pairs.all == boxes(
        (0, 0, 0, 0), (1, 1, 1, 1), (2, 2, 2, 2), (0, 1, 0, 1), (1, 2, 1, 2), (0, 2, 0, 2)
    )
    assert pairs.atomic == boxes((0, 0, 0, 0), (1, 1, 1, 1), (2, 2, 2, 2))


def test_a_crossed_pair_splits_into_its_two_links():
    pairs = extract_phrase_pairs({(0, 1), (1, 0)})

    assert pairs.all == boxes((0, 0, 1, 1), (1, 1, 0, 0), (0, 1, 0, 1))
    assert pairs.atomic == boxes((0, 0, 1, 1), (1, 1, 0, 0))


def test_a_2413_reordering_is_atomic_as_a_whole():
    # Source words 0..3 go to target positions 1, 3, 0, 2: no binary split exists.
    pairs = extract_phrase_pairs({(0, 1), (1, 3), (2, 0), (3, 2)})

    assert boxes((0, 3, 0, 3)) <= pairs.atomic
    assert len(pairs.atomic) == 5


def test_a_word_linked_to_two_words_makes_one_block():
    pairs = extract_phrase_pairs({(0, 0), (1, 0)})

    # Neither source word alone is consistent: column 0 links outside it.
    assert pairs.all == pairs.atomic == boxes((0, 1, 0, 0))


def test_no_phrase_pair_ends_on_an_unaligned_word():
    # Source word 1 is unaligned: a x b / A B.
    pairs = extract_phrase_pairs({(0, 0), (2, 1)})

    assert all(1 not in (pair.source_start, pair.source_end - 1) for pair in pairs.all)
    # So the whole box cannot be split into two valid halves, and is atomic.
    assert pairs.atomic == boxes((0, 0, 0, 0), (2, 2, 1, 1), (0, 2, 0, 1))


def test_no_links_means_no_phrase_pairs():
    assert extract_phrase_pairs(set()).all == frozenset()


@settings(max_examples=200, deadline=None)
@given(alignments(max_source=6, max_target=6))
def test_extraction_matches_a_brute_force_enumeration(case):
    alignment, n, m = case

    pairs = extract_phrase_pairs(alignment.possible)

    assert (pairs.all, pairs.atomic) == brute_force_phrase_pairs(alignment.possible, n, m)


@st.composite
def alignment_batches(draw):
    n = draw(st.integers(1, 9))
    m = draw(st.sampled_from([1, 2, 5, 9, 63, 64, 65, 130]))
    density = draw(st.sampled_from([0.02, 0.1, 0.3, 0.7]))
    seed = draw(st.integers(0, 2**32 - 1))
    grids = np.random.default_rng(seed).random((6, n, m)) < density
    return [{(int(i), int(j)) for i, j in np.argwhere(grid)} for grid in grids], n, m


@settings(max_examples=150, deadline=None)
@given(alignment_batches())
def test_the_batched_extraction_finds_the_same_atomic_pairs(case):
    batch, n, m = case
    rows = np.stack([row_masks(sorted(links), n, m) for links in batch], axis=-1)

    grid = atomic_phrase_grid(rows, m)

    for b, links in enumerate(batch):
        assert grid.phrase_pairs(b) == extract_phrase_pairs(links).atomic


# Candidate A: 0-0 1-1 2-2 (atomic: three singles).
# Reference B: 0-0 and a block 1-1 1-2 2-1 2-2 (atomic: 0-0 and the 2×2 block).
PHRASE_CANDIDATE = Alignment(sure={(0, 0), (1, 1), (2, 2)})
PHRASE_REFERENCE = Alignment(sure={(0, 0)}, possible={(1, 1), (1, 2), (2, 1), (2, 2)})


def test_phrase_precision_compares_candidate_atomic_pairs_with_all_reference_pairs():
    scores = phrase_precision_recall(PHRASE_CANDIDATE, PHRASE_REFERENCE, include_identical=True)

    # A_atom = {00, 11, 22}; B_all = {00, 1-2×1-2, 0-2×0-2}: only 00 is shared → 1/3.
    assert scores.precision == pytest.approx(1 / 3)
    # B_atom = {00, 1-2×1-2}; A_all holds both (1-2×1-2 is a composite pair of A) → 2/2.
    assert scores.recall == 1.0
    assert scores.f1 == pytest.approx(0.5)


def test_phrase_pairs_come_from_possible_links_too_unless_asked_for_sure_only():
    sure_only = phrase_precision_recall(
        PHRASE_CANDIDATE, PHRASE_REFERENCE, include_identical=True, links="sure"
    )

    # With sure links only, B is just 0-0: B_atom = {00}, found in A_all → recall 1;
    # A_atom = {00, 11, 22} against B_all = {00} → precision 1/3.
    assert sure_only.precision == pytest.approx(1 / 3)
    assert sure_only.recall == 1.0


def test_identical_phrase_pairs_are_left_out_by_default():
    source, target = ("a", "big", "dog"), ("a", "large", "dog")

    scores = phrase_precision_recall(PHRASE_CANDIDATE, PHRASE_CANDIDATE, source, target)

    # a-a and dog-dog are identical; big-large is the only pair left on each side.
    assert scores.precision == scores.recall == 1.0
    differing = Alignment(sure={(0, 0), (2, 2), (1, 2)})
    # Its atomic pairs: a-a (identical, left out), the block big dog / dog, and the whole box
    # (atomic: target word 1 is unaligned). Only the whole box is among the other's pairs.
    assert phrase_precision_recall(differing, PHRASE_CANDIDATE, source, target).precision == 0.5


def test_phrase_precision_and_recall_split_by_sure_and_possible_phrase_pairs():
    # The candidate marks a two-word block possible; the reference has the same words sure.
    candidate = Alignment(sure={(0, 0)}, possible={(1, 1), (1, 2), (2, 1), (2, 2)})
    reference = Alignment(sure={(0, 0), (1, 1), (2, 2)})

    counts = phrase_counts(candidate, reference, include_identical=True)

    # Every link: the candidate's atomic pairs are 0-0 and the block; the reference holds 0-0
    # and, as a composite, the block too. Sure links: the candidate's only pair is 0-0.
    assert counts.precision_possible == 1.0 and counts.precision_sure == 1.0
    # Reference atomic pairs 0-0, 1-1, 2-2: every-link candidate pairs hold 0-0 only, as do
    # its sure pairs.
    assert counts.recall_possible == pytest.approx(1 / 3)
    assert counts.recall_sure == pytest.approx(1 / 3)
    assert counts.tiered_f1 == pytest.approx(2 * 1 * (1 / 3) / (1 + 1 / 3))
