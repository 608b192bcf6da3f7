"""A Prolific participant's whole session in the browser, against the local stand-in of
Prolific's API: arrive from the study, do tasks with the progress shown, reload in the middle
and carry on, finish, and land on Prolific's completion address with the study's code. A
forged SESSION_ID gets no task."""

from datetime import timedelta
from pathlib import Path
from urllib.parse import urlencode

import pytest
from django.core.files import File
from playwright.sync_api import expect

from collector.models import Description, Segment
from crowd import platforms
from crowd import services as crowd
from crowd.models import Assignment, HitType, Tier, WorkSession
from tests.browser.test_platform_flow import StandIn
from tests.crowd.prolific_standin import prolific_api  # noqa: F401
from tests.factories import make_segment

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

CLIP = Path(__file__).resolve().parents[2] / "demo" / "clip.webm"


@pytest.fixture
def prolific(prolific_api, settings):  # noqa: F811 (the fixture imported above)
    """Prolific's API (the stand-in) and its participant site (where the code is entered)."""
    with StandIn() as site:
        settings.PROLIFIC_COMPLETION_URL = f"{site.origin}/submissions/complete"
        platforms.install("prolific", prolific_api.connector())
        yield prolific_api
        platforms.install("prolific", None)


@pytest.fixture
def study(prolific, media_root):
    for start in (0, 2, 4):
        with CLIP.open("rb") as clip:
            make_segment(
                source=Segment.Source.FILE,
                youtube_id="",
                video_file=File(clip, name="clip.webm"),
                start=start,
                end=start + 1,
            )
    draft = crowd.campaign_create(
        name="Describe short videos",
        platform="prolific",
        kind=HitType.Kind.DESCRIPTION,
        tier=Tier.ONE,
        size=3,
        lifetime=timedelta(days=1),
        tasks_per_session=3,
        tasks_minimum=2,
    )
    return crowd.campaign_publish(campaign=draft)


def arrival(study, participant, session):
    query = {"PROLIFIC_PID": participant, "STUDY_ID": study.external_id, "SESSION_ID": session}
    return "/external/describe/?" + urlencode(query)


def describe(page, text):
    page.get_by_label("Your one-sentence description").fill(text)
    page.get_by_role("button", name="Submit").click()


def test_a_participant_does_a_session_reloads_in_the_middle_and_finishes(page, prolific, study):
    participant, session = prolific.participant_joins(study.external_id)
    page.goto(arrival(study, participant, session))
    expect(page.get_by_text("Task 1 of 3")).to_be_visible()
    expect(page.get_by_role("button", name="Finish my session now")).to_have_count(0)
    describe(page, "A test card is shown on the screen.")

    expect(page.get_by_text("Task 2 of 3")).to_be_visible()
    held = Assignment.objects.get(status=Assignment.Status.ASSIGNED)
    page.reload()
    expect(page.get_by_text("Task 2 of 3")).to_be_visible()
    assert Assignment.objects.get(status=Assignment.Status.ASSIGNED) == held
    describe(page, "Coloured bars are shown with a tone.")

    expect(page.get_by_text("Task 3 of 3")).to_be_visible()
    page.get_by_role("button", name="Finish my session now").click()
    page.wait_for_url(f"**/submissions/complete?cc={study.completion_code}")

    assert Description.objects.count() == 2
    assert WorkSession.objects.get().state == WorkSession.State.FINISHED
    # The task in hand when the session ended went back at once.
    assert Assignment.objects.filter(status=Assignment.Status.RETURNED).count() == 1
    # Prolific was asked once whether the session was the participant's.
    assert len(prolific.sent("GET", f"/api/v1/submissions/{session}/")) == 1


def test_a_forged_session_id_gets_no_task(page, prolific, study):
    participant, _ = prolific.participant_joins(study.external_id)
    page.goto(arrival(study, participant, "0123456789abcdef01234567"))
    expect(page.get_by_role("heading", level=1)).to_have_text("This task cannot be opened here")
    expect(page.get_by_text("Prolific does not list this session")).to_be_visible()
    assert not Assignment.objects.exists() and not WorkSession.objects.exists()
