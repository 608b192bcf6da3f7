"""What a worker has done on a task page is kept in the browser until the server stores it:
a reload (or leaving and coming back) puts it back, a stored task's draft is forgotten, and
leaving the page with unsaved work asks first. static/js/drafts.js."""

import re
from pathlib import Path

import pytest
from django.core.files import File
from playwright.sync_api import expect

from collector.models import Description, Segment
from tests.browser.test_align_flow import A, B, cell, open_pair, open_task_from_the_dashboard
from tests.browser.test_align_flow import log_in as log_in_aligner
from tests.browser.test_describe_flow import log_in, open_task
from tests.browser.test_prolific_session_flow import arrival, prolific, study  # noqa: F401
from tests.crowd.prolific_standin import prolific_api  # noqa: F401
from tests.factories import make_segment, make_worker

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

CLIP = Path(__file__).resolve().parents[2] / "demo" / "clip.webm"
DRAFTS = """() => Object.keys(localStorage).filter((key) => key.startsWith("paracrowd.draft."))"""
RESTORED = "document.getElementById('description-form').dataset.draftRestored"
TYPING = """() => Object.fromEntries(["key_presses", "pastes", "first_key_ms"].map(
    (name) => [name, document.querySelector(`[name=typing_${name}]`).value]))"""


@pytest.fixture
def two_segments(media_root):
    for start in (0, 2):
        with CLIP.open("rb") as clip:
            make_segment(
                source=Segment.Source.FILE,
                youtube_id="",
                video_file=File(clip, name="clip.webm"),
                start=start,
                end=start + 1,
            )


@pytest.fixture
def dialogs(page):
    """The dialogs the page opened, by type; each is accepted (the page is left)."""
    seen = []

    def answer(dialog):
        seen.append(dialog.type)
        dialog.accept()

    page.on("dialog", answer)
    return seen


def test_a_typed_description_comes_back_after_a_reload_and_is_forgotten_once_stored(
    page, two_segments, dialogs
):
    make_worker(username="wanda")
    log_in(page, "wanda")
    open_task(page)
    box = page.get_by_label("Your one-sentence description")
    box.press_sequentially("A test card")
    typing = page.evaluate(TYPING)
    assert typing["key_presses"] == "11"
    held = page.url

    page.reload()
    assert dialogs == ["beforeunload"]  # typed and not sent: the page asked first
    page.wait_for_load_state()
    assert page.url == held
    expect(box).to_have_value("A test card")
    # Put back, not typed again nor pasted: the record of how it was typed goes on from before.
    assert page.evaluate(TYPING) == typing
    assignment = held.rstrip("/").split("/")[-1]
    assert page.evaluate(DRAFTS) == [f"paracrowd.draft.assignment:{assignment}"]

    box.press_sequentially(" is shown with a tone.")
    page.get_by_role("button", name="Submit and next").click()
    expect(page.get_by_text("Thank you! Your description was saved.")).to_be_visible()
    assert dialogs == ["beforeunload"]  # submitting asks nothing
    description = Description.objects.get()
    assert description.text == "A test card is shown with a tone."
    assert description.typing_key_presses == 11 + 22
    assert description.typing_pastes == 0

    # The next task starts empty, and the stored task's draft is gone.
    expect(page).not_to_have_url(held)
    expect(box).to_have_value("")
    assert page.evaluate(DRAFTS) == []
    page.goto("/dashboard/")
    assert dialogs == ["beforeunload"]  # nothing done on the next task: nothing to lose


def test_a_task_left_and_continued_from_the_dashboard_keeps_its_draft(page, two_segments):
    make_worker(username="wanda")
    log_in(page, "wanda")
    open_task(page)
    page.get_by_label("Your one-sentence description").fill("A test card")
    page.get_by_label("Comments (optional)").fill("The tone is loud.")
    page.once("dialog", lambda dialog: dialog.accept())
    page.goto("/dashboard/")
    open_task(page)  # the task held is given back
    expect(page.get_by_label("Your one-sentence description")).to_have_value("A test card")
    expect(page.get_by_label("Comments (optional)")).to_have_value("The tone is loud.")
    assert page.evaluate(RESTORED)


def test_a_refused_description_shows_what_was_sent_and_keeps_the_draft(page, two_segments):
    make_worker(username="wanda")
    log_in(page, "wanda")
    open_task(page)
    box = page.get_by_label("Your one-sentence description")
    box.fill("A tomato is sliced.")
    page.get_by_label("Language of your description").select_option("other")
    page.get_by_label("Which language?").fill("123")  # only the server checks the name
    page.get_by_role("button", name="Submit and next").click()
    expect(page.locator("#id_other_language_error")).to_contain_text("Name the language")
    expect(box).to_have_value("A tomato is sliced.")
    assert page.evaluate(RESTORED) is None  # the page shows what was sent
    assert len(page.evaluate(DRAFTS)) == 1
    assert not Description.objects.exists()

    # Opened again, the task is still open: the draft comes back, as it was sent.
    page.goto(page.url)
    expect(box).to_have_value("A tomato is sliced.")
    expect(page.get_by_label("Which language?")).to_have_value("123")


def test_alignment_edits_survive_a_reload(page, live_server, dialogs):
    open_pair(A, B, "0-0 5-4 6-5")
    log_in_aligner(page, live_server)
    open_task_from_the_dashboard(page)
    cell(page, "man ↔ guy: none").click()
    expect(page.locator("#align-count")).to_contain_text("4 links")
    links = page.locator("#links").input_value()

    page.reload()
    assert dialogs == ["beforeunload"]
    expect(cell(page, "man ↔ guy: sure, changed from none")).to_have_class(re.compile(r"\bS\b"))
    expect(page.locator("#align-count")).to_contain_text("4 links")
    assert page.locator("#links").input_value() == links
    # Reset still goes back to the pre-alignment, not to the draft.
    page.get_by_role("button", name="Reset to the pre-alignment").click()
    expect(page.locator("#align-count")).to_contain_text("3 links")


def test_a_page_left_untouched_asks_nothing(page, two_segments, dialogs):
    make_worker(username="wanda")
    log_in(page, "wanda")
    open_task(page)
    page.get_by_label("Your one-sentence description").click()
    page.goto("/dashboard/")
    assert dialogs == []
    assert page.evaluate(DRAFTS) == []


def test_a_draft_survives_a_reload_in_a_platform_session(page, prolific, study, dialogs):  # noqa: F811
    participant, session = prolific.participant_joins(study.external_id)
    page.goto(arrival(study, participant, session))
    expect(page.get_by_text("Task 1 of 3")).to_be_visible()
    box = page.get_by_label("Your one-sentence description")
    box.press_sequentially("Coloured bars")
    page.reload()
    assert dialogs == ["beforeunload"]
    expect(page.get_by_text("Task 1 of 3")).to_be_visible()
    expect(box).to_have_value("Coloured bars")

    box.press_sequentially(" are shown with a tone.")
    page.get_by_role("button", name="Submit").click()
    expect(page.get_by_text("Task 2 of 3")).to_be_visible()
    expect(box).to_have_value("")
    assert Description.objects.get().text == "Coloured bars are shown with a tone."
