"""An admin promotes a worker from the qualification queue, in a real browser; the worker's
next task is a Tier-2 task at Tier-2 pay."""

from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.core.files import File
from playwright.sync_api import expect

from collector import services
from collector.models import Description, Segment
from crowd.models import Assignment, AuditEntry, LedgerEntry, Tier
from review.services import worker_signals_refresh
from tests.factories import make_segment, make_submitted_description, make_worker

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

CLIP = Path(__file__).resolve().parents[2] / "demo" / "clip.webm"
WANDA = ["A man is playing a guitar.", "A woman slices a tomato.", "Two dogs run in a field."]


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


def log_in(page, username, password, next_url=""):
    page.goto(f"/accounts/login/?next={next_url}" if next_url else "/accounts/login/")
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill(password)
    page.get_by_role("button", name="Log in").click()


def test_an_admin_promotes_a_worker_from_the_queue_and_their_next_task_is_tier_two(
    page, hosted_segment
):
    get_user_model().objects.create_superuser("ada", "ada@example.org", "correct horse battery")
    wanda = make_worker(username="wanda")
    for text in WANDA:
        make_submitted_description(wanda, text)
    worker_signals_refresh(worker_id=wanda.pk)
    quiet = make_worker(username="quiet")
    make_submitted_description(quiet, "A cat sleeps on a sofa.")

    log_in(page, "ada", "correct horse battery", next_url="/review/")
    page.get_by_role("navigation", name="Review").get_by_role(
        "link", name="Qualification queue"
    ).click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Qualification queue")
    rows = page.locator("table.queue tbody tr")
    expect(rows.first.get_by_role("rowheader")).to_have_text("wanda")  # the most prolific

    page.get_by_role("link", name="wanda", exact=True).click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Worker wanda")
    expect(page.locator("#signal-spelling")).to_contain_text("words")
    page.get_by_role("button", name="Promote to Tier 2").click()
    # The reason is required: the browser says so, and nothing is sent.
    assert page.evaluate("document.getElementById('reason-promote').validity.valueMissing")
    assert wanda.current_tier == Tier.ONE
    page.get_by_label("Reason to promote to tier 2").fill("Clean grammar and spelling.")
    page.get_by_role("button", name="Promote to Tier 2").click()
    expect(page.get_by_text("Promote to Tier 2: done for wanda.")).to_be_visible()
    expect(page.locator("#worker-tier")).to_have_text("2")
    expect(page.get_by_role("cell", name="Clean grammar and spelling.")).to_be_visible()
    entry = AuditEntry.objects.get(worker=wanda, action="promote")
    assert (entry.actor.username, entry.reason) == ("ada", "Clean grammar and spelling.")

    page.get_by_role("button", name="Log out ada").click()
    log_in(page, "wanda", "correct horse battery")
    expect(page.locator("#promotion")).to_contain_text("You were promoted to Tier 2")
    page.get_by_role("button", name="Describe a video · Tier 2 · $0.05 each").click()
    expect(page.locator(".task-meta")).to_contain_text("Tier 2 · $0.05 for an accepted description")
    page.get_by_label("Your one-sentence description").fill("A test card is shown with a tone.")
    page.get_by_role("button", name="Submit and back to my work").click()
    expect(page.get_by_text("Thank you! Your description was saved.")).to_be_visible()

    newest = Description.objects.get(text="A test card is shown with a tone.")
    # A segment is described once per worker whatever the tier: a new one for Tier 2.
    assert newest.tier == Tier.TWO
    assert not Description.objects.filter(worker=wanda, segment=newest.segment).exclude(
        pk=newest.pk
    )
    assert Assignment.objects.get(description=newest).hit.tier == Tier.TWO
    services.descriptions_review(
        description_ids=[newest.pk], status="accepted", reviewed_by=None, reason="Good."
    )
    assert LedgerEntry.objects.get(assignment__description=newest).amount_cents == 5
