"""A campaign through a study link (Connect, SONA, Microworkers, Clickworker, a lab's panel):
publish, paste the link, participants do a session and leave with a completion code and a
verification code, the platform's export confirms the work, and the approvals and bonuses
files come out for the platform's upload pages."""

import csv
import io
from datetime import timedelta

import pytest
from django.urls import reverse

from collector import services as collector
from collector.models import Description
from crowd import services as crowd
from crowd.models import Assignment, Campaign, HitType, PlatformAction, Tier, WorkSession
from crowd.platforms.studylink import links as studylink
from tests.factories import make_segment, make_staff

pytestmark = pytest.mark.django_db

URL = reverse("collector:platform_describe")


@pytest.fixture
def published(settings):
    settings.PLATFORM_PUBLIC_URL = "https://paracrowd.example.org"
    for _ in range(4):
        make_segment(targets=(3, 3))
    draft = crowd.campaign_create(
        name="Panel descriptions",
        platform="studylink",
        kind=HitType.Kind.DESCRIPTION,
        tier=Tier.ONE,
        size=4,
        lifetime=timedelta(days=7),
        tasks_per_session=3,
        tasks_minimum=2,
    )
    return crowd.campaign_publish(campaign=draft)


def token_from(response) -> str:
    return response.content.decode().split('name="token" value="', 1)[1].split('"', 1)[0]


def do_session(client, published, participant, session, texts):
    params = {"participant": participant, "session": session, "campaign": published.external_id}
    page = client.get(URL, params)
    assert page.status_code == 200
    for text in texts:
        answer = client.post(URL, {"token": token_from(page), "text": text, "language": "en"})
        page = client.get(answer["Location"]) if answer.status_code == 302 else answer
    return page


def test_publishing_needs_no_api_and_gives_the_link_to_paste(published):
    assert published.state == Campaign.State.PUBLISHED and published.external_id
    link = crowd.study_link_address(campaign=published)
    assert link.startswith(
        f"https://paracrowd.example.org/external/describe/?campaign={published.external_id}"
    )
    assert "participant={PARTICIPANT_ID}" in link and "session={SESSION_ID}" in link
    sona = crowd.study_link_address(campaign=published, preset="sona")
    assert "participant=%SURVEY_CODE%" in sona and "session=" not in sona


def test_a_participant_finishes_with_the_completion_and_verification_codes(client, published):
    page = do_session(
        client, published, "P100", "S100", ["A man is cutting wood.", "A girl is singing."]
    )
    assert "Task 3 of 3" in page.content.decode()
    done = client.post(URL, {"token": token_from(page), "finish": "1"})
    html = done.content.decode()
    code = studylink.verification_code(
        session_id="S100",
        participant_id="P100",
        config=studylink.StudyLinkConfig.from_settings(),
    )
    assert published.completion_code in html and code in html
    assert Description.objects.count() == 2
    # Nothing is confirmed until the platform's records are.
    assert not Assignment.objects.filter(verified_at__isnull=False).exists()


def test_an_unknown_campaign_in_the_link_is_refused(client, published):
    response = client.get(URL, {"participant": "P1", "session": "S1", "campaign": "nope"})
    assert response.status_code == 403
    assert not WorkSession.objects.exists()


def test_a_missing_participant_id_is_refused_by_name(client, published):
    response = client.get(URL, {"session": "S1", "campaign": published.external_id})
    assert response.status_code == 400 and "participant" in response.content.decode()


def export(rows, *, codes=True):
    out = io.StringIO()
    writer = csv.writer(out, delimiter=";")
    writer.writerow(["Worker ID", "Session", "Code"] if codes else ["Worker ID", "Session"])
    writer.writerows(rows if codes else [row[:2] for row in rows])
    return "\ufeff" + out.getvalue()


def code_of(participant, session):
    return studylink.verification_code(
        session_id=session,
        participant_id=participant,
        config=studylink.StudyLinkConfig.from_settings(),
    )


def confirm(published, rows):
    return crowd.study_link_confirm(
        campaign=published,
        text=export(rows),
        participant_column="worker id",
        session_column="session",
        code_column="code",
    )


def test_the_platforms_export_confirms_sessions_whose_codes_verify(client, published):
    do_session(client, published, "P1", "S1", ["A man rides.", "A dog barks."])
    do_session(client, published, "P2", "S2", ["A cat jumps.", "A bird sings."])
    text = export(
        [
            ["P1", "S1", code_of("P1", "S1").lower()],  # typed in lower case: still good
            ["P2", "S2", "AAAA-BBBB-CCCC"],  # forged
            ["P3", "S1", code_of("P3", "S1")],  # someone else's session
            ["P4", "S9", code_of("P4", "S9")],  # no such session
        ]
    )
    counts = crowd.study_link_confirm(
        campaign=published,
        text=text,
        participant_column="worker id",
        session_column="session",
        code_column="code",
    )
    assert counts == {"sessions": 1, "tasks": 2, "unknown": 1, "someone_else": 1, "bad_code": 1}
    verified = Assignment.objects.filter(verified_at__isnull=False)
    assert set(verified.values_list("worker__external_id", flat=True)) == {"P1"}
    again = crowd.study_link_confirm(
        campaign=published,
        text=text,
        participant_column="worker id",
        session_column="session",
        code_column="code",
    )
    assert again["tasks"] == 0


def test_a_malformed_export_confirms_nothing(client, published):
    do_session(client, published, "P1", "S1", ["A man rides.", "A dog barks."])
    with pytest.raises(crowd.WorkRefused, match="cannot be read"):
        crowd.study_link_confirm(
            campaign=published,
            text="Name,Other\nx,y\n",
            participant_column="worker id",
            session_column="session",
        )
    assert not Assignment.objects.filter(verified_at__isnull=False).exists()


def test_the_approvals_and_bonuses_files_pay_each_session_once(client, published):
    do_session(client, published, "P1", "S1", ["A man rides.", "A dog barks.", "A kid naps."])
    confirm(published, [["P1", "S1", code_of("P1", "S1")]])
    collector.descriptions_review(
        description_ids=list(Description.objects.values_list("pk", flat=True)),
        status="accepted",
        reviewed_by=make_staff(),
        reason="Clear.",
    )
    sheets = crowd.study_link_sheets(campaign=published)
    code = code_of("P1", "S1")
    assert sheets["approvals"].splitlines() == [
        "participant_id,session_id,verification_code",
        f"P1,S1,{code}",
    ]
    # Three tasks, a minimum of two: the third is a bonus of one task's pay.
    amount = f"{published.task_cents / 100:.2f}"
    assert sheets["bonuses"].splitlines()[1] == f"P1,S1,{code},{amount}"
    # Nothing is sent anywhere: the platform is paid through these files.
    assert not PlatformAction.objects.exists()


def test_a_task_past_the_minimum_is_a_bonus_even_when_an_earlier_one_was_rejected(
    client, published
):
    do_session(client, published, "P1", "S1", ["Nice video.", "A dog barks.", "A kid naps."])
    confirm(published, [["P1", "S1", code_of("P1", "S1")]])
    first, *rest = Description.objects.order_by("pk")
    staff = make_staff()
    collector.descriptions_review(
        description_ids=[first.pk], status="rejected", reviewed_by=staff, reason="Off topic."
    )
    collector.descriptions_review(
        description_ids=[d.pk for d in rest], status="accepted", reviewed_by=staff, reason="Ok."
    )
    # The third task submitted is past the minimum of two; the second is within it.
    amount = f"{published.task_cents / 100:.2f}"
    assert crowd.study_link_sheets(campaign=published)["bonuses"].splitlines()[1].endswith(amount)
