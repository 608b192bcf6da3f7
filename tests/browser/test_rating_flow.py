"""A worker rates paraphrases in a real browser, by keyboard and by mouse, and goes on to the
next item."""

import pytest
from django.conf import settings
from django.test import Client
from playwright.sync_api import expect

from research.models import Rating
from tests.factories import make_worker
from tests.research.ratings import make_batch

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def log_in(page, live_server):
    client = Client()
    worker = make_worker()
    client.force_login(worker.user)
    session = client.cookies[settings.SESSION_COOKIE_NAME].value
    page.context.add_cookies(
        [{"name": settings.SESSION_COOKIE_NAME, "value": session, "url": live_server.url}]
    )
    return worker


def test_a_worker_rates_one_item_by_keyboard_and_mouse_and_sees_the_next(page, live_server):
    make_batch(
        pairs=[
            ("A man plays a guitar.", "Someone strums a guitar."),
            ("A dog catches a ball.", "A ball is caught by a dog."),
        ]
    )
    worker = log_in(page, live_server)
    page.goto("/dashboard/")
    page.get_by_role("button", name="Rate paraphrases · Tier 1").click()
    page.wait_for_load_state()
    expect(page.get_by_role("heading", level=1)).to_have_text(
        "Rate how well one sentence paraphrases another"
    )
    first_candidate = page.locator("#rating-candidate").inner_text()

    # Nothing chosen yet: the browser keeps the form (each scale is required).
    page.get_by_role("button", name="Submit and next").click()
    assert not Rating.objects.exists()

    # Meaning by keyboard: into the scale, then the arrow keys move the choice.
    meaning = page.get_by_role("group", name="Meaning")
    meaning.get_by_role("radio").first.focus()
    page.keyboard.press("Space")
    page.keyboard.press("ArrowDown")
    expect(meaning.get_by_role("radio", name="3 Mostly the same")).to_be_checked()
    # Wording and overall by mouse, on the labels' text.
    page.get_by_text("Largely reworded").click()
    page.get_by_role("group", name="Overall").get_by_text("Good: a small flaw").click()
    page.keyboard.press("Enter")

    expect(page.get_by_role("status").filter(has_text="Your rating was saved")).to_be_visible()
    expect(page.locator("#rating-candidate")).not_to_have_text(first_candidate)
    rating = Rating.objects.get(worker=worker)
    assert (rating.semantic, rating.dissimilarity, rating.overall) == (3, 3, 3)
    assert rating.item.candidate == first_candidate
    # The next item is open, nothing chosen on it yet.
    expect(page.get_by_role("radio", checked=True)).to_have_count(0)
