"""The later typing signals and the canary, in a real browser: a real copy of the task's text
then a paste, a sentence inserted with no key, a script's events, navigator.webdriver, and the
invisible line of the instructions (in the clipboard after a copy, absent from the
accessibility tree, zero width on screen).

A drop is tested both ways: as the browser delivers a person's (Chromium's own drag pipeline,
driven through CDP: trusted, inputType insertFromDrop) and as a script makes one (a DragEvent
with a DataTransfer: untrusted, so counted as a synthetic event)."""

import pytest
from playwright.sync_api import expect

from collector.canary import canary_line, canary_marker
from collector.models import Description
from collector.provenance import LEFT_AFTER_COPY_MINIMUM_MS
from crowd.models import QualityCheck
from tests.browser.conftest import CHROMIUM, CHROMIUM_ARGS
from tests.browser.test_typing_provenance_flow import (
    TYPED,
    hosted_segment,  # noqa: F401 (a fixture)
    leave_for_another_tab,
    log_in,
    open_task,
    submit,
    type_as_a_person,
)
from tests.factories import make_staff, make_worker

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

INSTRUCTIONS = "#instructions-heading + p"


def copy_instructions(page):
    """Select the instructions' paragraph with the mouse's triple click, copy with Ctrl+C, and
    read back what the clipboard holds."""
    page.locator(INSTRUCTIONS).click(click_count=3)
    page.keyboard.press("ControlOrMeta+C")
    return page.evaluate("() => navigator.clipboard.readText()")


def test_a_copy_of_the_instructions_carries_the_invisible_line_and_pasting_it_is_flagged(
    page,
    hosted_segment,  # noqa: F811
):
    make_worker(username="paula")
    make_staff(username="ada")
    page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    log_in(page, "paula")
    box = open_task(page)

    copied = copy_instructions(page)
    assert canary_line() in copied
    assert copied.startswith("Watch the segment")
    # Nothing on screen: the line takes no width, and the paragraph reads as before.
    assert page.locator(f"{INSTRUCTIONS} .canary").bounding_box()["width"] == 0
    # Nor in what a screen reader is given.
    tree = page.locator("body").aria_snapshot()
    assert "Watch the segment" in tree
    assert "\U000e0020" not in tree and canary_marker() not in tree

    # The instructions went to a chatbot, which followed the line: its answer is pasted back.
    answer = f"A {canary_marker()} test card is shown while a tone plays."
    page.evaluate("text => navigator.clipboard.writeText(text)", answer)
    box.focus()
    page.keyboard.press("ControlOrMeta+V")
    submit(page)
    description = Description.objects.get()
    assert description.typing_prompt_copies == 1 and description.typing_pastes_after_copy == 1
    assert "copy_then_paste" in description.typing_signals
    assert "canary" in description.typing_signals
    assert not QualityCheck.objects.filter(details__signals__contains=["canary"]).exists()

    log_in(page, "ada", next_url="/review/descriptions/")
    cell = page.locator(f"#typing-{description.pk}")
    expect(cell).to_contain_text("⚑ Holds the invisible marker of the task's text")
    expect(cell).to_contain_text("⚑ The task's own text was copied, then text was pasted")
    expect(cell).to_contain_text("task's text copied 1×, 1 paste after")


def test_text_typed_by_a_person_raises_none_of_the_later_signals(page, hosted_segment):  # noqa: F811
    make_worker(username="tom")
    log_in(page, "tom")
    box = open_task(page)
    box.click()
    type_as_a_person(page, TYPED)
    submit(page)
    description = Description.objects.get()
    assert description.typing_signals == []
    assert (
        description.typing_prompt_copies,
        description.typing_pastes_after_copy,
        description.typing_inserted_without_keys,
        description.typing_untrusted_events,
        description.typing_webdriver,
        description.typing_left_after_copy,
    ) == (0, 0, 0, 0, 0, 0)


def test_leaving_the_page_right_after_copying_the_sentence_is_noted(page, hosted_segment):  # noqa: F811
    make_worker(username="lea")
    page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    page.clock.install()
    log_in(page, "lea")
    box = open_task(page)
    copy_instructions(page)
    leave_for_another_tab(page, away_ms=30_000)
    box.click()
    type_as_a_person(page, TYPED)
    submit(page)
    description = Description.objects.get()
    assert (description.typing_prompt_copies, description.typing_left_after_copy) == (1, 1)
    assert description.typing_pastes_after_copy == 0
    assert description.typing_signals == ["left_after_copy"]


def test_a_word_looked_up_for_a_moment_after_a_copy_is_not_noted(page, hosted_segment):  # noqa: F811
    # Under LEFT_AFTER_COPY_MINIMUM_MS away: a dictionary, not a chatbot's round trip.
    make_worker(username="lou")
    page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    page.clock.install()
    log_in(page, "lou")
    box = open_task(page)
    copy_instructions(page)
    leave_for_another_tab(page, away_ms=LEFT_AFTER_COPY_MINIMUM_MS - 5_000)
    box.click()
    type_as_a_person(page, TYPED)
    submit(page)
    description = Description.objects.get()
    assert (description.typing_prompt_copies, description.typing_left_after_copy) == (1, 0)
    assert description.typing_signals == []


def test_words_inserted_with_no_key_press_are_counted(page, hosted_segment):  # noqa: F811
    make_worker(username="ines")
    log_in(page, "ines")
    box = open_task(page)
    box.focus()
    # The browser's own insertion of a whole sentence with no key (what autofill or an
    # extension writing through the editing commands does): a trusted insertText.
    page.keyboard.insert_text(TYPED)
    submit(page)
    description = Description.objects.get()
    assert description.typing_key_presses == 0
    assert description.typing_inserted_without_keys == 1
    assert description.typing_untrusted_events == 0
    assert "inserted_no_keys" in description.typing_signals


def test_text_dropped_in_by_the_browser_is_counted_as_inserted_without_keys(page, hosted_segment):  # noqa: F811
    # A person's drop, as the browser delivers it: the drag goes through Chromium's input
    # pipeline (CDP Input.dispatchDragEvent), so the drop and its input event are trusted.
    make_worker(username="dora")
    log_in(page, "dora")
    box = open_task(page)
    where = box.bounding_box()
    x, y = where["x"] + where["width"] / 2, where["y"] + where["height"] / 2
    data = {"items": [{"mimeType": "text/plain", "data": TYPED}], "dragOperationsMask": 1}
    cdp = page.context.new_cdp_session(page)
    for kind in ("dragEnter", "dragOver", "drop"):
        cdp.send("Input.dispatchDragEvent", {"type": kind, "x": x, "y": y, "data": data})
    expect(box).to_have_value(TYPED)
    submit(page)
    description = Description.objects.get()
    assert description.text == TYPED
    assert (description.typing_pastes, description.typing_pasted_characters) == (1, len(TYPED))
    assert description.typing_inserted_without_keys == 1
    assert description.typing_untrusted_events == 0
    assert {"pasted", "inserted_no_keys"} <= set(description.typing_signals)
    assert "synthetic_events" not in description.typing_signals


def test_a_scripts_made_up_events_are_counted_as_synthetic(page, hosted_segment):  # noqa: F811
    make_worker(username="sam")
    log_in(page, "sam")
    box = open_task(page)
    # What an extension or a bot does: set the text and announce it with made-up events (a
    # synthetic drop with a DataTransfer is made up the same way: isTrusted is false).
    box.evaluate(
        """box => {
          box.value = "A card of coloured bars is shown on the screen.";
          box.dispatchEvent(new InputEvent("input", {bubbles: true, inputType: "insertText"}));
          const transfer = new DataTransfer();
          transfer.setData("text/plain", " Then it stops.");
          box.dispatchEvent(new DragEvent("drop", {bubbles: true, dataTransfer: transfer}));
        }"""
    )
    submit(page)
    description = Description.objects.get()
    assert description.typing_untrusted_events == 2
    assert "synthetic_events" in description.typing_signals
    # Flagged for review only: what counts against the worker is the text without keys.
    assert not QualityCheck.objects.filter(details__signals__contains=["synthetic_events"]).exists()


def test_keys_pressed_at_a_drivers_fixed_delay_are_flagged_as_even(page, hosted_segment):  # noqa: F811
    # A driven browser typing at a person's pace with a fixed delay between keys, the page's
    # clock advanced exactly that delay per key: an even rhythm, flagged for review only.
    make_worker(username="eve")
    page.clock.install()
    log_in(page, "eve")
    box = open_task(page)
    box.click()
    page.clock.pause_at(page.evaluate("() => Date.now()") + 1_000)
    for character in TYPED:
        page.keyboard.type(character)
        page.clock.run_for(125)
    submit(page)
    description = Description.objects.get()
    assert description.typing_key_intervals == len(TYPED) - 1
    assert description.typing_key_interval_variation == 0
    assert description.typing_signals == ["even_keys"]
    assert not QualityCheck.objects.exists()


def test_a_browser_driven_by_automation_is_recorded_as_webdriver(
    browser,
    live_server,
    hosted_segment,  # noqa: F811
):
    make_worker(username="robin")
    # The suite's browser hides automation; this one, launched as Playwright launches it,
    # reports navigator.webdriver true.
    args = [arg for arg in CHROMIUM_ARGS if "AutomationControlled" not in arg]
    automated = browser.browser_type.launch(executable_path=CHROMIUM, args=args)
    try:
        page = automated.new_page(base_url=live_server.url)
        assert page.evaluate("navigator.webdriver") is True
        log_in(page, "robin")
        box = open_task(page)
        box.click()
        type_as_a_person(page, TYPED)
        submit(page)
    finally:
        automated.close()
    description = Description.objects.get()
    assert description.typing_webdriver == 1
    assert description.typing_signals == ["webdriver"]
