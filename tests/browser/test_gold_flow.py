"""A worker fails gold items in a real browser: warned, then no more work, until staff lift
the stop. The answers are checked by a real Celery worker, as on the site."""

from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.core.files import File
from playwright.sync_api import expect

from collector.models import Segment
from crowd import services as crowd
from crowd.models import HitType, QualityCheck, QualityRule
from tests.conftest import wait_for
from tests.factories import make_segment, make_worker

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

CLIP = Path(__file__).resolve().parents[2] / "demo" / "clip.webm"
REFERENCES = ["A test card is shown with a tone.", "A colour test card is on the screen."]
NONSENSE = "Purple elephants dance quietly under the moon."
PASSWORD = "correct horse battery"


def hosted_segment():
    with CLIP.open("rb") as clip:
        return make_segment(
            source=Segment.Source.FILE,
            youtube_id="",
            video_file=File(clip, name="clip.webm"),
            start=2,
            end=3,
        )


@pytest.fixture
def gold_everywhere(media_root):
    """Every description task is a gold item while any is left; three failures in five stop."""
    QualityRule.objects.create(check_kind="gold", warn_after=2, stop_after=3, window=5)
    HitType.objects.for_kind(HitType.Kind.DESCRIPTION)
    HitType.objects.filter(kind=HitType.Kind.DESCRIPTION).update(gold_percent=100)
    answer = {"references": [{"text": text, "language": "en"} for text in REFERENCES]}
    for _ in range(4):
        crowd.gold_item_create(
            item=hosted_segment().item, answer=answer, source="test", created_by=None
        )
    hosted_segment()  # ordinary work, for after the stop is lifted


def log_in(page, username, next_url=""):
    page.goto(f"/accounts/login/?next={next_url}" if next_url else "/accounts/login/")
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Log in").click()


def describe_badly(page, worker, checked):
    page.get_by_role("button", name="Describe a video · Tier 1").click()
    page.wait_for_function("() => location.pathname.startsWith('/describe/')")
    # Typed key by key at a person's pace: a filled-in box reads as text that was never typed,
    # which the typing check counts against the worker besides the gold rule.
    page.get_by_label("Your one-sentence description").press_sequentially(NONSENSE, delay=80)
    page.get_by_role("button", name="Submit and back to my work").click()
    expect(page.get_by_text("Thank you! Your description was saved.")).to_be_visible()
    wait_for(lambda: QualityCheck.objects.filter(worker=worker, kind="gold").count() == checked)
    page.reload()


def test_a_worker_failing_gold_is_warned_then_stopped_and_staff_lift_the_stop(
    page, browser, live_server, live_worker, gold_everywhere
):
    gina = make_worker(username="gina")
    log_in(page, "gina")
    describe_badly(page, gina, checked=1)
    expect(page.locator("#quality-notice")).to_have_count(0)

    describe_badly(page, gina, checked=2)
    expect(page.locator("#quality-notice")).to_contain_text("Careful")

    describe_badly(page, gina, checked=3)
    expect(page.locator("#quality-notice")).to_contain_text("no new tasks are handed out")
    expect(page.get_by_role("button", name="Describe a video · Tier 1")).to_have_count(0)
    with pytest.raises(crowd.WorkRefused, match="did not match"):
        crowd.assignment_claim(worker=gina, tier=1)

    get_user_model().objects.create_superuser("ada", "ada@example.org", PASSWORD)
    staff = browser.new_context(base_url=live_server.url).new_page()
    log_in(staff, "ada", next_url=f"/review/workers/{gina.pk}/")
    expect(staff.locator("#gold-standing")).to_contain_text("0 passed of 3 answered")
    expect(staff.locator("#gold-standing")).to_contain_text("Stopped by the gold rule")
    staff.get_by_label("Reason to unblock").fill("Explained the task; a fresh start.")
    staff.get_by_role("button", name="Unblock").click()
    expect(staff.locator("#gold-standing")).not_to_contain_text("Stopped")
    staff.context.close()

    page.reload()
    expect(page.locator("#quality-notice")).to_have_count(0)
    page.get_by_role("button", name="Describe a video · Tier 1").click()
    page.wait_for_function("() => location.pathname.startsWith('/describe/')")
