"""How a description came into its box, in a real browser: a real paste (from the clipboard,
with Ctrl+V) is flagged in review, text typed key by key at a person's pace is not, a text
written while the worker was in another tab is shown but never counted against them, and where
staff forbid pasting the page blocks it."""

from pathlib import Path

import pytest
from django.core.files import File
from playwright.sync_api import expect

from collector.models import Description, Segment
from collector.services.typing import TYPING_CHECK
from crowd.models import AuditEntry, HitType, QualityCheck
from tests.factories import make_segment, make_staff, make_worker

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

CLIP = Path(__file__).resolve().parents[2] / "demo" / "clip.webm"
PASTED = "A test card is shown while a steady tone plays."
TYPED = "A test card with coloured bars is on the screen."
# Between two key presses, 120 ms on average: about 8 characters a second, a quick typist's
# pace (the browser can only be slower, never faster). And unevenly, as a person's keys come
# (letters, words, thought): the gaps spread about half their mean, far from the even rhythm of
# a driver's fixed delay (provenance.EVEN_KEYS_VARIATION), whatever the machine's jitter adds.
PERSON_GAPS_MS = (60, 190, 95, 230, 70, 140, 45, 130)


def type_as_a_person(page, text):
    """Type ``text`` key by key at a person's uneven rhythm."""
    for index, character in enumerate(text):
        page.keyboard.type(character)
        page.wait_for_timeout(PERSON_GAPS_MS[index % len(PERSON_GAPS_MS)])


@pytest.fixture
def hosted_segment(media_root):
    with CLIP.open("rb") as clip:
        return make_segment(
            source=Segment.Source.FILE,
            youtube_id="",
            video_file=File(clip, name="clip.webm"),
            start=2,
            end=3,
        )


def log_in(page, username, next_url=""):
    page.context.clear_cookies()
    page.goto(f"/accounts/login/?next={next_url}" if next_url else "/accounts/login/")
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill("correct horse battery")
    page.get_by_role("button", name="Log in").click()


def open_task(page):
    page.get_by_role("button", name="Describe a video · Tier 1").click()
    page.wait_for_function(
        "() => location.pathname.startsWith('/describe/') && document.readyState === 'complete'"
    )
    return page.get_by_label("Your one-sentence description")


def paste(page, box, text):
    """A genuine paste: the text goes on the clipboard, and Ctrl+V pastes it into the box."""
    page.evaluate("text => navigator.clipboard.writeText(text)", text)
    box.focus()
    page.keyboard.press("ControlOrMeta+V")


def leave_for_another_tab(page, *, away_ms):
    """The worker opens another tab, stays ``away_ms`` on the page's clock, and comes back.

    Playwright tells every page it has the focus, whichever tab is in front; with that turned
    off for this page (Chromium's focus emulation), opening a second tab takes the window's
    focus from it and bringing it back to the front returns it, so the page sees the real
    ``blur`` and ``focus`` a tab switch fires. (Headless Chromium keeps every tab visible, so
    ``visibilitychange`` does not fire.) The time away passes on the page's installed clock,
    not by waiting."""
    page.context.new_cdp_session(page).send(
        "Emulation.setFocusEmulationEnabled", {"enabled": False}
    )
    other = page.context.new_page()
    try:
        other.bring_to_front()
        page.wait_for_function("() => !document.hasFocus()")
        page.clock.fast_forward(away_ms)
        page.bring_to_front()
        page.wait_for_function("() => document.hasFocus()")
    finally:
        other.close()


def submit(page):
    page.get_by_role("button", name="Submit and back to my work").click()
    expect(page.get_by_text("Thank you! Your description was saved.")).to_be_visible()


def test_pasted_text_is_flagged_in_review_and_typed_text_is_not(page, hosted_segment):
    make_worker(username="paula")
    make_worker(username="tom")
    make_staff(username="ada")
    page.context.grant_permissions(["clipboard-read", "clipboard-write"])

    log_in(page, "paula")
    box = open_task(page)
    paste(page, box, PASTED)
    expect(box).to_have_value(PASTED)
    submit(page)

    log_in(page, "tom")
    box = open_task(page)
    box.click()
    type_as_a_person(page, TYPED)
    submit(page)

    pasted = Description.objects.get(text=PASTED)
    typed = Description.objects.get(text=TYPED)
    assert (pasted.typing_pastes, pasted.typing_pasted_characters) == (1, len(PASTED))
    assert pasted.typing_signals == ["pasted"]
    assert typed.typing_pastes == 0
    assert typed.typing_key_presses == len(TYPED)
    assert typed.typing_signals == []

    log_in(page, "ada", next_url="/review/descriptions/")
    expect(page.get_by_role("heading", level=1)).to_have_text("Review descriptions")
    expect(page.locator(f"#typing-{pasted.pk}")).to_contain_text("⚑ Most of the text was pasted")
    expect(page.locator(f"#typing-{pasted.pk}")).to_contain_text("1 paste")
    expect(page.locator(f"#typing-{typed.pk}")).to_contain_text("Typed on the page")
    expect(page.locator(f"#typing-{typed.pk}")).not_to_contain_text("⚑")


def test_text_written_in_the_background_is_shown_in_review_and_never_counted(page, hosted_segment):
    worker = make_worker(username="wendy")
    make_staff(username="ada")
    # Installed before the task page opens, so the page times everything on this clock.
    page.clock.install()

    log_in(page, "wendy")
    box = open_task(page)
    box.click()
    type_as_a_person(page, TYPED[:24])
    leave_for_another_tab(page, away_ms=120_000)
    box.focus()
    box.press("End")
    type_as_a_person(page, TYPED[24:])
    submit(page)

    description = Description.objects.get()
    assert description.text == TYPED
    assert description.typing_focus_losses == 1
    # Two minutes away, against a few seconds of typing either side.
    assert description.typing_background_ms >= 120_000
    assert description.typing_signals == ["background"]
    # Shown, never counted: no failed typing check, so the warn/stop rule has nothing to act on.
    assert not QualityCheck.objects.filter(worker=worker, kind=TYPING_CHECK).exists()
    assert not AuditEntry.objects.filter(worker=worker).exists()

    log_in(page, "ada", next_url="/review/descriptions/")
    expect(page.get_by_role("heading", level=1)).to_have_text("Review descriptions")
    cell = page.locator(f"#typing-{description.pk}")
    expect(cell).to_contain_text("⚑ Written with the page in the background")
    expect(cell).to_contain_text("page left 1×")
    expect(cell.locator(".typing-provenance")).to_have_attribute("data-typing", "background")


def test_where_pasting_is_forbidden_the_page_says_so_and_blocks_the_paste(page, hosted_segment):
    HitType.objects.filter(kind=HitType.Kind.DESCRIPTION).update(paste_allowed=False)
    make_worker(username="paula")
    page.context.grant_permissions(["clipboard-read", "clipboard-write"])

    log_in(page, "paula")
    box = open_task(page)
    expect(page.locator("#paste-rule")).to_have_text(
        "Pasting is turned off for this task: type your description yourself."
    )
    paste(page, box, PASTED)
    expect(box).to_have_value("")
    expect(page.locator("#id_text_error")).to_contain_text("Pasting is turned off")

    type_as_a_person(page, TYPED)
    submit(page)
    typed = Description.objects.get()
    assert typed.text == TYPED
    assert (typed.typing_pastes, typed.typing_signals) == (0, [])


def test_without_javascript_a_description_is_stored_and_reviewed_as_not_recorded(
    browser, live_server, hosted_segment
):
    make_worker(username="nora")
    make_staff(username="ada")
    context = browser.new_context(base_url=live_server.url, java_script_enabled=False)
    try:
        page = context.new_page()
        log_in(page, "nora")
        page.get_by_role("button", name="Describe a video · Tier 1").click()
        page.get_by_label("Your one-sentence description").fill(TYPED)
        submit(page)
        description = Description.objects.get()
        assert (description.typing_signals, description.typing_record) == (["unknown"], None)

        log_in(page, "ada", next_url="/review/descriptions/")
        cell = page.locator(f"#typing-{description.pk}")
        expect(cell).to_contain_text("Not recorded")
        expect(cell).not_to_contain_text("Typed on the page")
    finally:
        context.close()


def test_a_page_shown_again_after_a_refusal_goes_on_from_the_record_so_far(page, hosted_segment):
    make_worker(username="tom")
    log_in(page, "tom")
    box = open_task(page)
    box.click()
    # Refused by the server only (the page does not check it): the page comes back with the text.
    type_as_a_person(page, "- " + TYPED)
    page.get_by_role("button", name="Submit and back to my work").click()
    expect(page.locator("#id_text_error")).to_contain_text("Start your sentence with a word")
    assert not Description.objects.exists()

    # Two deletions make it right: the text was still typed, key by key, on the page.
    box.press("Home")
    box.press("Delete")
    box.press("Delete")
    submit(page)
    description = Description.objects.get()
    assert description.text == TYPED
    assert description.typing_key_presses >= len(TYPED) + 2
    assert description.typing_signals == []
