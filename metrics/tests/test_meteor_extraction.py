"""Paraphrase tables learned from clusters: the pivot arithmetic, the filters, the merge."""

import pytest

from paracrowd_metrics.meteor.extraction import (
    AnnotatedPair,
    ExtractionSettings,
    PhrasePairCounts,
    cluster_pairs,
    common_words,
    extract_paraphrases,
    monolingual_table,
    pivot_table,
    usable,
)

NOTHING_COMMON = frozenset()
KEEP_ALL = ExtractionSettings(min_count=1, threshold=0.0)


def counted(pairs):
    counts = PhrasePairCounts(4)
    for (first, second), count in pairs.items():
        counts.counts[tuple(first.split()), tuple(second.split())] = count
    return counts


FRENCH = counted(
    {("guy", "mec"): 3, ("guy", "homme"): 1, ("man", "homme"): 3, ("man", "mec"): 1},
)
FRENCH.counts[("fellow",), ("mec",)] = 2


def test_pivoting_sums_over_foreign_phrases():
    table = pivot_table(FRENCH, NOTHING_COMMON, NOTHING_COMMON, KEEP_ALL)
    # P(mec|guy) = 3/4, P(homme|guy) = 1/4; P(man|mec) = 1/6, P(man|homme) = 3/4.
    assert table.paraphrases("guy")[("man",)] == pytest.approx(0.75 / 6 + 0.25 * 0.75)
    assert table.paraphrases("guy")[("fellow",)] == pytest.approx(0.75 * 2 / 6)
    assert ("guy",) not in table.paraphrases("guy")


def test_pivot_instances_below_the_minimum_probability_are_dropped():
    settings = ExtractionSettings(min_count=1, min_instance_probability=0.2)
    row = pivot_table(FRENCH, NOTHING_COMMON, NOTHING_COMMON, settings).paraphrases("guy")
    # Both instances of guy → man (0.125 through mec, 0.1875 through homme) fall below 0.2.
    assert set(row) == {("fellow",)}


def test_phrases_of_common_words_only_are_dropped_on_either_side():
    table = pivot_table(FRENCH, frozenset({"man"}), NOTHING_COMMON, KEEP_ALL)
    assert ("man",) not in table.paraphrases("guy")
    assert table.paraphrases("man") == {}
    table = pivot_table(FRENCH, NOTHING_COMMON, frozenset({"homme"}), KEEP_ALL)
    assert table.paraphrases("guy")[("man",)] == pytest.approx(0.75 / 6)


def test_phrases_with_punctuation_are_dropped():
    assert not usable(("man", ","), NOTHING_COMMON)
    assert not usable(("o'clock",), NOTHING_COMMON)
    assert not usable(("the", "man"), frozenset({"the", "man"}))
    assert usable(("the", "guy"), frozenset({"the", "man"}))


def test_common_words_have_a_relative_frequency_at_or_above_the_threshold():
    sentences = [("a", "man", "runs"), ("a", "guy", "runs"), ("a", "dog", "sits", "down")]
    assert common_words(sentences, 0.2) == {"a", "runs"}


def test_monolingual_probabilities_are_relative_frequencies_in_both_directions():
    counts = counted({("guy", "man"): 2, ("guy", "guy"): 1, ("man", "man"): 5})
    table = monolingual_table(counts, NOTHING_COMMON, KEEP_ALL)
    # guy: with man 2 + 0 (the reverse is man → guy), with itself 1 + 1 → P(man|guy) = 2/4.
    assert table.paraphrases("guy")[("man",)] == pytest.approx(2 / 4)
    # man: with guy 2, with itself 5 + 5 → P(guy|man) = 2/12.
    assert table.paraphrases("man")[("guy",)] == pytest.approx(2 / 12)


def test_phrase_pairs_seen_fewer_than_min_count_times_are_ignored():
    counts = counted({("guy", "man"): 1, ("boy", "kid"): 2})
    table = monolingual_table(counts, NOTHING_COMMON, ExtractionSettings(min_count=2))
    assert table.paraphrases("guy") == {} and table.paraphrases("boy") == {("kid",): 1.0}


def test_phrase_pairs_follow_the_alignment():
    counts = PhrasePairCounts(2)
    counts.add(("a", "guy", "runs"), ("a", "man", "is", "running"), {(0, 0), (1, 1), (2, 3)})
    assert counts.counts[("guy",), ("man",)] == 1
    assert counts.counts[("a", "guy"), ("a", "man")] == 1
    assert (("guy", "runs"), ("man", "is", "running")) not in counts.counts  # longer than 2


def test_each_description_is_paired_with_the_next_ones_of_its_cluster():
    assert cluster_pairs(4, 1) == [(0, 1), (0, 3), (1, 2), (2, 3)]
    assert cluster_pairs(3, 5) == [(0, 1), (0, 2), (1, 2)]
    assert cluster_pairs(1, 2) == []


CLUSTERS = [
    [("en", "a guy slices a tomato"), ("en", "a man slices a tomato"), ("de", "ein mann")],
    [("en", "a guy is running"), ("en", "a man is running"), ("de", "ein mann läuft")],
    [("en", "a guy cooks"), ("en", "a man cooks"), ("en", "the man cooks")],
]


def test_a_table_is_learned_from_clusters_and_annotators_and_merged():
    annotated = [AnnotatedPair(("the", "guy"), ("the", "fellow"), frozenset({(0, 0), (1, 1)}))]
    table, report = extract_paraphrases(
        CLUSTERS,
        settings=ExtractionSettings(min_count=1, common_frequency=1.0),
        annotated=annotated,
    )
    assert report.descriptions == 9 and report.clusters == 3
    assert report.sentence_pairs == {"monolingual": 5, "pivot:de": 4, "annotators": 1}
    assert ("man",) in table.paraphrases("guy")
    assert ("fellow",) in table.paraphrases("guy")
    assert all(probability >= 0.01 for _, _, probability in table)


def test_bad_settings_are_refused():
    with pytest.raises(ValueError):
        ExtractionSettings(threshold=2)
    with pytest.raises(ValueError, match="unknown language"):
        ExtractionSettings(language="english!")
