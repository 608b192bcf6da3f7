"""The supervised pre-aligner, its features, the HMM posteriors, WordNet and the evaluation."""

import json
import random

import numpy as np
import pytest

from paracrowd_metrics.alignment import AlignedPair, Alignment, train_aligner
from paracrowd_metrics.alignment.evaluation import evaluate_prealigner, identical_words_baseline
from paracrowd_metrics.alignment.features import FEATURES, Lexicon, cell_features
from paracrowd_metrics.alignment.supervised import SupervisedAligner, train_supervised_aligner
from paracrowd_metrics.alignment.wordnet import WordNet

SYNONYMS = {"man": "guy", "slices": "cuts", "onion": "onion", "big": "large", "dog": "hound"}


def paraphrase_pairs(count=60, seed=0):
    """'a man slices an onion .' ↔ 'a guy cuts an onion .': words replaced by synonyms, the
    gold linking each word to its replacement (sure) and the article 'an' possible."""
    rng = random.Random(seed)
    pairs = []
    for number in range(count):
        words = rng.sample(list(SYNONYMS), 3)
        source = ["a", *words, "."]
        target = ["a", *(SYNONYMS[word] for word in words), "."]
        sure = {(i, i) for i in range(len(source))}
        pairs.append(AlignedPair(str(number), tuple(source), tuple(target), Alignment(sure=sure)))
    return pairs


def synonyms(first, second):
    return SYNONYMS.get(first) == second or SYNONYMS.get(second) == first


def test_hmm_posteriors_are_probabilities_that_favour_the_viterbi_links():
    pairs = paraphrase_pairs()
    model = train_aligner([(p.source, p.target) for p in pairs], iterations=3)
    forward, backward = model.posteriors(pairs[0].source, pairs[0].target)
    assert forward.shape == backward.shape == (5, 5)
    assert np.all(forward.sum(axis=0) <= 1 + 1e-9) and np.all(backward.sum(axis=1) <= 1 + 1e-9)
    for i, j in model.align(pairs[0].source, pairs[0].target).sure:
        assert forward[i, j] == forward[:, j].max()


def test_cell_features_see_stems_synonyms_and_typos():
    source, target = ["The", "dogs", "bark", "loudly"], ["the", "dog", "barks", "loudy"]
    rows = cell_features(source, target, lexicon=Lexicon(synonyms=synonyms))
    feature = dict(zip(FEATURES, range(len(FEATURES)), strict=True))
    assert rows[0, 0, feature["lowercase identical"]] and not rows[0, 0, feature["identical"]]
    assert rows[1, 1, feature["same stem"]] and rows[2, 2, feature["same stem"]]
    assert rows[3, 3, feature["string similarity"]] > 0.9
    assert rows.shape == (4, 4, len(FEATURES))


def test_it_learns_links_between_different_words_and_tells_sure_from_possible():
    training, held_out = paraphrase_pairs(60, seed=0), paraphrase_pairs(10, seed=1)
    aligner = train_supervised_aligner(training, lexicon=Lexicon(synonyms=synonyms))
    report = evaluate_prealigner(aligner.prealign, held_out)
    assert report["non_identical"]["recall"] > 0.9
    assert report["baseline"]["non_identical"]["recall"] == 0
    assert aligner.prealign(held_out[0].source, held_out[0].target).sure


def test_punctuation_is_never_linked_to_a_word():
    aligner = train_supervised_aligner(paraphrase_pairs(), lexicon=Lexicon(synonyms=synonyms))
    links = aligner.prealign(["a", "man", ",", "slices"], ["a", "guy", "cuts", "!"]).possible
    assert all((i == 2) == (j == 3) for i, j in links)


def test_a_stored_aligner_aligns_exactly_as_the_trained_one():
    lexicon = Lexicon(synonyms=synonyms)
    aligner = train_supervised_aligner(paraphrase_pairs(), lexicon=lexicon)
    stored = SupervisedAligner.from_dict(json.loads(json.dumps(aligner.to_dict())), lexicon=lexicon)
    for pair in paraphrase_pairs(10, seed=2):
        assert stored.prealign(pair.source, pair.target) == aligner.prealign(
            pair.source, pair.target
        )
    with pytest.raises(ValueError, match="other features"):
        SupervisedAligner.from_dict({**aligner.to_dict(), "features": ["identical"]})


def test_the_baseline_links_identical_words_one_to_one():
    baseline = identical_words_baseline(["the", "cat", "saw", "the", "dog"], ["The", "dog"])
    assert baseline.sure == {(3, 0), (4, 1)}


def test_wordnet_reads_synonym_sets_and_base_forms(tmp_path):
    header = "  1 This software and database is being provided\n"
    (tmp_path / "index.noun").write_text(
        header + "car n 1 1 @ 1 0 02958343\nautomobile n 1 1 @ 1 0 02958343\n"
    )
    (tmp_path / "index.verb").write_text(header + "go v 1 1 @ 1 0 01835496\n")
    (tmp_path / "index.adj").write_text(header)
    (tmp_path / "index.adv").write_text(header)
    (tmp_path / "verb.exc").write_text("went go\n")
    wordnet = WordNet(tmp_path)
    assert wordnet.synonyms("cars", "automobile")
    assert wordnet.lemmas("went", "v") == {"go"}
    assert not wordnet.synonyms("car", "go")
    with pytest.raises(FileNotFoundError, match="wordnet-base"):
        WordNet(tmp_path / "missing")
