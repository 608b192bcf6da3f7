"""The per-worker signals on small crafted inputs: each catches what it is for, and leaves
honest work alone."""

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from review import text_checks
from review import worker_signals as signals
from review.worker_signals import Submission

_ids = itertools.count(1)

VARIED = [
    "A man is playing a guitar.",
    "A woman slices a tomato on a board.",
    "Two dogs run across a field.",
    "A boy rides his bicycle down the street.",
    "A chef is frying an egg in a pan.",
    "A cat jumps onto the kitchen table.",
    "Some children are swimming in a pool.",
    "A girl is brushing her long hair.",
    "A monkey eats a banana in a tree.",
    "A woman is peeling a potato with a knife.",
]


def submission(text, *, segment_id=None, language="en", **fields) -> Submission:
    number = next(_ids)
    return Submission(
        id=number, segment_id=segment_id or number, text=text, language=language, **fields
    )


def by_key(found):
    return {signal.key: signal for signal in found}


def test_a_worker_who_pastes_one_sentence_on_20_segments_is_flagged_for_copied_text():
    pasted = [submission("A man is doing something in the video.") for _ in range(20)]
    signal = signals.duplicates(pasted)
    assert signal.flagged and signal.value == 1.0
    assert "20 of 20 descriptions" in signal.explanation
    assert "20 word for word" in signal.explanation
    assert signal.examples[0]["note"] == "the same or nearly the same text on 20 segments"


def test_near_copies_on_different_segments_count_as_copies():
    texts = [
        "A man is doing something in the video.",
        "a man is doing something in the video",
        "A man is doing something in this video.",
        "The man is doing something in the video!",
    ]
    signal = signals.duplicates([submission(t) for t in texts] + [submission(VARIED[0])])
    assert signal.flagged and signal.value == pytest.approx(4 / 5)
    assert "nearly" in signal.explanation


def test_varied_descriptions_are_not_flagged_for_copied_text():
    signal = signals.duplicates([submission(t) for t in VARIED])
    assert not signal.flagged and signal.value == 0
    assert signal.explanation == "No text is repeated across different segments."


def test_a_few_repeats_among_many_descriptions_are_not_flagged():
    # An honest worker describes two similar videos alike now and then.
    found = [submission(t) for t in VARIED * 1] + [submission(VARIED[0])]
    signal = signals.duplicates(found)
    assert signal.value == pytest.approx(2 / 11) and not signal.flagged


def test_the_same_text_for_the_same_segment_in_both_tiers_is_not_a_copy():
    found = [submission(VARIED[0], segment_id=7), submission(VARIED[0], segment_id=7)]
    assert signals.duplicates(found).value == 0


word_sets = st.lists(
    st.frozensets(st.sampled_from("abcdefgh"), min_size=1, max_size=6),
    max_size=25,
)


@settings(max_examples=200, deadline=None)
@given(word_sets, st.sampled_from([0.5, 0.8, 1.0]))
def test_similar_pairs_finds_exactly_the_pairs_a_full_comparison_finds(sets, threshold):
    expected = {
        (i, j)
        for i, j in itertools.combinations(range(len(sets)), 2)
        if len(sets[i] & sets[j]) >= threshold * len(sets[i] | sets[j])
    }
    assert set(signals.similar_pairs(sets, threshold)) == expected


HINDI = [
    "एक आदमी गिटार बजा रहा है।",
    "एक महिला टमाटर काट रही है।",
    "दो कुत्ते मैदान में दौड़ रहे हैं।",
    "एक लड़का साइकिल चला रहा है।",
    "बच्चे पानी में तैर रहे हैं।",
]


def test_a_hindi_writer_who_declares_hindi_is_not_flagged_by_language_identification():
    signal = signals.language_match([submission(t, language="hi") for t in HINDI])
    assert signal.value == 0 and not signal.flagged
    assert signal.explanation.startswith("0 of 5 descriptions")


def test_a_worker_who_declares_hindi_but_writes_english_is_flagged():
    found = [submission(t, language="hi") for t in VARIED[:5]]
    signal = signals.language_match(found)
    assert signal.flagged and signal.value == 1.0
    assert "read as English" in signal.explanation
    assert signal.examples[0]["note"] == "declared Hindi, reads as English"


def test_work_in_a_language_the_study_did_not_ask_for_is_flagged():
    found = [submission(t, language="en", asked=("es",)) for t in VARIED[:5]]
    signal = signals.language_match(found)
    assert signal.flagged and signal.value == 1.0
    assert signal.examples[0]["note"] == "the study asked for Spanish; declared English"


def test_work_in_the_language_the_study_asked_for_is_not_flagged():
    spanish = [
        "Un hombre toca la guitarra en la calle.",
        "Una mujer corta tomates en la cocina.",
        "Un perro corre detrás de una pelota.",
    ]
    found = [submission(t, language="es", asked=("es",)) for t in spanish]
    assert signals.language_match(found).value == 0


def test_a_language_typed_by_name_or_with_a_region_is_identified():
    found = [
        submission("Un hombre toca la guitarra en la calle.", language="Spanish"),
        submission("A man is playing a guitar on the street.", language="en-gb"),
        submission("一个男人在弹吉他。", language="zh-hans"),
    ]
    assert signals.language_match(found).value == 0


def test_a_language_the_identifier_does_not_know_is_not_checked():
    signal = signals.language_match([submission("tlhIngan Hol Dajatlh'a'?", language="Klingon")])
    assert signal.value is None and not signal.flagged
    assert "Klingon" in signal.explanation


def test_a_worker_who_submits_in_2_s_on_a_10_s_segment_is_flagged_for_speed():
    found = [submission(t, seconds=2, segment_seconds=10) for t in VARIED[:3]]
    signal = signals.speed(found)
    assert signal.flagged and signal.value == pytest.approx(0.2)
    assert "cannot have watched it" in signal.explanation
    assert signal.examples[0]["note"] == "2 s on a 10 s segment"


def test_a_worker_who_watches_the_segment_and_writes_is_not_flagged_for_speed():
    found = [submission(t, seconds=35, segment_seconds=10) for t in VARIED[:3]]
    found.append(submission(VARIED[3], seconds=3, segment_seconds=10))  # one quick one
    signal = signals.speed(found)
    assert not signal.flagged and signal.value == pytest.approx(3.5)


def test_agreement_over_one_description_is_counted_in_the_singular():
    one = [submission(VARIED[0], bleu=20.0, cluster_bleu=30.0, pinc=50.0, cluster_pinc=60.0)]
    assert "over 1 description, against" in signals.cluster_bleu(one).explanation
    assert "over 1 description, against" in signals.pinc(one).explanation


def test_speed_is_not_judged_without_timings():
    assert signals.speed([submission(VARIED[0])]).value is None


def test_a_time_of_zero_is_no_timing_and_raises_no_flag():
    signal = signals.speed([submission(t, seconds=0, segment_seconds=10) for t in VARIED[:3]])
    assert signal.value is None and not signal.flagged


def test_a_short_real_time_never_reads_as_zero_times_the_segment():
    found = [submission(t, seconds=0.1, segment_seconds=10) for t in VARIED[:3]]
    signal = signals.speed(found)
    assert signal.flagged and "0.0×" not in signal.explanation
    assert "median 0.01× the segment's length" in signal.explanation


@pytest.mark.parametrize(
    "ratio, shown", [(3.46, "3.5×"), (0.1, "0.1×"), (0.0123, "0.012×"), (0.0, "—"), (None, "—")]
)
def test_a_time_ratio_is_shown_with_its_digits(ratio, shown):
    assert signals.times(ratio) == shown


def test_a_worker_who_misspells_is_flagged_and_the_words_are_shown():
    found = [
        submission("A man is plaing a gitar in the kichen."),
        submission("A woman is cuting a tomatoe."),
    ]
    signal = signals.spelling(found)
    assert signal.flagged and signal.value == pytest.approx(5 / 15)
    assert signal.examples[0]["note"] == "unknown: plaing, gitar, kichen"


def test_careful_writing_and_names_inside_a_sentence_are_not_misspellings():
    found = [submission(t) for t in VARIED] + [submission("Barack Obama waves at Kichijoji.")]
    signal = signals.spelling(found)
    assert signal.value == 0 and not signal.flagged


def test_spelling_is_not_checked_in_a_language_without_a_dictionary():
    signal = signals.spelling([submission(t, language="hi") for t in HINDI])
    assert signal.value is None and "Hindi" in signal.explanation


@pytest.mark.parametrize(
    "text, language, kinds",
    [
        ("A man is playing a guitar.", "en", []),
        ("Someone cooks.", "en", []),
        ("A man on a horse.", "en", ["no verb"]),
        ("nice video", "en", ["small first letter", "no verb"]),
        ("Guitar", "en", ["too short", "no verb"]),
        ("A MAN IS RUNNING.", "en", ["in capitals"]),
        ("A woman slicing onions.", "en", []),
        ("People dance in the street.", "en", []),
        ("The cat sat on the mat.", "en", []),
        (" ".join(["word"] * 40), "en", ["too long", "small first letter", "no verb"]),
        ("un hombre toca la guitarra.", "es", ["small first letter"]),
        ("एक आदमी गिटार बजा रहा है।", "hi", []),
        ("一个男人在弹吉他。", "zh-hans", []),
        ("猫。", "zh-hans", ["too short"]),
    ],
)
def test_sentence_shape_names_what_is_wrong(text, language, kinds):
    assert [kind for kind, _ in text_checks.shape_problems(text, language)] == kinds


def test_a_worker_whose_descriptions_are_fragments_is_flagged_for_shape():
    found = [submission(t) for t in ["nice video", "A man on a horse.", "Guitar", VARIED[0]]]
    signal = signals.sentence_shape(found)
    assert signal.flagged and signal.value == pytest.approx(3 / 4)
    assert "Most often: no verb (3)" in signal.explanation


def test_an_off_topic_writer_scores_low_bleu_against_their_clusters():
    found = [submission(t, bleu=5.0, cluster_bleu=40.0) for t in VARIED[:3]]
    signal = signals.cluster_bleu(found)
    assert signal.flagged and signal.value == pytest.approx(5.0)
    assert "against 40.0" in signal.explanation and "off-topic" in signal.explanation


def test_bleu_is_not_judged_on_fewer_than_three_scored_descriptions():
    found = [submission(t, bleu=5.0, cluster_bleu=40.0) for t in VARIED[:2]]
    assert not signals.cluster_bleu(found).flagged


def test_an_on_topic_writer_is_not_flagged_for_bleu_or_pinc():
    found = [
        submission(t, bleu=38.0, cluster_bleu=40.0, pinc=70.0, cluster_pinc=75.0)
        for t in VARIED[:5]
    ]
    assert not signals.cluster_bleu(found).flagged
    assert not signals.pinc(found).flagged


def test_a_writer_who_repeats_others_wording_scores_low_pinc():
    found = [submission(t, pinc=10.0, cluster_pinc=75.0) for t in VARIED[:3]]
    signal = signals.pinc(found)
    assert signal.flagged and "word for word" in signal.explanation


def test_rejections_count_only_reviewed_work():
    found = [
        submission(VARIED[0], status="rejected"),
        submission(VARIED[1], status="accepted"),
        submission(VARIED[2], status="pending"),
    ]
    signal = signals.rejections(found)
    assert signal.value == pytest.approx(0.5) and signal.flagged
    assert signal.explanation == "1 of 2 reviewed descriptions (50%) were rejected."


def test_every_signal_explains_itself_even_with_nothing_to_go_on():
    for found in ([], [submission(VARIED[0])]):
        computed = signals.worker_signals(found)
        assert [signal.key for signal in computed] == list(signals.SIGNALS)
        assert all(signal.explanation.strip() for signal in computed)
        assert not any(signal.flagged for signal in computed)


def test_declared_languages_are_listed_most_used_first():
    found = [submission("x", language="hi")] + [submission("y", language="en")] * 2
    assert signals.declared_languages(found) == ["en", "hi"]


def test_near_copies_are_looked_for_among_the_latest_texts_and_exact_ones_among_all(
    monkeypatch,
):
    monkeypatch.setattr(signals, "NEAR_DUPLICATE_WINDOW", 3)
    found = [
        submission("A man is doing something in the video."),
        submission("A man is doing something in this video."),  # a near-copy, too old
        submission(VARIED[0]),
        submission(VARIED[1]),
        submission(VARIED[2]),
        submission("A man is doing something in the video."),  # an exact copy
    ]
    signal = signals.duplicates(found)
    assert signal.value == pytest.approx(2 / 6)
    assert "latest 3 different texts" in signal.explanation


def test_british_spellings_are_english_too():
    sentence = (
        "A man in a grey jumper organised the colourful theatre programme at the centre, "
        "then realised his favourite neighbours travelled by aluminium catalogue."
    )
    assert text_checks.misspelt_words(sentence, "en") == []
    assert text_checks.misspelt_words("A man is plaing the gitar.", "en") == ["plaing", "gitar"]
