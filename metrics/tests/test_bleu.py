"""BLEU must be sacrebleu's BLEU, to 1e-9, whatever the text."""

import pytest
import sacrebleu
from hypothesis import given, settings
from hypothesis import strategies as st
from sacrebleu.metrics import BLEU
from sacrebleu.tokenizers.tokenizer_13a import Tokenizer13a

from paracrowd_metrics import (
    corpus_bleu,
    default_max_order,
    default_tokenize,
    sentence_bleu,
)
from paracrowd_metrics.tokens import sentence_units

# Sentences are mostly built from a small shared vocabulary so that hypotheses and
# references overlap (random text almost never shares an n-gram, which would test little).
WORDS = [
    # English, with case and the punctuation 13a splits off
    "a", "A", "man", "Man", "is", "playing", "the", "guitar", "dog", "running", "a dog",
    ".", ",", "!", "?", "(", ")", '"', "don't", "e-mail", "3-4", "1,000", "U.S.", "&amp;",
    # Hindi (with combining vowel signs), Chinese, Arabic, emoji
    "नमस्ते", "कुत्ता", "दौड़", "रहा", "है", "猫", "在", "玩", "一只猫在玩", "。", "قطة", "تلعب",
    "الكرة", "😀", "🐶", "👍🏽",
]  # fmt: skip
SEPARATORS = [" ", " ", " ", "", "  ", "\t", "\u3000"]

vocabulary_sentences = st.lists(
    st.tuples(st.sampled_from(WORDS), st.sampled_from(SEPARATORS)), max_size=14
).map(lambda parts: "".join(word + separator for word, separator in parts))

# Now and then anything at all: control characters, unusual whitespace, any script.
any_text = st.text(st.characters(exclude_categories=["Cs"]), max_size=24)

sentences = st.one_of(vocabulary_sentences, vocabulary_sentences, vocabulary_sentences, any_text)
references = st.lists(sentences, min_size=1, max_size=40)

SMOOTHING = ["exp", "floor", "add-k", "none"]
smoothing = st.sampled_from(SMOOTHING)
# None means "the method's default"; the others exercise explicit values.
smooth_values = st.sampled_from([None, None, 0.0, 0.05, 0.5, 1, 2])

TOLERANCE = 1e-9


def sacrebleu_sentence_score(hypothesis, refs, *, tokenize, smooth, smooth_value, lowercase):
    if tokenize == "char":
        metric = BLEU(
            tokenize="char",
            max_ngram_order=18,
            effective_order=True,
            smooth_method=smooth,
            smooth_value=smooth_value,
            lowercase=lowercase,
        )
        return metric.sentence_score(hypothesis, refs).score
    return sacrebleu.sentence_bleu(
        hypothesis,
        refs,
        smooth_method=smooth,
        smooth_value=smooth_value,
        lowercase=lowercase,
        tokenize=tokenize,
    ).score


@settings(max_examples=200, deadline=None)
@given(
    hypothesis=sentences,
    refs=references,
    tokenize=st.sampled_from(["13a", "none", "zh", "intl"]),
    smooth=smoothing,
    smooth_value=smooth_values,
    lowercase=st.booleans(),
)
def test_it_matches_sacrebleu_for_word_tokenizers(
    hypothesis, refs, tokenize, smooth, smooth_value, lowercase
):
    options = {"tokenize": tokenize, "smooth": smooth, "smooth_value": smooth_value}
    ours = sentence_bleu(hypothesis, refs, lowercase=lowercase, **options)
    theirs = sacrebleu_sentence_score(
        hypothesis,
        refs,
        tokenize=tokenize,
        smooth=smooth,
        smooth_value=smooth_value,
        lowercase=lowercase,
    )
    assert ours == pytest.approx(theirs, abs=TOLERANCE)


@settings(max_examples=100, deadline=None)
@given(
    hypothesis=sentences,
    refs=references,
    smooth=smoothing,
    smooth_value=smooth_values,
    lowercase=st.booleans(),
)
def test_it_matches_sacrebleu_for_char_18(hypothesis, refs, smooth, smooth_value, lowercase):
    ours = sentence_bleu(
        hypothesis,
        refs,
        tokenize="char",
        smooth=smooth,
        smooth_value=smooth_value,
        lowercase=lowercase,
    )
    theirs = sacrebleu_sentence_score(
        hypothesis,
        refs,
        tokenize="char",
        smooth=smooth,
        smooth_value=smooth_value,
        lowercase=lowercase,
    )
    assert ours == pytest.approx(theirs, abs=TOLERANCE)


@pytest.mark.parametrize("smooth", SMOOTHING)
@pytest.mark.parametrize("tokenize", ["13a", "none", "zh", "char"])
@pytest.mark.parametrize(
    "hypothesis",
    ["", "   ", "dog", "Dog.", "猫", "कुत्ता", "قطة", "🐶", "a", "man man man man man"],
)
def test_it_matches_sacrebleu_for_empty_and_one_word_hypotheses(hypothesis, tokenize, smooth):
    refs = ["a dog is running .", "A man plays with his dog", "猫在玩", "कुत्ता दौड़ रहा है", ""]
    options = {"tokenize": tokenize, "smooth": smooth, "smooth_value": None, "lowercase": False}
    ours = sentence_bleu(hypothesis, refs, **options)
    assert ours == pytest.approx(
        sacrebleu_sentence_score(hypothesis, refs, **options), abs=TOLERANCE
    )


def test_it_scores_a_perfect_match_100_and_a_disjoint_hypothesis_0():
    perfect = sentence_bleu("a man is playing a guitar", ["a man is playing a guitar"])
    assert perfect == pytest.approx(100.0, abs=TOLERANCE)
    assert sentence_bleu("cats sleep", ["a man is playing a guitar"]) == 0.0


def test_it_uses_order_18_for_characters_and_4_for_words_by_default():
    hypothesis, refs = "一只猫在玩球", ["一只猫在玩", "猫在玩球"]
    assert sentence_bleu(hypothesis, refs, tokenize="char") == sentence_bleu(
        hypothesis, refs, tokenize="char", max_order=18
    )
    assert default_max_order("char") == 18
    assert default_max_order("13a") == 4


@settings(max_examples=100, deadline=None)
@given(hypothesis=vocabulary_sentences, refs=st.lists(vocabulary_sentences, min_size=1, max_size=8))
def test_keeping_spaces_counts_each_run_of_whitespace_as_one_character(hypothesis, refs):
    # sacrebleu's char tokenizer drops spaces; a visible stand-in makes it keep them.
    def with_visible_spaces(sentence):
        return "\u2581".join(sentence.split())

    ours = sentence_bleu(hypothesis, refs, tokenize="char", keep_spaces=True)
    theirs = BLEU(tokenize="char", max_ngram_order=18, effective_order=True).sentence_score(
        with_visible_spaces(hypothesis), [with_visible_spaces(each) for each in refs]
    )
    assert ours == pytest.approx(theirs.score, abs=TOLERANCE)


@settings(max_examples=100, deadline=None)
@given(
    data=st.data(),
    tokenize=st.sampled_from(["13a", "none", "zh", "char"]),
    smooth=smoothing,
    smooth_value=smooth_values,
    effective_order=st.booleans(),
    lowercase=st.booleans(),
)
def test_it_matches_sacrebleu_corpus_bleu_with_equal_reference_counts(
    data, tokenize, smooth, smooth_value, effective_order, lowercase
):
    reference_count = data.draw(st.integers(1, 5))
    hypotheses = data.draw(st.lists(sentences, min_size=1, max_size=8))
    refs = [data.draw(st.lists(sentences, min_size=reference_count, max_size=reference_count))
            for _ in hypotheses]  # fmt: skip
    options = {"smooth": smooth, "smooth_value": smooth_value, "lowercase": lowercase}
    ours = corpus_bleu(
        hypotheses, refs, tokenize=tokenize, effective_order=effective_order, **options
    )
    metric = BLEU(
        tokenize=tokenize,
        max_ngram_order=default_max_order(tokenize),
        effective_order=effective_order,
        smooth_method=smooth,
        smooth_value=smooth_value,
        lowercase=lowercase,
    )
    # sacrebleu wants one stream per reference: the transpose of ours.
    theirs = metric.corpus_score(hypotheses, [list(stream) for stream in zip(*refs, strict=True)])
    assert ours == pytest.approx(theirs.score, abs=TOLERANCE)


def test_corpus_bleu_defaults_are_sacrebleus():
    hypotheses = ["The cat sat on the mat.", "A dog runs", "猫在玩"]
    refs = [["The cat is on the mat.", "A cat sat on a mat"], ["a dog is running", "Dogs run"],
            ["一只猫在玩", "猫玩"]]  # fmt: skip
    theirs = sacrebleu.corpus_bleu(hypotheses, [list(stream) for stream in zip(*refs, strict=True)])
    assert corpus_bleu(hypotheses, refs) == pytest.approx(theirs.score, abs=TOLERANCE)


@settings(max_examples=50, deadline=None)
@given(
    pairs=st.lists(
        st.tuples(sentences, st.lists(sentences, min_size=1, max_size=4)), min_size=1, max_size=6
    )
)
def test_corpus_bleu_takes_a_varying_number_of_references_per_hypothesis(pairs):
    hypotheses = [hypothesis for hypothesis, _ in pairs]
    refs = [sentence_refs for _, sentence_refs in pairs]
    # sacrebleu expresses a missing reference as None in its stream.
    width = max(len(each) for each in refs)
    streams = [[each[k] if k < len(each) else None for each in refs] for k in range(width)]
    theirs = sacrebleu.corpus_bleu(hypotheses, streams)
    assert corpus_bleu(hypotheses, refs) == pytest.approx(theirs.score, abs=TOLERANCE)


@settings(max_examples=300, deadline=None)
@given(
    sentence=st.text(
        st.characters(categories=["Lu", "Ll", "Lt", "Lm", "Lo", "Nd", "Nl", "No"]) | st.just(" "),
        max_size=30,
    )
)
def test_sentences_of_letters_digits_and_spaces_skip_13a_yet_get_its_tokens(sentence):
    assert sentence_units(sentence) == Tokenizer13a()(sentence.rstrip()).split()


@pytest.mark.parametrize(
    ("language", "tokenize"),
    [
        ("zh", "char"),
        ("zh-Hans", "char"),
        ("ZH_tw", "char"),
        ("ja-JP", "char"),
        ("th", "char"),
        ("lo", "char"),
        ("km", "char"),
        ("my", "char"),
        ("bo-CN", "char"),
        ("zha", "13a"),
        ("en", "13a"),
        ("en-GB", "13a"),
        ("hi", "13a"),
        ("ar", "13a"),
        ("", "13a"),
        (None, "13a"),
    ],
)
def test_it_chooses_characters_for_languages_written_without_spaces(language, tokenize):
    assert default_tokenize(language) == tokenize


def test_it_rejects_an_unknown_tokenizer_or_smoothing():
    with pytest.raises(ValueError, match="tokenize"):
        sentence_bleu("a dog", ["a dog"], tokenize="moses")
    with pytest.raises(ValueError, match="smooth"):
        sentence_bleu("a dog", ["a dog"], smooth="laplace")


def test_it_needs_at_least_one_reference_given_as_a_list():
    with pytest.raises(ValueError, match="reference"):
        sentence_bleu("a dog", [])
    with pytest.raises(TypeError):
        sentence_bleu("a dog", "a dog")
    with pytest.raises(ValueError):
        corpus_bleu(["a dog"], [["a dog"], ["a cat"]])
