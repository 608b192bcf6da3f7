"""Typing through an input method is typing, in a real browser: Chinese written through an
IME's compositions, and English written a word per swipe, are stored unflagged; a whole
sentence inserted at once without a key is still text that appeared without being typed.

The browser's DevTools protocol drives the input methods as the operating system would:
``Input.imeSetComposition`` shows an IME's composition in the box and ``Input.insertText``
commits it, and, with no composition open, inserts a word as a swipe keyboard does (one
``insertText`` input event, no key event). See
https://chromedevtools.github.io/devtools-protocol/tot/Input/#method-imeSetComposition and
#method-insertText."""

import pytest
from playwright.sync_api import expect

from collector.models import Description
from collector.services.typing import TYPING_CHECK
from crowd.models import QualityCheck
from tests.browser import test_typing_provenance_flow as provenance_flow
from tests.browser.test_typing_provenance_flow import log_in, open_task, submit
from tests.factories import make_staff, make_worker

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# Pinyin typed into the IME, each with what it commits: one sentence of 21 characters, more
# than the speed rule times, written without a key event the page can see.
COMPOSITIONS = [
    ("yige", "一个"),
    ("nanren", "男人"),
    ("zuozai", "坐在"),
    ("yizi", "椅子"),
    ("shang", "上"),
    ("tan", "弹"),
    ("jita", "吉他"),
    (",", "，"),
    ("pangbian", "旁边"),
    ("de", "的"),
    ("xiaogou", "小狗"),
    ("zai", "在"),
    ("ting", "听"),
    (".", "。"),
]
CHINESE = "".join(committed for _, committed in COMPOSITIONS)
hosted_segment = provenance_flow.hosted_segment  # the fixture: a hosted clip to describe
SWIPED = "A man sits on a chair and plays the guitar to his dog."


def compose(cdp, pinyin, committed):
    """One IME composition: the pinyin grows letter by letter in the box, the IME offers the
    characters, and the worker's choice is committed."""
    for end in range(1, len(pinyin) + 1):
        shown = pinyin[:end]
        cdp.send(
            "Input.imeSetComposition",
            {"text": shown, "selectionStart": len(shown), "selectionEnd": len(shown)},
        )
    cdp.send(
        "Input.imeSetComposition",
        {"text": committed, "selectionStart": len(committed), "selectionEnd": len(committed)},
    )
    cdp.send("Input.insertText", {"text": committed})


def test_chinese_written_through_an_ime_is_typing_and_is_not_flagged(page, hosted_segment):
    worker = make_worker(username="mei")
    make_staff(username="ada")
    log_in(page, "mei")
    box = open_task(page)
    page.get_by_label("Language of your description").select_option("zh-hans")
    box.click()
    cdp = page.context.new_cdp_session(page)
    for pinyin, committed in COMPOSITIONS:
        compose(cdp, pinyin, committed)
    expect(box).to_have_value(CHINESE)
    submit(page)

    description = Description.objects.get()
    assert description.text == CHINESE
    assert (description.typing_pastes, description.typing_pasted_characters) == (0, 0)
    assert description.typing_input_method_characters == len(CHINESE)
    assert description.typing_signals == []
    assert not QualityCheck.objects.filter(worker=worker, kind=TYPING_CHECK).exists()

    log_in(page, "ada", next_url="/review/descriptions/")
    cell = page.locator(f"#typing-{description.pk}")
    expect(cell).to_contain_text("Typed on the page")
    expect(cell).to_contain_text(f"{len(CHINESE)} characters by input method")
    expect(cell).not_to_contain_text("⚑")


def test_english_written_a_word_per_swipe_is_typing_and_is_not_flagged(page, hosted_segment):
    worker = make_worker(username="sam")
    log_in(page, "sam")
    box = open_task(page)
    box.click()
    cdp = page.context.new_cdp_session(page)
    words = SWIPED.split(" ")
    for number, word in enumerate(words):
        # A swipe keyboard writes the word and the space after it, with no key event.
        cdp.send("Input.insertText", {"text": word if number == len(words) - 1 else word + " "})
    expect(box).to_have_value(SWIPED)
    submit(page)

    description = Description.objects.get()
    assert description.typing_key_presses == 0
    assert description.typing_input_method_characters == len(SWIPED)
    assert description.typing_signals == []
    assert not QualityCheck.objects.filter(worker=worker, kind=TYPING_CHECK).exists()


def test_a_whole_sentence_inserted_without_a_key_is_still_flagged(page, hosted_segment):
    worker = make_worker(username="bot")
    log_in(page, "bot")
    box = open_task(page)
    box.click()
    page.context.new_cdp_session(page).send("Input.insertText", {"text": SWIPED})
    submit(page)

    description = Description.objects.get()
    assert description.typing_input_method_characters == 0
    assert description.typing_signals == ["too_fast", "inserted_no_keys"]
    assert QualityCheck.objects.filter(worker=worker, kind=TYPING_CHECK, passed=False).exists()
