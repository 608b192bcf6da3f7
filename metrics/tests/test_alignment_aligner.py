import json
import random

import pytest

from paracrowd_metrics.alignment import Aligner, Alignment, train_aligner

LEXICON = {
    "the": "le",
    "a": "un",
    "cat": "chat",
    "dog": "chien",
    "fish": "poisson",
    "eats": "mange",
    "sees": "voit",
    "big": "gros",
    "small": "petit",
}


def word_for_word_corpus(count=300, seed=0):
    """English–"French" pairs, word for word, with the adjective after its noun in French."""
    rng = random.Random(seed)
    pairs = []
    for _ in range(count):
        source = [rng.choice(["the", "a"])]
        adjective = rng.choice(["big", "small", None])
        noun = rng.choice(["cat", "dog"])
        target = [LEXICON[source[0]], LEXICON[noun]]
        source += [adjective, noun] if adjective else [noun]
        target += [LEXICON[adjective]] if adjective else []
        verb, article, obj = rng.choice(["eats", "sees"]), rng.choice(["the", "a"]), "fish"
        source += [verb, article, obj]
        target += [LEXICON[verb], LEXICON[article], LEXICON[obj]]
        pairs.append((source, target))
    return pairs


@pytest.fixture(scope="module")
def aligner():
    return train_aligner(word_for_word_corpus(), iterations=5)


def test_the_aligner_recovers_word_for_word_links(aligner):
    alignment = aligner.align(
        ["a", "dog", "sees", "the", "fish"], ["un", "chien", "voit", "le", "poisson"]
    )

    assert alignment == Alignment(sure={(0, 0), (1, 1), (2, 2), (3, 3), (4, 4)})


def test_the_aligner_follows_the_lexicon_across_a_reordering(aligner):
    alignment = aligner.align(
        ["the", "big", "cat", "eats", "a", "fish"], ["le", "chat", "gros", "mange", "un", "poisson"]
    )

    assert alignment.sure >= {(1, 2), (2, 1)}
    assert not alignment.sure & {(1, 1), (2, 2)}


def test_the_aligner_lowercases_words(aligner):
    alignment = aligner.align(["The", "Dog"], ["LE", "chien"])

    assert alignment == Alignment(sure={(0, 0), (1, 1)})


def test_unseen_identical_words_align_to_each_other(aligner):
    alignment = aligner.align(["the", "zebra"], ["le", "zebra"])

    assert (1, 1) in alignment.sure


def test_the_identity_lexicon_lets_every_word_translate_as_itself(aligner):
    assert aligner.forward.lexicon["dog"].get("dog", 0) > 0
    without = train_aligner(word_for_word_corpus(50), iterations=2, identity_lexicon=False)
    assert "dog" not in without.forward.lexicon["dog"]


def test_an_empty_sentence_has_no_links(aligner):
    assert aligner.align([], ["le"]) == Alignment()


def test_a_stored_aligner_aligns_exactly_like_the_trained_one(aligner):
    stored = Aligner.from_dict(json.loads(json.dumps(aligner.to_dict())))

    assert stored == aligner
    for source, target in word_for_word_corpus(20, seed=1):
        assert stored.align(source, target) == aligner.align(source, target)


def test_an_aligner_of_an_unknown_format_version_is_refused(aligner):
    data = aligner.to_dict() | {"version": 99}

    with pytest.raises(ValueError, match="version"):
        Aligner.from_dict(data)


def test_training_needs_at_least_one_sentence_pair():
    with pytest.raises(ValueError, match="at least one"):
        train_aligner([], identity_lexicon=False)


@pytest.fixture(scope="module")
def paraphrase_aligner():
    rng = random.Random(3)
    subjects = [["a", "man"], ["a", "guy"], ["someone"]]
    verbs = [["is", "slicing"], ["cuts"], ["slices"], ["is", "cutting"]]
    objects = [["an", "onion"], ["a", "tomato"], ["the", "bread"]]
    pairs = []
    for _ in range(300):
        obj = rng.choice(objects)
        first = rng.choice(subjects) + rng.choice(verbs) + obj + ["."]
        second = rng.choice(subjects) + rng.choice(verbs) + obj + ["."]
        pairs.append((first, second))
    return train_aligner(pairs, iterations=5)


def test_the_pre_aligner_links_identical_words_one_to_one_by_their_neighbours(paraphrase_aligner):
    # Two "a"s on the left, one on the right: the right one goes with "a tomato", whose
    # neighbour matches, and the other "a" stays unlinked.
    source = ["a", "man", "slices", "a", "tomato"]
    target = ["someone", "cuts", "a", "tomato"]

    links = paraphrase_aligner.prealign(source, target).sure

    assert {(3, 2), (4, 3)} <= links
    assert (0, 2) not in links


def test_the_pre_aligner_grows_model_links_from_the_anchors(paraphrase_aligner):
    source = ["a", "man", "is", "slicing", "an", "onion", "."]
    target = ["a", "guy", "cuts", "an", "onion", "."]

    links = paraphrase_aligner.prealign(source, target).sure

    assert {(0, 0), (4, 3), (5, 4), (6, 5)} <= links
    assert (3, 2) in links  # slicing ~ cuts, next to the "an onion" anchors


def test_the_pre_aligner_never_links_punctuation_to_a_word():
    # A model trained on a handful of pairs happily links "." to words.
    pairs = [(["on", "."], ["upon"]), (["on", "."], ["upon", "it"]), ([".", "on"], ["upon"])] * 3
    aligner = train_aligner(pairs, iterations=5)

    def crossing(align):
        return {
            (i, j)
            for source, target in pairs
            for i, j in align(source, target).possible
            if (source[i] == ".") != (target[j] == ".")
        }

    assert crossing(aligner.align)  # the model alone does it
    assert not crossing(aligner.prealign)
