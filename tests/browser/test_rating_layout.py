"""The rating page fits one laptop screen: the clip, every scale and the submit button are in
view at 1280×800 without scrolling, and the instructions come before the controls."""

from pathlib import Path

import pytest
from playwright.sync_api import expect

from research.ratings.batches import ItemDraft
from tests.browser.test_rating_flow import log_in
from tests.factories import make_segment
from tests.research.ratings import make_batch

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

FAKE_YOUTUBE = (Path(__file__).parent / "fake_youtube_iframe_api.js").read_text()


def open_rating_page(page, live_server):
    page.context.route(
        "https://www.youtube.com/iframe_api",
        lambda route: route.fulfill(body=FAKE_YOUTUBE, content_type="text/javascript"),
    )
    segment = make_segment()
    make_batch(
        items=[
            ItemDraft(
                "A man in a red jacket plays an old guitar on a street corner.",
                "Someone wearing a red coat is strumming a worn guitar at a street corner.",
                segment.pk,
            )
        ],
        show_video=True,
    )
    log_in(page, live_server)
    page.set_viewport_size({"width": 1280, "height": 800})
    page.goto("/dashboard/")
    page.get_by_role("button", name="Rate paraphrases · Tier 1").click()
    page.wait_for_load_state()


def in_view(locator):
    box = locator.bounding_box()
    assert box is not None, locator
    return box["y"] >= 0 and box["y"] + box["height"] <= 800 and box["x"] + box["width"] <= 1280


def test_the_clip_every_scale_and_the_submit_button_fit_one_screen_at_1280_by_800(
    page, live_server
):
    open_rating_page(page, live_server)
    expect(page.locator("#player")).to_be_visible()
    assert page.evaluate("window.scrollY") == 0
    assert in_view(page.locator("#player"))
    assert in_view(page.locator("#play-segment"))
    for name in ("Meaning", "Wording", "Overall"):
        for radio in page.get_by_role("group", name=name).get_by_role("radio").all():
            assert in_view(radio), name
    assert in_view(page.get_by_role("button", name="Submit and next"))
    assert in_view(page.locator("#rating-source"))
    assert in_view(page.locator("#rating-candidate"))


def test_the_instructions_come_before_every_control_of_the_task(page, live_server):
    open_rating_page(page, live_server)
    instructions_first = page.evaluate(
        """() => {
          const instructions = document.getElementById('guidelines-heading');
          const controls = document.querySelectorAll('main button, main input[type=radio]');
          return [...controls].every(control =>
            instructions.compareDocumentPosition(control) & Node.DOCUMENT_POSITION_FOLLOWING);
        }"""
    )
    assert instructions_first
