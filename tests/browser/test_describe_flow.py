"""A worker describes a video segment in a real browser."""

from pathlib import Path

import pytest
from django.core.files import File
from playwright.sync_api import expect

from collector.models import Description, Segment
from tests.factories import make_segment, make_worker

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

CLIP = Path(__file__).resolve().parents[2] / "demo" / "clip.webm"


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


def open_task(page):
    """Take the next Tier-1 task and wait until its page's scripts have run."""
    page.get_by_role("button", name="Describe a video · Tier 1").click()
    page.wait_for_function(
        "() => location.pathname.startsWith('/describe/') && document.readyState === 'complete'"
    )


def log_in(page, username):
    page.goto("/accounts/login/")
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill("correct horse battery")
    page.get_by_role("button", name="Log in").click()


def test_a_worker_describes_a_segment_and_sees_the_count_go_up(page, hosted_segment):
    make_worker(username="wanda")
    log_in(page, "wanda")
    expect(page.locator("#count-submitted")).to_have_text("0")

    open_task(page)
    expect(page.locator("#segment-start")).to_have_text("2.00")
    expect(page.locator("#segment-end")).to_have_text("3.00")
    expect(page.locator("#segment-length")).to_have_text("1.00")

    # The segment plays muted and stops at its end.
    page.get_by_role("button", name="Play segment").click()
    page.wait_for_function(
        "() => document.getElementById('player-video').paused "
        "&& document.getElementById('player-video').currentTime >= 3"
    )
    assert page.evaluate("document.getElementById('player-video').muted")

    # The browser says what is wrong before anything is sent.
    posts = []
    page.on("request", lambda request: request.method == "POST" and posts.append(request.url))
    page.get_by_role("button", name="Submit and back to my work").click()
    expect(page.locator("#id_text_error")).to_have_text(
        "Write one sentence describing the main action."
    )
    page.get_by_label("Your one-sentence description").fill("A man runs. A dog follows.")
    page.get_by_role("button", name="Submit and back to my work").click()
    expect(page.locator("#id_text_error")).to_contain_text("exactly one sentence")
    page.get_by_label("Your one-sentence description").fill("See www.example.com for a cat.")
    page.get_by_role("button", name="Submit and back to my work").click()
    expect(page.locator("#id_text_error")).to_contain_text("do not include links")
    expect(page.get_by_label("Which language?")).to_be_hidden()
    assert posts == [] and not Description.objects.exists()

    page.get_by_label("Your one-sentence description").fill("A test card is shown with a tone.")
    page.get_by_role("button", name="Submit and back to my work").click()
    expect(page.get_by_text("Thank you! Your description was saved.")).to_be_visible()
    expect(page.locator("#count-submitted")).to_have_text("1")
    assert Description.objects.get().text == "A test card is shown with a tone."


def test_a_description_with_markup_is_refused_and_shown_back_as_text(page, hosted_segment):
    make_worker(username="mallory")
    log_in(page, "mallory")
    open_task(page)
    box = page.get_by_label("Your one-sentence description")
    box.fill("<img src=x onerror=alert(1)> A cat")
    page.get_by_role("button", name="Submit and back to my work").click()
    expect(page.locator("#id_text_error")).to_contain_text("without HTML or other markup")
    expect(box).to_have_value("<img src=x onerror=alert(1)> A cat")
    assert page.locator("form img").count() == 0 and not Description.objects.exists()


@pytest.mark.usefixtures("platform_demo", "mturk_framing")  # demo mode: no connector
def test_a_platform_worker_is_sent_back_to_the_platform_after_submitting(page, hosted_segment):
    sandbox = "https://workersandbox.mturk.com"
    submitted = []

    def platform(route):
        submitted.append(route.request.post_data)
        route.fulfill(status=200, body="Submitted to the platform")

    page.route(f"{sandbox}/mturk/externalSubmit", platform)
    page.goto(
        f"/external/describe/?workerId=A1WORKER&assignmentId=3ASSIGN&hitId=3HIT"
        f"&turkSubmitTo={sandbox}"
    )
    page.get_by_label("Your one-sentence description").fill("A test card is shown with a tone.")
    page.get_by_role("button", name="Submit").click()
    expect(page.get_by_text("Submitted to the platform")).to_be_visible()
    description = Description.objects.get()
    assert submitted == [f"assignmentId=3ASSIGN&paracrowd_assignment={description.assignment_id}"]


def test_a_long_paste_is_counted_and_refused_with_the_reason_never_cut(page, hosted_segment):
    make_worker(username="paula")
    log_in(page, "paula")
    open_task(page)
    box = page.get_by_label("Your one-sentence description")
    text = "A squirrel " + "very " * 1000 + "quickly eats a nut."
    box.fill(text)
    expect(page.locator("#text-count")).to_have_text(f"{len(text)} / 300 characters")
    page.get_by_role("button", name="Submit and back to my work").click()
    expect(page.locator("#id_text_error")).to_have_text(
        f"Keep it to one short sentence: at most 300 characters (you wrote {len(text)})."
    )
    assert box.input_value() == text and not Description.objects.exists()


def test_the_segment_can_be_watched_in_a_loop(page, hosted_segment):
    make_worker(username="lou")
    log_in(page, "lou")
    open_task(page)
    loop = page.get_by_label("Loop")
    expect(loop).not_to_be_checked()
    loop.check()
    # Note when playback, having reached the segment's end, starts over from its start.
    page.evaluate(
        "() => { const v = document.getElementById('player-video'); window.looped = false;"
        " let reachedEnd = false; v.addEventListener('timeupdate', () => {"
        " if (v.currentTime >= 2.9) reachedEnd = true;"
        " else if (reachedEnd && v.currentTime < 2.5) window.looped = true; }); }"
    )
    page.get_by_role("button", name="Play segment").click()
    page.wait_for_function("() => window.looped")
    assert not page.evaluate("document.getElementById('player-video').paused")


def test_a_video_that_cannot_be_loaded_says_so_and_offers_to_skip(page, media_root):
    make_segment(source=Segment.Source.FILE, youtube_id="", video_file="videos/gone.webm")
    make_worker(username="vera")
    log_in(page, "vera")
    open_task(page)
    # The media error comes at once when the browser fetches the file; a browser that defers
    # the fetch is caught by the player's own patience (20 s).
    expect(page.get_by_role("alert")).to_contain_text(
        "The video could not be loaded", timeout=30_000
    )
    expect(page.get_by_role("button", name="Play segment")).to_be_disabled()
    expect(page.get_by_role("button", name="Skip this segment")).to_be_enabled()
