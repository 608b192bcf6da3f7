"""Signatures record how a score was computed, in sacrebleu's own words where it has them."""

import pytest
from sacrebleu.metrics import BLEU

from paracrowd_metrics import bleu_signature, pinc_signature, signature


def sacrebleu_signature(nrefs, **options):
    metric = BLEU(**options)
    metric.corpus_score(["a dog"], [["a dog"]] * nrefs)
    return metric.get_signature().format()


@pytest.mark.parametrize("tokenize", ["13a", "zh", "none", "intl"])
@pytest.mark.parametrize(
    ("smooth", "smooth_value"),
    [
        ("exp", None),
        ("none", None),
        ("floor", None),
        ("floor", 0.05),
        ("add-k", None),
        ("add-k", 2),
    ],
)
@pytest.mark.parametrize(("lowercase", "effective_order"), [(False, True), (True, False)])
def test_a_word_bleu_signature_is_sacrebleus_verbatim(
    tokenize, smooth, smooth_value, lowercase, effective_order
):
    options = {"smooth_value": smooth_value, "lowercase": lowercase}
    ours = bleu_signature(
        nrefs=3, tokenize=tokenize, smooth=smooth, effective_order=effective_order, **options
    )
    theirs = sacrebleu_signature(
        3, tokenize=tokenize, smooth_method=smooth, effective_order=effective_order, **options
    )
    assert ours == theirs


def test_the_default_signature_reads_like_sacrebleus():
    assert signature(nrefs=39) == "nrefs:39|case:mixed|eff:yes|tok:13a|smooth:exp|version:2.6.0"


def test_a_char_bleu_signature_also_records_the_order_sacrebleu_leaves_out():
    theirs = sacrebleu_signature(2, tokenize="char", max_ngram_order=18, effective_order=True)
    assert theirs == "nrefs:2|case:mixed|eff:yes|tok:char|smooth:exp|version:2.6.0"
    assert bleu_signature(nrefs=2, tokenize="char") == (
        "nrefs:2|case:mixed|eff:yes|tok:char|order:18|smooth:exp|version:2.6.0"
    )
    assert "|tok:char+spaces|order:6|" in bleu_signature(
        nrefs=2, tokenize="char", keep_spaces=True, max_order=6
    )


def test_a_pinc_signature_names_the_metric_and_its_sources():
    assert pinc_signature(nsources=39) == (
        "metric:pinc|nsrc:39|case:lc|tok:13a|order:4|version:2.6.0"
    )
    assert signature("pinc", nsources=5, tokenize="char", max_order=18) == (
        "metric:pinc|nsrc:5|case:lc|tok:char|order:18|version:2.6.0"
    )


def test_it_refuses_a_metric_it_does_not_know():
    with pytest.raises(ValueError, match="meteor"):
        signature("meteor", nrefs=1)
