"""Aligners do not learn from imported benchmark test sets unless told to."""

import re
from io import StringIO

import pytest
from django.core.management import call_command

from annotations import prealigner, services
from annotations.alignment_files import alignments_import
from annotations.models import BENCHMARK_TEST_KEY, AlignerModel, SentencePair
from paracrowd_metrics.alignment import AlignedPair, parse_pharaoh

pytestmark = pytest.mark.django_db

TRAIN = [("a man cooks", "a person cooks"), ("the dog runs", "a dog is running")]
TEST = [("kids play chess", "children play chess"), ("it rains", "rain falls"), ("a b", "a c")]


def imported(corpus: str, sentences) -> None:
    pairs = [
        AlignedPair(str(n), tuple(a.split()), tuple(b.split()), parse_pharaoh("0-0"))
        for n, (a, b) in enumerate(sentences, 1)
    ]
    alignments_import({"A": pairs}, corpus=corpus)


@pytest.mark.parametrize(
    "corpus, test_set",
    [
        ("gold.test", True),
        ("RTE2_test_A", True),
        ("arxiv-test", True),
        ("mt-reference.test", True),
        ("x:gold.test", True),
        ("gold.train", False),
        ("contest", False),
        ("testing", False),
        ("video", False),
    ],
)
def test_a_corpus_named_with_the_word_test_is_a_benchmark_test_set(corpus, test_set):
    assert bool(re.match(BENCHMARK_TEST_KEY, f"{corpus}:12", re.IGNORECASE)) == test_set


def test_the_supervised_aligners_gold_leaves_out_test_sets_unless_asked():
    imported("gold.train", TRAIN)
    imported("gold.test", TEST)

    def sentences(gold):
        return {" ".join(pair.source) for pair in [*gold.learn, *gold.held_out]}

    assert sentences(prealigner.site_gold()) == {a for a, _ in TRAIN}
    assert sentences(prealigner.site_gold(include_test_sets=True)) == {a for a, _ in TRAIN + TEST}


def test_train_aligner_leaves_out_test_sets_unless_asked():
    imported("gold.train", TRAIN)
    imported("gold.test", TEST)
    assert SentencePair.objects.count() == 5

    call_command("train_aligner", "--iterations", "1", stdout=StringIO())
    call_command("train_aligner", "--iterations", "1", "--include-test-sets", stdout=StringIO())

    trained = AlignerModel.objects.filter(kind=AlignerModel.Kind.UNSUPERVISED).order_by("pk")
    assert [model.training_pairs for model in trained] == [len(TRAIN), len(TRAIN + TEST)]
    assert services.aligner_train(iterations=1).training_pairs == len(TRAIN)
