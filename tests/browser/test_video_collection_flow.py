"""Video collection in a real browser: a worker proposes a YouTube segment with the marking
tool, an admin approves it, another worker describes it; an admin cuts an uploaded file.

There is no network here, so YouTube's IFrame API is answered by a stand-in
(fake_youtube_iframe_api.js) that plays on a clock the test can scrub.
"""

from pathlib import Path

import pytest
from playwright.sync_api import expect

from collector.models import Segment, SegmentProposal, VideoFile
from tests.factories import make_staff, make_worker

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

HERE = Path(__file__).resolve().parent
CLIP = HERE.parents[1] / "demo" / "clip.webm"
FAKE_YOUTUBE = (HERE / "fake_youtube_iframe_api.js").read_text()
FAKE_PLAYER = "window.fakeYouTube.player()"


@pytest.fixture
def youtube(page):
    page.context.route(
        "https://www.youtube.com/iframe_api",
        lambda route: route.fulfill(body=FAKE_YOUTUBE, content_type="text/javascript"),
    )
    return page


def log_in(page, username):
    page.goto("/accounts/login/")
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill("correct horse battery")
    page.get_by_role("button", name="Log in").click()


def log_out(page, username):
    page.get_by_role("button", name=f"Log out {username}").click()


def test_a_proposed_segment_is_approved_and_described_by_another_worker(youtube):
    page = youtube
    make_worker(username="petra")
    make_worker(username="dmitri")
    make_staff(username="ada")

    log_in(page, "petra")
    expect(page.locator("#count-proposed")).to_have_text("0")
    page.get_by_role("button", name="Propose a video segment · Tier 1").click()
    expect(page.get_by_role("heading", level=1)).to_have_text(
        "Find a short video segment showing one clear action"
    )

    # A link that is not YouTube's is refused before anything loads.
    link = page.get_by_label("YouTube link")
    link.fill("https://vimeo.com/76979871")
    link.press("Tab")
    expect(page.locator("#id_url_error")).to_contain_text("This is not a YouTube link.")

    # A youtu.be link with a start time loads the video there and fills in the start.
    link.fill("https://youtu.be/dQw4w9WgXcQ?t=42")
    link.press("Tab")
    expect(page.locator("#video-status")).to_have_text("Video dQw4w9WgXcQ loaded.")
    expect(page.locator("#id_url_error")).to_have_text("")
    expect(page.get_by_label("Start")).to_have_value("0:42.0")
    page.wait_for_function("() => window.fakeYouTube && window.fakeYouTube.players.length === 1")
    assert page.evaluate(f"{FAKE_PLAYER}.videoId") == "dQw4w9WgXcQ"

    # Play on to the end of the event and mark it.
    page.evaluate(f"{FAKE_PLAYER}.playVideo()")
    # Paused where the event ends, as a viewer would: a running clock would move on between the
    # scrub and the click by however long a busy machine takes.
    page.evaluate(f"{FAKE_PLAYER}.pauseVideo()")
    page.evaluate("window.fakeYouTube.scrub(47.5)")
    page.get_by_role("button", name="Mark end").click()
    expect(page.get_by_label("End")).to_have_value("0:47.5")
    expect(page.locator("#segment-length")).to_have_text("Length: 5.5 seconds.")

    # Typed times are checked as they are typed.
    end = page.get_by_label("End")
    end.fill("0:40")
    end.press("Tab")
    expect(page.locator("#id_end_error")).to_have_text("The end must come after the start.")
    end.fill("1:30")
    end.press("Tab")
    expect(page.locator("#id_end_error")).to_contain_text("it can be at most 20 seconds")
    end.fill("0:48")
    end.press("Tab")
    expect(page.locator("#id_end_error")).to_have_text("")
    expect(page.locator("#segment-length")).to_have_text("Length: 6 seconds.")

    # The preview plays the segment muted, and loops back to the start at the end.
    page.get_by_role("button", name="Preview segment").click()
    expect(page.get_by_role("button", name="Stop preview")).to_be_visible()
    page.wait_for_function(f"() => {FAKE_PLAYER}.getPlayerState() === 1 && {FAKE_PLAYER}.isMuted()")
    page.evaluate("window.fakeYouTube.scrub(48.2)")
    page.wait_for_function(
        f"() => {FAKE_PLAYER}.getCurrentTime() >= 42 && {FAKE_PLAYER}.getCurrentTime() < 47"
    )
    page.get_by_role("button", name="Stop preview").click()

    page.get_by_label("What happens, in a few words").fill("A man <dances> in a red jacket")
    page.get_by_role("button", name="Submit and back to my work").click()
    expect(page.get_by_text("Thank you! Your segment was sent for review.")).to_be_visible()
    expect(page.locator("#count-proposed")).to_have_text("1")
    expect(page.locator("#count-proposals-pending")).to_have_text("1")
    proposal = SegmentProposal.objects.get()
    assert (proposal.youtube_id, proposal.start, proposal.end) == ("dQw4w9WgXcQ", 42, 48)
    log_out(page, "petra")

    # An admin plays it from the queue and approves it.
    log_in(page, "ada")
    page.goto("/review/segments/")
    expect(page.get_by_role("link", name="Pending review (1)")).to_be_visible()
    page.get_by_role("link", name="Review dQw4w9WgXcQ 0:42").click()
    expect(page.locator("#proposal-event")).to_have_text("A man <dances> in a red jacket")
    page.get_by_role("button", name="Play segment").click()
    page.wait_for_function(
        f"() => window.fakeYouTube && {FAKE_PLAYER}.getPlayerState() === 1 "
        f"&& {FAKE_PLAYER}.getCurrentTime() >= 42"
    )
    page.get_by_role("button", name="Approve").click()
    expect(
        page.get_by_text("Approved dQw4w9WgXcQ 0:42–0:48: it is now offered for description.")
    ).to_be_visible()
    log_out(page, "ada")

    # Another worker is handed the new segment to describe.
    log_in(page, "dmitri")
    page.get_by_role("button", name="Describe a video · Tier 1").click()
    expect(page.locator("#segment-start")).to_have_text("42.00")
    expect(page.locator("#segment-end")).to_have_text("48.00")
    page.wait_for_function(f"() => window.fakeYouTube && {FAKE_PLAYER}.videoId === 'dQw4w9WgXcQ'")
    page.get_by_label("Your one-sentence description").fill("A man is dancing.")
    page.get_by_role("button", name="Submit and back to my work").click()
    expect(page.get_by_text("Thank you! Your description was saved.")).to_be_visible()
    segment = SegmentProposal.objects.get().segment
    assert segment.descriptions.get().worker.user.username == "dmitri"


def test_an_admin_uploads_a_video_and_cuts_a_segment_with_the_same_tool(page, media_root):
    make_staff(username="ada")
    log_in(page, "ada")
    page.goto("/review/videos/")
    page.get_by_label("Title").fill("Test card")
    page.get_by_label("Video file").set_input_files(CLIP)
    page.get_by_role("button", name="Upload").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Cut segments from “Test card”")
    video = "document.getElementById('player-video')"
    page.wait_for_function(f"() => {video}.readyState >= 1")

    def scrub(seconds):
        page.evaluate(f"{video}.currentTime = {seconds}")
        page.wait_for_function(
            f"() => !{video}.seeking && Math.abs({video}.currentTime - {seconds}) < 0.05"
        )

    scrub(2)
    page.get_by_role("button", name="Mark start").click()
    expect(page.get_by_label("Start")).to_have_value("0:02.0")
    scrub(5)
    page.get_by_role("button", name="Mark end").click()
    expect(page.get_by_label("End")).to_have_value("0:05.0")
    expect(page.locator("#segment-length")).to_have_text(
        "Length: 3 seconds. Most good segments are 4–10 seconds."
    )
    page.get_by_label("End").fill("7.5")
    page.get_by_label("End").press("Tab")
    expect(page.locator("#segment-length")).to_have_text("Length: 5.5 seconds.")

    page.get_by_role("button", name="Preview segment").click()
    page.wait_for_function(f"() => !{video}.paused && {video}.muted && {video}.currentTime >= 2")
    scrub(7.45)
    page.wait_for_function(f"() => !{video}.paused && {video}.currentTime < 7")  # looped back
    page.get_by_role("button", name="Stop preview").click()
    page.wait_for_function(f"() => {video}.paused")

    page.get_by_role("button", name="Add segment").click()
    expect(
        page.get_by_text("Added 0:02–0:07.5: it is now offered for description.")
    ).to_be_visible()
    expect(page.locator("#video-segments")).to_contain_text("0:02–0:07.5")
    segment = Segment.objects.get()
    assert segment.video_file.name == VideoFile.objects.get().file.name
    assert (segment.start, segment.end) == (2, 7.5)
