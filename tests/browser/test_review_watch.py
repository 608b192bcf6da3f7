"""Reviewers watch the segment a description is about, beside the descriptions."""

from pathlib import Path

import pytest
from django.core.files import File
from playwright.sync_api import expect

from collector.models import Segment
from tests.factories import make_description, make_segment, make_staff

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

CLIP = Path(__file__).resolve().parents[2] / "demo" / "clip.webm"


def log_in(page, username, then):
    page.goto(f"/accounts/login/?next={then}")
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill("correct horse battery")
    page.get_by_role("button", name="Log in").click()
    # Arrived, with the page's scripts run (the buttons work from then on, as a person finds).
    path = then.split("?")[0]
    page.wait_for_function(
        f"() => location.pathname === {path!r} && document.readyState === 'complete'"
    )


def test_a_reviewer_watches_the_described_segment_looping(page, media_root):
    with CLIP.open("rb") as clip:
        segment = make_segment(
            source=Segment.Source.FILE,
            youtube_id="",
            video_file=File(clip, name="clip.webm"),
            start=2,
            end=3,
        )
    make_description(segment, "A test card is shown.")
    make_staff(username="ada")
    log_in(page, "ada", then="/review/descriptions/?status=accepted")
    page.get_by_role("button", name=f"Watch segment {segment.pk}").click()
    expect(page.get_by_role("heading", name=f"Segment {segment.pk}: 2 s to 3 s")).to_be_visible()
    page.wait_for_function(
        "() => { const v = document.getElementById('player-video');"
        " return v && !v.paused && v.muted && v.currentTime >= 2; }"
    )


def test_the_cluster_page_shows_its_segment(page, media_root):
    with CLIP.open("rb") as clip:
        segment = make_segment(
            source=Segment.Source.FILE, youtube_id="", video_file=File(clip, name="clip.webm")
        )
    make_staff(username="ada")
    log_in(page, "ada", then=f"/scores/segments/{segment.pk}/")
    page.get_by_role("button", name="Play segment").click()
    page.wait_for_function("() => !document.getElementById('player-video').paused")
