"""The METEOR-style score pinned on examples worked out by hand."""

import itertools
import random

import pytest

from paracrowd_metrics.meteor import (
    ENGLISH,
    EXACT,
    PARAPHRASE,
    STEM,
    SYNONYM,
    Match,
    Meteor,
    MeteorParameters,
    ParaphraseTable,
    candidate_matches,
    choose_alignment,
    meteor_score,
    meteor_signature,
    meteor_tokens,
)

A, B, G = ENGLISH.alpha, ENGLISH.beta, ENGLISH.gamma


def expected(precision, recall, chunks, matched):
    fmean = precision * recall / (A * precision + (1 - A) * recall)
    return 100 * (1 - G * (chunks / matched) ** B) * fmean


def test_the_defaults_are_the_papers_english_parameters_with_paraphrases():
    assert (A, B, G) == (0.75, 0.60, 0.35)
    assert (ENGLISH.exact, ENGLISH.stem, ENGLISH.synonym, ENGLISH.paraphrase) == (1, 0.8, 0.8, 0.6)


def test_exact_matches_score_by_the_formula():
    # 3 of 3 hypothesis words, 3 of 6 reference words, one chunk.
    score = meteor_score("The cat sat", ["the cat sat on the mat"])
    assert score == pytest.approx(expected(1.0, 0.5, 1, 3))


def test_stem_matches_weigh_less_than_exact_ones():
    alignment = Meteor().align("cats running", "cat runs")
    assert [m.matcher for m in alignment.matches] == [STEM, STEM]
    assert alignment.score == pytest.approx(expected(0.8, 0.8, 1, 2))


def test_a_synonym_source_plugs_in_the_synonym_matcher():
    synsets = {"big": {"large.a.01"}, "large": {"large.a.01"}}
    scorer = Meteor(synonyms=lambda word: synsets.get(word, ()))
    alignment = scorer.align("a big dog", "a large dog")
    assert [m.matcher for m in alignment.matches] == [EXACT, SYNONYM, EXACT]
    assert alignment.score == pytest.approx(expected(2.8 / 3, 2.8 / 3, 1, 3))
    assert Meteor().align("a big dog", "a large dog").matched_words() == (2, 2)


def test_a_paraphrase_matches_phrases_of_different_lengths():
    table = ParaphraseTable()
    table.add("is cutting", "slices", 0.3)
    alignment = Meteor(paraphrases=table).align(
        "a man slices a tomato", "a guy is cutting a tomato"
    )
    assert Match(2, 1, 2, 2, PARAPHRASE) in alignment.matches
    assert alignment.matched_words("paraphrase") == (1, 2)
    # P = (3 + 0.6·1)/5, R = (3 + 0.6·2)/6; "man"/"guy" breaks the chunk; m = (4 + 5)/2.
    assert alignment.chunks == 2
    assert alignment.score == pytest.approx(expected(3.6 / 5, 4.2 / 6, 2, 4.5))


def test_a_table_entry_matches_in_both_directions():
    table = ParaphraseTable()
    table.add("slices", "is cutting", 0.3)
    forward = Meteor(paraphrases=table).align("a guy is cutting", "a man slices")
    backward = Meteor(paraphrases=table).align("a man slices", "a guy is cutting")
    assert forward.matched_words("paraphrase") == (2, 1)
    assert backward.matched_words("paraphrase") == (1, 2)


def test_reordered_halves_make_two_chunks():
    alignment = Meteor().align("the cat sat on the mat", "on the mat the cat sat")
    assert alignment.chunks == 2
    assert alignment.matches[0] == Match(0, 1, 3, 1, EXACT)  # "the" of "the cat" goes with it
    assert alignment.score == pytest.approx(100 * (1 - G * (2 / 6) ** B))


def test_equal_coverage_and_chunks_prefer_the_nearer_match():
    chosen = choose_alignment([Match(0, 1, 0, 1, EXACT), Match(2, 1, 0, 1, EXACT)], 3, 1)
    assert chosen.matches == (Match(0, 1, 0, 1, EXACT),)


def test_coverage_comes_before_chunks():
    # One long paraphrase covers more words than the two exact matches it overlaps.
    candidates = [
        Match(0, 1, 0, 1, EXACT),
        Match(2, 1, 2, 1, EXACT),
        Match(0, 3, 0, 4, PARAPHRASE),
    ]
    assert choose_alignment(candidates, 3, 4).matches == (Match(0, 3, 0, 4, PARAPHRASE),)


def _brute_force(candidates, hyp_length, ref_length):
    best = None
    for size in range(len(candidates) + 1):
        for subset in itertools.combinations(candidates, size):
            hyp = [i for m in subset for i in range(m.hyp_start, m.hyp_start + m.hyp_length)]
            ref = [j for m in subset for j in range(m.ref_start, m.ref_start + m.ref_length)]
            if len(set(hyp)) < len(hyp) or len(set(ref)) < len(ref):
                continue
            ordered = sorted(subset)
            chunks = choose_alignment(ordered, hyp_length, ref_length).chunks if ordered else 0
            key = (
                -len(hyp) - len(ref),
                chunks,
                sum(abs(m.hyp_start - m.ref_start) for m in ordered),
                sum(m.matcher * (m.hyp_length + m.ref_length) for m in ordered),
            )
            best = key if best is None or key < best else best
    return best


def test_the_search_finds_what_trying_every_subset_finds():
    generator = random.Random(7)
    table = ParaphraseTable()
    table.add("a b", "c", 0.5)
    table.add("b", "d a", 0.5)
    for _ in range(150):
        hyp = [generator.choice("abcd") for _ in range(generator.randint(1, 6))]
        ref = [generator.choice("abcd") for _ in range(generator.randint(1, 6))]
        candidates = candidate_matches(hyp, ref, parameters=ENGLISH, paraphrases=table)
        if len(candidates) > 11:
            continue
        chosen = choose_alignment(candidates, len(hyp), len(ref))
        key = (
            -sum(m.hyp_length + m.ref_length for m in chosen.matches),
            chosen.chunks,
            sum(abs(m.hyp_start - m.ref_start) for m in chosen.matches),
            sum(m.matcher * (m.hyp_length + m.ref_length) for m in chosen.matches),
        )
        assert key == _brute_force(candidates, len(hyp), len(ref)), (hyp, ref)


def test_forty_word_sentences_with_many_repeated_words_are_aligned():
    words = "a man and a woman are cutting a tomato with a knife in the kitchen of the house"
    hypothesis = " ".join(words.split() * 3)[:200]
    reference = " ".join(reversed(words.split() * 2))
    alignment = Meteor().align(hypothesis, reference)
    assert len(alignment.hypothesis) >= 30 and 0 < alignment.score < 100


def test_the_best_reference_gives_the_score():
    best = meteor_score("a dog runs", "a dog runs")
    assert meteor_score("a dog runs", ["nothing alike", "a dog runs", "a dog"]) == best


def test_empty_sentences_score_zero():
    assert meteor_score("", ["a dog runs"]) == 0.0
    assert meteor_score("a dog runs", [""]) == 0.0
    assert meteor_score("a dog runs", []) == 0.0
    assert meteor_score("   ", ["   "]) == 0.0


def test_a_zero_weight_switches_a_matcher_off():
    no_stem = MeteorParameters(stem=0.0)
    assert meteor_score("cats running", "cat runs", parameters=no_stem) == 0.0


def test_tokens_are_lowercased_13a_tokens_and_unspaced_languages_characters():
    assert meteor_tokens("A man, cutting.") == ("a", "man", ",", "cutting", ".")
    assert meteor_tokens("一个男人", "zh") == ("一", "个", "男", "人")


def test_a_language_without_a_stemmer_still_matches_exact_words():
    assert meteor_score("x y", "x y", language="zh") > 0
    assert "stem:none" in meteor_signature(nrefs=1, language="ja")


@pytest.mark.parametrize("language", ["", "english!", "e", None])
def test_a_malformed_language_is_refused_with_a_message(language):
    with pytest.raises(ValueError, match="unknown language"):
        meteor_score("a", "a", language=language)


@pytest.mark.parametrize(
    "changes",
    [{"alpha": 1.5}, {"gamma": -0.1}, {"beta": -1}, {"stem": 2}, {"paraphrase": float("nan")}],
)
def test_parameters_out_of_range_are_refused(changes):
    with pytest.raises(ValueError):
        MeteorParameters(**changes)


def test_unknown_parameter_names_are_refused():
    with pytest.raises(ValueError, match="unknown METEOR parameters: delta"):
        meteor_score("a", "a", parameters={"delta": 0.5})


def test_the_signature_names_the_parameters_and_the_tables_checksum():
    table = ParaphraseTable()
    table.add("guy", "man", 0.5)
    signature = meteor_signature(nrefs=4, paraphrases=table)
    assert signature.startswith("metric:meteor|nrefs:4|lang:en|case:lc|tok:13a|stem:snowball")
    assert f"para:{table.checksum()}" in signature
    assert signature.endswith("a:0.75,b:0.6,g:0.35,w:1/0.8/0.8/0.6")


@pytest.mark.parametrize(
    "parameters",
    [ENGLISH, MeteorParameters(exact=0.0), MeteorParameters(paraphrase=1.0, stem=0.5)],
    ids=["english", "exact-off", "paraphrase-heaviest"],
)
def test_skipping_references_that_cannot_win_keeps_the_best_score_exactly(parameters):
    # Meteor.score aligns only the references whose ceiling beats the best score so far;
    # the result must be what aligning every reference gives, bit for bit.
    generator = random.Random(11)
    words = [
        "a",
        "the",
        "man",
        "men",
        "dog",
        "dogs",
        "run",
        "runs",
        "running",
        "big",
        "large",
        "cut",
        "slices",
        "guy",
    ]
    table = ParaphraseTable()
    table.add("a man", "a guy", 0.5)
    table.add("cut", "slices", 0.5)
    table.add("big dog", "large dogs", 0.5)
    synsets = {"big": {1}, "large": {1}, "man": {2}, "guy": {2}}
    for paraphrases, synonyms in [(None, None), (table, lambda w: synsets.get(w, ()))]:
        scorer = Meteor(paraphrases=paraphrases, synonyms=synonyms, parameters=parameters)
        every = Meteor(paraphrases=paraphrases, synonyms=synonyms, parameters=parameters)
        for _ in range(150):
            hypothesis = " ".join(generator.choices(words, k=generator.randint(1, 8)))
            references = [
                " ".join(generator.choices(words, k=generator.randint(1, 8)))
                for _ in range(generator.randint(1, 12))
            ]
            best = max(every.align(hypothesis, reference).score for reference in references)
            assert scorer.score(hypothesis, references) == best, (hypothesis, references)
