"""A worker never loses a task they opened, goes straight on to the next one after submitting,
and reads every deadline the same way; a YouTube player whose script fails says so at once."""

import re
from datetime import datetime

import pytest
from playwright.sync_api import expect

from annotations.models import SentencePair
from collector.models import Description
from crowd.services import hits_open
from tests.factories import make_segment, make_worker

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

DEADLINE = re.compile(r"^\d+ min left \(due \d\d:\d\d UTC\)$")


def log_in(page, username):
    page.goto("/accounts/login/")
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill("correct horse battery")
    page.get_by_role("button", name="Log in").click()


def describe(page, text):
    page.get_by_label("Your one-sentence description").fill(text)


@pytest.fixture
def no_youtube(page):
    """Offline: YouTube's IFrame API script fails to load."""
    page.context.route("https://www.youtube.com/iframe_api", lambda route: route.abort())
    return page


def test_an_opened_task_is_continued_and_submit_goes_on_to_the_next(no_youtube):
    page = no_youtube
    make_segment(), make_segment(), make_segment()
    make_worker(username="nadia")
    log_in(page, "nadia")
    page.get_by_role("button", name="Describe a video · Tier 1").click()
    expect(page).to_have_url(re.compile(r"/describe/\d+/$"))
    task = page.url
    expect(page.locator(".task-meta .deadline")).to_have_text(DEADLINE)

    # Back on the dashboard the task waits, with its time left; next task gives it back.
    page.get_by_role("link", name="Dashboard").click()
    held = page.locator("#continue")
    expect(held.get_by_role("link", name="Continue: Video description · Tier 1")).to_be_visible()
    expect(held.locator(".deadline")).to_have_text(DEADLINE)
    page.get_by_role("button", name="Describe a video · Tier 1").click()
    expect(page).to_have_url(task)
    page.get_by_role("link", name="Dashboard").click()
    page.get_by_role("link", name="Continue: Video description · Tier 1").click()
    expect(page).to_have_url(task)

    # Submit and next: the next segment at once, with a way back to the dashboard.
    describe(page, "A man is riding a bicycle.")
    page.get_by_role("button", name="Submit and next").click()
    expect(page.get_by_role("status").first).to_contain_text("Thank you!")
    expect(page).to_have_url(re.compile(r"/describe/\d+/$"))
    assert page.url != task
    # The page came in answer to the form; reloading it opens the task and sends nothing again.
    following = page.url
    page.reload()
    expect(page).to_have_url(following)
    expect(page.get_by_label("Your one-sentence description")).to_be_visible()
    expect(page.get_by_text("You had already submitted this task")).to_have_count(0)
    assert Description.objects.count() == 1
    describe(page, "A woman is reading a book.")
    page.get_by_role("button", name="Submit and back to my work").click()
    expect(page).to_have_url(re.compile(r"/dashboard/$"))
    expect(page.locator("#count-submitted")).to_have_text("2")
    expect(page.locator("#continue")).to_have_count(0)


def test_the_alignment_page_shows_its_deadline_like_every_task(page):
    pair = SentencePair.objects.create(
        origin=SentencePair.Origin.IMPORT,
        import_key="deadline",
        tokens_a=["A", "cat", "."],
        tokens_b=["A", "kitten", "."],
    )
    hits_open(rows=SentencePair.objects.filter(pk=pair.pk), kind="alignment")
    make_worker(username="omar")
    log_in(page, "omar")
    page.get_by_role("button", name="Align two sentences · Tier 1").click()
    expect(page.locator(".task-meta .deadline")).to_have_text(DEADLINE)

    # An empty grid (the pair has no pre-alignment) is refused on the page, not thanked and
    # paid; ticking "Nothing corresponds" sends it, and the worker goes on.
    page.get_by_role("button", name="Submit and next").click()
    expect(page.locator("#form-errors")).to_contain_text("Your alignment has no link")
    expect(page.get_by_text("Thank you!")).to_have_count(0)
    page.get_by_label("Nothing corresponds").check()
    page.get_by_role("button", name="Submit and next").click()
    expect(page.get_by_text("Thank you! Your alignment was saved.")).to_be_visible()
    expect(page).to_have_url(re.compile(r"/dashboard/$"))  # no other pair to align


def test_a_youtube_player_whose_script_fails_says_so_at_once(no_youtube):
    page = no_youtube
    # The page's clock stands still: the player's patience (20 s) can never run out, so the
    # message can only come from the script's failure.
    page.clock.install(time=datetime(2026, 1, 1, 12, 0))
    page.clock.pause_at(datetime(2026, 1, 1, 12, 0, 1))
    make_segment()
    make_worker(username="ines")
    log_in(page, "ines")
    page.get_by_role("button", name="Describe a video · Tier 1").click()
    expect(page.locator("#player-problem")).to_be_visible()
    expect(page.get_by_role("button", name="Play segment")).to_be_disabled()
