"""A field's error, shown by the page's script, is announced along with its help text."""

from pathlib import Path

import pytest
from django.core.files import File
from playwright.sync_api import expect

from collector.models import Segment
from tests.factories import make_segment, make_worker

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

HERE = Path(__file__).resolve().parent
CLIP = HERE.parents[1] / "demo" / "clip.webm"
FAKE_YOUTUBE = (HERE / "fake_youtube_iframe_api.js").read_text()


def log_in(page, username):
    page.goto("/accounts/login/")
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill("correct horse battery")
    page.get_by_role("button", name="Log in").click()


def described_by(page, field_id):
    """The ids in the field's aria-describedby, each checked to name an element on the page."""
    ids = (page.locator(f"#{field_id}").get_attribute("aria-describedby") or "").split()
    for described in ids:
        assert page.locator(f"#{described}").count() == 1, f"{described} is not on the page"
    return ids


def help_ids(page, field_id):
    return [f"{field_id}_helptext"] if page.locator(f"#{field_id}_helptext").count() else []


def test_a_description_error_is_announced_with_the_fields_help(page, media_root):
    with CLIP.open("rb") as clip:
        make_segment(
            source=Segment.Source.FILE,
            youtube_id="",
            video_file=File(clip, name="clip.webm"),
            start=2,
            end=3,
        )
    make_worker(username="wanda")
    log_in(page, "wanda")
    page.get_by_role("button", name="Describe a video · Tier 1").click()
    helps = help_ids(page, "id_text")
    assert described_by(page, "id_text") == helps

    page.get_by_role("button", name="Submit and back to my work").click()
    expect(page.locator("#id_text_error")).to_have_text(
        "Write one sentence describing the main action."
    )
    assert described_by(page, "id_text") == [*helps, "id_text_error"]

    # Once the problem is fixed the error is no longer read out, the help still is.
    page.get_by_label("Your one-sentence description").fill("A dog catches a frisbee.")
    page.get_by_label("Your one-sentence description").press("Tab")
    expect(page.locator("#id_text_error")).to_have_text("")
    assert described_by(page, "id_text") == helps


def test_a_link_error_keeps_the_links_help_text_announced(page):
    page.context.route(
        "https://www.youtube.com/iframe_api",
        lambda route: route.fulfill(body=FAKE_YOUTUBE, content_type="text/javascript"),
    )
    make_worker(username="petra")
    log_in(page, "petra")
    page.get_by_role("button", name="Propose a video segment · Tier 1").click()
    assert described_by(page, "id_url") == ["id_url_helptext"]

    link = page.get_by_label("YouTube link")
    link.fill("https://vimeo.com/76979871")
    link.press("Tab")
    expect(page.locator("#id_url_error")).to_contain_text("This is not a YouTube link.")
    assert described_by(page, "id_url") == ["id_url_helptext", "id_url_error"]
