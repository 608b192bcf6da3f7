"""A worker aligns the words of two sentences in a real browser: mouse, keys, drag, touch."""

import re
import time

import pytest
from django.conf import settings
from django.test import Client
from playwright.sync_api import expect

from annotations.models import Alignment, SentencePair
from crowd.services import hits_open
from paracrowd_metrics.alignment import parse_pharaoh
from tests.factories import make_staff, make_worker

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

A = ["A", "man", "is", "playing", "a", "guitar", "."]
B = ["A", "guy", "plays", "the", "guitar", "."]
# Long enough that the grid scrolls sideways inside its box on a phone.
LONG_A = ["A", "man", "with", "a", "hat", "is", "playing", "an", "old", "guitar", "on", "a"]
LONG_A += ["small", "stage", "."]
LONG_B = ["Someone", "strums", "a", "guitar", "for", "the", "crowd", "."]


# dispatchEvent answers false when a listener cancelled the event.
SUBMIT_TWICE = """() => {
    const form = document.getElementById("alignment-form");
    const submit = () => form.dispatchEvent(new SubmitEvent("submit", {cancelable: true}));
    return [submit(), submit(), document.getElementById("align-submit").disabled];
}"""


def open_pair(tokens_a, tokens_b, pre_alignment):
    pair = SentencePair.objects.create(
        origin=SentencePair.Origin.IMPORT,
        import_key=" ".join(tokens_a),
        tokens_a=tokens_a,
        tokens_b=tokens_b,
        pre_alignment=pre_alignment,
    )
    hits_open(rows=SentencePair.objects.filter(pk=pair.pk), kind="alignment")
    return pair


def log_in(page, live_server, user=None):
    """Sign a new worker (or ``user``) in by giving the browser the session cookie of a
    logged-in client."""
    client = Client()
    client.force_login(user or make_worker().user)
    session = client.cookies[settings.SESSION_COOKIE_NAME].value
    page.context.add_cookies(
        [{"name": settings.SESSION_COOKIE_NAME, "value": session, "url": live_server.url}]
    )


def open_task_from_the_dashboard(page):
    page.goto("/dashboard/")
    page.get_by_role("button", name="Align two sentences · Tier 1").click()
    expect(page.get_by_role("grid", name="Alignment grid")).to_be_visible()


def cell(page, name):
    return page.get_by_role("grid").get_by_role("button", name=re.compile("^" + re.escape(name)))


@pytest.fixture
def phone(browser, live_server):
    context = browser.new_context(
        base_url=live_server.url, viewport={"width": 390, "height": 844}, has_touch=True
    )
    page = context.new_page()
    page.set_default_timeout(10_000)
    script_errors = []
    page.on("pageerror", lambda error: script_errors.append(error))
    yield page
    context.close()
    assert not script_errors, f"a page script failed: {script_errors}"


def test_a_worker_corrects_the_pre_alignment_with_mouse_and_keys(page, live_server):
    open_pair(A, B, "0-0 5-4 6-5")
    log_in(page, live_server)
    open_task_from_the_dashboard(page)

    # The pre-alignment is the starting point; "is" has no link yet.
    expect(cell(page, "guitar ↔ guitar: sure")).to_have_class(re.compile(r"\bS\b"))
    expect(page.get_by_role("rowheader", name="is, unaligned")).to_be_visible()
    expect(page.locator("#align-count")).to_contain_text("3 links (3 sure, 0 possible)")
    assert page.locator("#alignment-grid [tabindex='0']").count() == 1

    cell(page, "man ↔ guy: none").click()
    expect(cell(page, "man ↔ guy: sure, changed from none")).to_have_class(re.compile("changed"))
    expect(page.get_by_role("button", name="man: sure to guy")).to_be_visible()

    # From man ↔ guy, down to "is", right to "plays", P for possible.
    page.keyboard.press("ArrowDown")
    page.keyboard.press("ArrowRight")
    expect(cell(page, "is ↔ plays: none")).to_be_focused()
    page.keyboard.press("p")
    expect(cell(page, "is ↔ plays: possible, changed from none")).to_be_focused()
    expect(page.get_by_role("rowheader", name="is", exact=True)).to_be_visible()
    expect(page.locator("#align-count")).to_contain_text("5 links (4 sure, 1 possible) · 2 cells")

    # A second submit event while the first is on its way is cancelled, and the button is
    # disabled; coming back to the page (Back button) makes it usable again. Events sent by
    # script submit nothing, so the page stays.
    assert page.evaluate(SUBMIT_TWICE) == [True, False, True]
    page.evaluate("window.dispatchEvent(new PageTransitionEvent('pageshow', {persisted: true}))")
    expect(page.get_by_role("button", name="Submit and next")).to_be_enabled()

    page.get_by_role("button", name="Submit and next").click()
    expect(page.get_by_text("Thank you! Your alignment was saved.")).to_be_visible()
    alignment = Alignment.objects.get()
    assert parse_pharaoh(alignment.links) == parse_pharaoh("0-0 1-1 2p2 5-4 6-5")
    assert (alignment.changed_cells, alignment.unchanged_suggestion) == (2, False)


def test_a_pre_alignment_sent_back_as_shown_is_flagged_unchanged_suggestion(page, live_server):
    open_pair(A, B, "0-0 5-4 6-5")
    log_in(page, live_server)
    open_task_from_the_dashboard(page)
    expect(page.locator("#align-count")).to_contain_text("3 links (3 sure, 0 possible)")

    # A change taken back leaves the suggestion as it was shown.
    cell(page, "man ↔ guy: none").click()
    page.get_by_role("button", name="Undo").click()
    expect(page.locator("#links")).to_have_value("0-0 5-4 6-5")
    page.get_by_role("button", name="Submit and next").click()
    expect(page.get_by_text("Thank you! Your alignment was saved.")).to_be_visible()
    alignment = Alignment.objects.get()
    assert (alignment.changed_cells, alignment.unchanged_suggestion) == (0, True)

    # The reviewer sees the flag beside it.
    page.context.clear_cookies()
    log_in(page, live_server, make_staff())
    page.goto("/align/review/")
    expect(page.locator(f"#unchanged-{alignment.pk}")).to_contain_text(
        "Unchanged suggestion (0 cells changed)"
    )


def test_a_drag_marks_a_block_that_one_undo_takes_back(page, live_server):
    open_pair(A, B, "0-0")
    log_in(page, live_server)
    open_task_from_the_dashboard(page)

    # Drag from is ↔ guy to playing ↔ plays: four cells become sure in one step.
    cell(page, "is ↔ guy: none").hover()
    page.mouse.down()
    cell(page, "playing ↔ plays: none").hover()
    page.mouse.up()
    for name in ["is ↔ guy", "is ↔ plays", "playing ↔ guy", "playing ↔ plays"]:
        expect(cell(page, f"{name}: sure")).to_be_visible()
    expect(page.locator("#align-count")).to_contain_text("5 links")
    expect(page.locator("#links")).to_have_value("0-0 2-1 2-2 3-1 3-2")

    page.get_by_role("button", name="Undo").click()
    expect(page.locator("#links")).to_have_value("0-0")
    expect(page.get_by_role("button", name="Undo")).to_be_disabled()

    # Ctrl+Z takes back a key press; Reset goes back to the pre-alignment in one step.
    cell(page, "A ↔ A: sure").press("n")
    expect(page.locator("#links")).to_have_value("")
    page.keyboard.press("Control+z")
    expect(page.locator("#links")).to_have_value("0-0")
    cell(page, "man ↔ guy: none").press("s")
    cell(page, "man ↔ guy: sure").press("Enter")
    expect(page.locator("#links")).to_have_value("0-0 1p1")
    page.get_by_role("button", name="Reset to the pre-alignment").click()
    expect(page.locator("#links")).to_have_value("0-0")


def test_the_grid_works_by_touch_on_a_phone(phone, live_server):
    open_pair(LONG_A, LONG_B, "9-3 14-7")
    log_in(phone, live_server)
    open_task_from_the_dashboard(phone)

    # The grid scrolls inside its box; the page itself does not.
    grid_box = phone.locator("#alignment-grid")
    assert grid_box.evaluate("box => box.scrollWidth > box.clientWidth")
    assert phone.evaluate("document.documentElement.scrollWidth <= window.innerWidth")

    cell(phone, "man ↔ Someone: none").tap()
    expect(cell(phone, "man ↔ Someone: sure")).to_be_visible()
    cell(phone, "man ↔ Someone: sure").tap()
    expect(cell(phone, "man ↔ Someone: possible")).to_be_visible()
    expect(phone.locator("#links")).to_have_value("1p0 9-3 14-7")

    # A finger dragged from is ↔ Someone to playing ↔ strums marks the block sure.
    touch_drag(phone, cell(phone, "is ↔ Someone: none"), cell(phone, "playing ↔ strums: none"))
    expect(phone.locator("#links")).to_have_value("1p0 5-0 5-1 6-0 6-1 9-3 14-7")
    phone.get_by_role("button", name="Undo").tap()
    expect(phone.locator("#links")).to_have_value("1p0 9-3 14-7")


def touch_drag(page, start, end):
    """Touch down on one element, slide to another, rest, lift: real touch input via DevTools.

    The events carry timestamps a tenth of a second apart, as a finger would; sent back to
    back they look like a fling, and Chromium then swallows the next tap."""
    start.scroll_into_view_if_needed()
    end.scroll_into_view_if_needed()
    (x0, y0), (x1, y1) = (
        (box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
        for box in (start.bounding_box(), end.bounding_box())
    )
    moves = [("touchStart", x0, y0), ("touchMove", (x0 + x1) / 2, (y0 + y1) / 2)]
    moves += [("touchMove", x1, y1), ("touchMove", x1, y1)]
    devtools = page.context.new_cdp_session(page)
    now = time.time()
    for step, (kind, x, y) in enumerate(moves):
        devtools.send(
            "Input.dispatchTouchEvent",
            {"type": kind, "touchPoints": [{"x": x, "y": y}], "timestamp": now + step / 10},
        )
    devtools.send(
        "Input.dispatchTouchEvent",
        {"type": "touchEnd", "touchPoints": [], "timestamp": now + len(moves) / 10},
    )
    devtools.detach()
