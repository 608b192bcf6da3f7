import numpy as np
import pytest

from paracrowd_metrics.alignment import EditModel, fit_edit_model
from paracrowd_metrics.alignment.chance import (
    changed_cell_fraction,
    draw_alignments,
    draw_flips,
    grid_overlaps,
    sample_generator,
    sampled_phrase_grid,
    sampled_phrase_grids,
    sampled_phrase_sets,
    set_overlaps,
)


def test_each_cell_flips_with_the_edit_probability():
    cells, samples = 50, 20_000

    flips = draw_flips(np.random.default_rng(7), cells, samples, 0.1)

    assert np.all(np.diff(flips) > 0)
    assert flips.min() >= 0 and flips.max() < cells * samples
    per_cell = np.bincount(flips % cells, minlength=cells) / samples
    # Binomial standard error per cell is sqrt(0.1 · 0.9 / 20000) ≈ 0.002.
    assert np.all(np.abs(per_cell - 0.1) < 0.01)
    assert len(flips) / (cells * samples) == pytest.approx(0.1, abs=0.002)


def test_no_cell_flips_at_probability_zero_and_every_cell_at_one():
    rng = np.random.default_rng(0)

    assert len(draw_flips(rng, 12, 5, 0.0)) == 0
    assert list(draw_flips(rng, 3, 2, 1.0)) == [0, 1, 2, 3, 4, 5]


def test_sampled_alignments_are_the_pre_alignment_with_the_flipped_cells_changed():
    pre = {(0, 0), (1, 2)}
    sampled = draw_alignments(np.random.default_rng(3), pre, 2, 3, 0.3, 40)

    for sample in range(40):
        start = sample * 6
        flipped = {
            divmod(int(position) - start, 3)
            for position in sampled.flips
            if start <= position < start + 6
        }
        assert sampled.links(sample) == frozenset(pre) ^ flipped


def test_an_annotator_who_never_edits_always_reproduces_the_pre_alignment():
    pre = {(0, 1), (2, 0)}

    sampled = draw_alignments(np.random.default_rng(0), pre, 3, 2, 0.0, 10)

    assert all(sampled.links(sample) == frozenset(pre) for sample in range(10))


def test_each_pair_and_annotator_gets_its_own_reproducible_random_stream():
    def first_draw(seed, pair_id, annotator):
        return sample_generator(seed, pair_id, annotator).random()

    assert first_draw(0, "p1", "A") == first_draw(0, "p1", "A")
    assert first_draw(0, "p1", "A") != first_draw(0, "p1", "B")
    assert first_draw(0, "p1", "A") != first_draw(0, "p2", "A")
    assert first_draw(0, "p1", "A") != first_draw(1, "p1", "A")


@pytest.mark.parametrize(
    ("source", "target"),
    [
        (
            ["the", "man", "is", "slicing", "a", "red", "tomato", "on", "the", "table"],
            ["a", "man", "slices", "a", "tomato"],
        ),
        (["a", "dog", "runs"], ["the", "dog", "is", "running", "in", "the", "park"]),
    ],
)
@pytest.mark.parametrize("probability", [0.02, 0.1, 0.4])
@pytest.mark.parametrize("include_identical", [True, False])
def test_the_fast_route_counts_the_same_sampled_phrase_pairs_as_the_plain_route(
    source, target, probability, include_identical
):
    pre = {(0, 0), (1, 1), (len(source) - 1, len(target) - 1)}
    first = draw_alignments(
        np.random.default_rng(1), pre, len(source), len(target), probability, 60
    )
    second = draw_alignments(np.random.default_rng(2), pre, len(source), len(target), 0.05, 60)
    options = {"include_identical": include_identical}

    fast = grid_overlaps(
        sampled_phrase_grid(first, source, target, **options),
        sampled_phrase_grid(second, source, target, **options),
    )
    plain = set_overlaps(
        sampled_phrase_sets(first, source, target, **options),
        sampled_phrase_sets(second, source, target, **options),
    )

    for counts in ("first", "second", "shared"):
        assert list(getattr(fast, counts)) == list(getattr(plain, counts))
    assert fast.mean_ratio() == plain.mean_ratio()


def test_the_changed_fraction_counts_added_and_removed_cells():
    # Removed 1-1, added 0-1: two of six cells changed.
    assert changed_cell_fraction({(0, 0), (1, 1)}, {(0, 0), (0, 1)}, 2, 3) == pytest.approx(1 / 3)


def test_the_edit_model_is_a_least_squares_line_in_both_lengths():
    observations = [(n, m, 0.01 + 0.002 * n - 0.001 * m) for n in (5, 9, 14) for m in (4, 11)]

    model = fit_edit_model(observations)

    assert model.intercept == pytest.approx(0.01)
    assert model.per_source_word == pytest.approx(0.002)
    assert model.per_target_word == pytest.approx(-0.001)
    assert model.probability(10, 10) == pytest.approx(0.02)


def test_edit_probabilities_stay_between_zero_and_one():
    model = EditModel(intercept=0.5, per_source_word=-0.1, per_target_word=0.0)

    assert model.probability(20, 3) == 0.0
    assert EditModel(2.0, 0.0, 0.0).probability(3, 3) == 1.0


def test_one_observation_fits_a_model_that_reproduces_it():
    assert fit_edit_model([(4, 6, 0.125)]).probability(4, 6) == pytest.approx(0.125)


def test_draws_extracted_in_one_batch_match_draws_extracted_alone():
    source, target = ["a", "man", "cuts", "a", "tomato"], ["someone", "slices", "a", "tomato"]
    draws = [
        draw_alignments(np.random.default_rng(seed), {(1, 0), (4, 3)}, 5, 4, 0.1, 30)
        for seed in (1, 2, 3)
    ]

    together = sampled_phrase_grids(draws, source, target)

    for draw, grid in zip(draws, together, strict=True):
        alone = sampled_phrase_grid(draw, source, target)
        assert list(grid.counts()) == list(alone.counts())
        assert list(grid.shared_counts(together[0])) == list(
            alone.shared_counts(sampled_phrase_grid(draws[0], source, target))
        )
