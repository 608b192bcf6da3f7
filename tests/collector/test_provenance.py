"""collector.provenance: the signals judged from how a text came into its box (plain Python,
no database)."""

from dataclasses import asdict

import pytest

from collector.provenance import (
    BACKGROUND_MINIMUM_MS,
    MAX_COUNT,
    MAX_MILLISECONDS,
    TypingRecord,
    signals_labels,
    signals_text,
    typing_signals,
)

TEXT = "A woman is slicing some tomatoes on a board."  # 44 characters


def record(**changes) -> TypingRecord:
    """A sentence typed key by key at about six characters a second, on the page."""
    typed = {
        "key_presses": len(TEXT) + 3,  # a few corrections
        "pastes": 0,
        "pasted_characters": 0,
        "first_key_ms": 4_000,
        "writing_ms": 7_500,
        "focus_losses": 0,
        "background_ms": 0,
    }
    return TypingRecord(**{**typed, **changes})


class Stored:
    """A row as the database gives it back, the page's counts under ``typing_`` names."""

    def __init__(self, values):
        for name, value in values.items():
            setattr(self, f"typing_{name}", value)


def test_a_text_without_a_record_is_unknown_never_clean():
    assert typing_signals(None, TEXT) == ["unknown"]
    assert signals_text(typing_signals(None, TEXT)) == "unknown"


def test_a_text_typed_at_a_persons_pace_on_the_page_raises_nothing():
    assert typing_signals(record(), TEXT) == []
    assert signals_text([]) == "clean"


def test_a_text_mostly_pasted_is_flagged_pasted():
    pasted = record(key_presses=2, pastes=1, pasted_characters=len(TEXT), writing_ms=0)
    assert typing_signals(pasted, TEXT) == ["pasted"]
    assert signals_labels(["pasted"]) == ["Most of the text was pasted"]


def test_a_pasted_word_in_a_typed_sentence_is_not_flagged():
    assert typing_signals(record(pastes=1, pasted_characters=8), TEXT) == []


def test_a_text_that_came_faster_than_anyone_types_is_flagged_too_fast():
    assert typing_signals(record(writing_ms=1_000), TEXT) == ["too_fast"]


def test_a_text_that_appeared_without_key_presses_or_pastes_is_flagged_too_fast():
    assert typing_signals(record(key_presses=0, writing_ms=0), TEXT) == ["too_fast"]
    # Too short to time, but still nearly without a key.
    assert typing_signals(record(key_presses=0, writing_ms=0), "A dog runs.") == ["too_fast"]


def test_a_short_quick_word_is_too_short_to_call_too_fast():
    assert typing_signals(record(key_presses=8, writing_ms=300), "Dog runs") == []


def test_a_text_written_with_the_page_mostly_in_the_background_is_flagged():
    away = record(focus_losses=1, background_ms=12_000, writing_ms=18_000)
    assert typing_signals(away, TEXT) == ["background"]


def test_a_glance_at_another_tab_is_not_writing_in_the_background():
    glance = record(focus_losses=2, background_ms=BACKGROUND_MINIMUM_MS - 1, writing_ms=12_000)
    assert typing_signals(glance, TEXT) == []


def test_signals_come_together_in_a_fixed_order():
    everything = record(
        key_presses=0, pastes=1, pasted_characters=30, writing_ms=14_000, background_ms=12_000
    )
    assert typing_signals(everything, TEXT) == ["pasted", "too_fast", "background"]
    assert signals_text(["pasted", "too_fast", "background"]) == "pasted+too_fast+background"


def test_bounded_clamps_absurd_figures_to_their_bounds():
    absurd = TypingRecord.bounded(**{**asdict(record()), "key_presses": 10**30})
    assert absurd.key_presses == MAX_COUNT
    late = TypingRecord.bounded(**{**asdict(record()), "first_key_ms": 10**12})
    assert late.first_key_ms == MAX_MILLISECONDS


@pytest.mark.parametrize("value", [-1, 1.5, "3", True, None])
def test_bounded_refuses_what_is_not_a_whole_number_of_at_least_zero(value):
    with pytest.raises(ValueError, match="pastes must be a whole number"):
        TypingRecord.bounded(**{**asdict(record()), "pastes": value})


def test_a_stored_record_reads_back_and_a_partial_one_reads_as_none():
    figures = dict(zip(TypingRecord.field_names(), asdict(record()).values(), strict=True))
    assert TypingRecord.from_stored(Stored(figures)) == record()
    assert TypingRecord.from_stored(Stored({**figures, "pastes": None})) is None


def test_characters_an_input_method_wrote_are_typing_not_text_without_keys():
    # Chinese through an IME, or a word per swipe: the page saw no key, every character typed.
    ime = record(key_presses=0, input_method_characters=len(TEXT), writing_ms=2_000)
    assert typing_signals(ime, TEXT) == []


def test_text_neither_keyed_nor_written_by_an_input_method_is_still_too_fast():
    half = record(key_presses=0, input_method_characters=len(TEXT) // 2, writing_ms=20_000)
    assert typing_signals(half, TEXT) == ["too_fast"]


def test_a_record_without_input_method_characters_counts_none():
    figures = asdict(record())
    del figures["input_method_characters"]
    assert TypingRecord.bounded(**figures).input_method_characters == 0
