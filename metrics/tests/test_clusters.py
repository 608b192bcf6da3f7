"""Cluster scoring must equal scoring each sentence against the rest, one by one."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from paracrowd_metrics import (
    ClusterIndex,
    corpus_bleu,
    default_max_order,
    pinc,
    score_clusters,
    sentence_bleu,
)

TOLERANCE = 1e-9

# Few distinct words, so sentences share and repeat n-grams a lot ("a dog a dog").
SMALL_VOCABULARY = ["a", "A", "man", "dog", "plays", "runs", "the", "ball", ".", "猫", "玩"]
cluster_sentences = st.lists(st.sampled_from(SMALL_VOCABULARY), max_size=9).map(" ".join)
clusters = st.lists(cluster_sentences, min_size=0, max_size=12)


@st.composite
def cluster_settings(draw):
    tokenize = draw(st.sampled_from(["13a", "none", "zh", "char"]))
    orders = [None, 3, 6] if tokenize == "char" else [None, 2, 4]
    return {
        "tokenize": tokenize,
        "max_order": draw(st.sampled_from(orders)),
        "pinc_max_order": draw(st.sampled_from([None, 2, 4])),
        "smooth": draw(st.sampled_from(["exp", "floor", "add-k", "none"])),
        "smooth_value": draw(st.sampled_from([None, 0.5])),
        "lowercase": draw(st.booleans()),
        "keep_spaces": tokenize == "char" and draw(st.booleans()),
    }


def expected_scores(cluster, source, options):
    """Every sentence scored the slow way: sentence_bleu and pinc, one call per pair."""
    bleu_options = {key: value for key, value in options.items() if key != "pinc_max_order"}
    # PINC's order defaults to BLEU's, which defaults to 18 for characters, 4 for words.
    pinc_options = {
        "tokenize": options["tokenize"],
        "keep_spaces": options["keep_spaces"],
        "max_order": options["pinc_max_order"]
        or options["max_order"]
        or default_max_order(options["tokenize"]),
    }
    bleu, mean_pinc, all_references = [], [], []
    for position, sentence in enumerate(cluster):
        others = cluster[:position] + cluster[position + 1 :]
        references = others + ([source] if source is not None else [])
        all_references.append(references)
        bleu.append(sentence_bleu(sentence, references, **bleu_options) if references else None)
        pincs = [pinc(other, sentence, **pinc_options) for other in others]
        mean_pinc.append(sum(pincs) / len(pincs) if pincs else None)
    corpus = None
    if cluster and all_references[0]:
        corpus = corpus_bleu(cluster, all_references, **bleu_options)
    return bleu, mean_pinc, corpus


def assert_close(actual, expected):
    if expected is None:
        assert actual is None
    else:
        assert actual == pytest.approx(expected, abs=TOLERANCE)


@settings(max_examples=200, deadline=None)
@given(
    cluster=clusters,
    source=st.none() | cluster_sentences,
    options=cluster_settings(),
)
def test_it_equals_scoring_each_sentence_against_the_rest(cluster, source, options):
    scores = score_clusters({"segment": cluster}, include_source={"segment": source}, **options)[
        "segment"
    ]

    bleu, mean_pinc, corpus = expected_scores(cluster, source, options)
    assert scores.size == len(cluster)
    assert [each.position for each in scores.sentences] == list(range(len(cluster)))
    for sentence, expected_bleu, expected_pinc in zip(
        scores.sentences, bleu, mean_pinc, strict=True
    ):
        assert_close(sentence.bleu, expected_bleu)
        assert_close(sentence.pinc, expected_pinc)
    assert_close(scores.corpus_bleu, corpus)
    if bleu and bleu[0] is not None:
        assert_close(scores.mean_bleu, sum(bleu) / len(bleu))
    if len(cluster) > 1:
        assert_close(scores.mean_pinc, sum(mean_pinc) / len(mean_pinc))


def index_state(index):
    return (
        index.holders,
        index.repeats,
        index.document_frequency,
        index.lengths,
        index.owners,
        index.pinc_holders,
        index.by_length,
        index.overlaps.tolist(),
        index.pinc_sizes.tolist(),
        [(each.matches, each.reference_length, each.totals) for each in index.sentences],
    )


@settings(max_examples=200, deadline=None)
@given(
    data=st.data(),
    cluster=clusters,
    source=st.none() | cluster_sentences,
    options=cluster_settings(),
)
def test_adding_sentences_one_by_one_equals_rebuilding(data, cluster, source, options):
    start = data.draw(st.integers(0, len(cluster)))
    index = ClusterIndex.build(cluster[:start], source=source, **options)
    for size in range(start, len(cluster)):
        before = ClusterIndex.build(cluster[:size], source=source, **options).sentence_scores()
        rebuilt = ClusterIndex.build(cluster[: size + 1], source=source, **options)
        after = rebuilt.sentence_scores()

        addition = index.add(cluster[size])

        assert addition.scores == after[size]
        moved = {
            position
            for position in range(size)
            if (before[position].bleu, before[position].pinc)
            != (after[position].bleu, after[position].pinc)
        }
        assert [each.position for each in addition.changed] == sorted(moved)
        assert list(addition.changed) == [after[position] for position in sorted(moved)]
        assert index_state(index) == index_state(rebuilt)
    assert (
        index.cluster_scores()
        == ClusterIndex.build(cluster, source=source, **options).cluster_scores()
    )


@settings(max_examples=200, deadline=None)
@given(
    cluster=st.lists(cluster_sentences, min_size=1, max_size=12),
    source=st.none() | cluster_sentences,
    options=cluster_settings(),
)
def test_adding_sentences_keeps_every_score_equal_to_scoring_each_pair(cluster, source, options):
    index = ClusterIndex.build([], source=source, **options)
    for size in range(1, len(cluster) + 1):
        addition = index.add(cluster[size - 1])

        bleu, mean_pinc, _ = expected_scores(cluster[:size], source, options)
        scores = index.sentence_scores()
        for sentence, expected_bleu, expected_pinc in zip(scores, bleu, mean_pinc, strict=True):
            assert_close(sentence.bleu, expected_bleu)
            assert_close(sentence.pinc, expected_pinc)
        assert addition.scores == scores[-1]
        assert all(scores[each.position] == each for each in addition.changed)


def test_a_read_only_index_refuses_another_sentence():
    index = ClusterIndex.build(["a dog runs", "a dog sleeps"], growable=False)
    with pytest.raises(ValueError, match="growable=False"):
        index.add("a cat runs")


def test_a_lone_sentence_has_nothing_to_be_compared_with():
    scores = score_clusters({"segment": ["a dog runs"]})["segment"]
    assert scores.size == 1
    assert (scores.sentences[0].bleu, scores.sentences[0].pinc) == (None, None)
    assert (scores.corpus_bleu, scores.mean_bleu, scores.mean_pinc) == (None, None, None)


def test_a_source_sentence_is_a_reference_for_bleu_but_not_a_source_for_pinc():
    scores = score_clusters(
        {"segment": ["a dog runs", "the cat sleeps"]},
        include_source={"segment": "a dog runs and the cat sleeps"},
    )["segment"]
    first, second = scores.sentences
    assert first.bleu == sentence_bleu(
        "a dog runs", ["the cat sleeps", "a dog runs and the cat sleeps"]
    )
    # The two descriptions share nothing, whatever the source says.
    assert (first.pinc, second.pinc) == (100.0, 100.0)
    assert scores.bleu_signature.startswith("nrefs:2|")


def test_an_empty_cluster_has_size_0():
    scores = score_clusters({"segment": []})["segment"]
    assert scores.size == 0
    assert scores.sentences == ()
    assert (scores.corpus_bleu, scores.mean_bleu, scores.mean_pinc) == (None, None, None)


def test_identical_descriptions_agree_perfectly_and_add_nothing_new():
    scores = score_clusters({"segment": ["A man plays."] * 3})["segment"]
    for sentence in scores.sentences:
        assert sentence.bleu == pytest.approx(100.0)
        assert sentence.pinc == 0.0
    assert scores.corpus_bleu == pytest.approx(100.0)


def test_every_cluster_records_how_it_was_scored():
    cluster = [f"a dog runs {n}" for n in range(40)]
    scores = score_clusters({1: cluster, 2: cluster[:3]}, tokenize="char", lowercase=True)
    assert scores[1].bleu_signature == (
        "nrefs:39|case:lc|eff:yes|tok:char|order:18|smooth:exp|version:2.6.0"
    )
    assert scores[1].pinc_signature == "metric:pinc|nsrc:39|case:lc|tok:char|order:18|version:2.6.0"
    assert scores[2].bleu_signature.startswith("nrefs:2|")


def test_an_empty_index_takes_its_first_sentences():
    index = ClusterIndex()
    first = index.add("a dog runs")
    assert (first.scores.bleu, first.scores.pinc, first.changed) == (None, None, ())
    second = index.add("a dog runs")
    assert second.scores.pinc == 0.0
    assert [each.position for each in second.changed] == [0]
