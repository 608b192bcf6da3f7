"""A whole study-link campaign, end to end: the researcher pastes the printed link into the
platform, participants arrive through it and do sessions, the platform's export confirms them
(one participant typed a wrong code there, one never came back), staff review, and the
approvals and bonuses sheets go back to the platform. The sheets list exactly the confirmed
participants with the amounts the pages stated, and ``campaign reconcile`` gives the site's
figures."""

import csv
import io
from datetime import timedelta
from urllib.parse import parse_qsl, urlsplit

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse
from django.utils import timezone

from collector import services as collector
from collector.models import Description
from crowd import platforms
from crowd import services as crowd
from crowd.models import Assignment, HitType, LedgerEntry, Tier, WorkSession
from tests.crowd.end_to_end import URL, Participant, reconciled
from tests.factories import make_segment, make_staff

pytestmark = pytest.mark.django_db

SITE = "https://paracrowd.example.org"
REWARD, BONUS, MINIMUM, LIMIT = 60, 30, 2, 3
TEXTS = [
    "A woman rides a horse along a beach.",
    "A man slices an onion on a board.",
    "Two dogs chase a red ball.",
]


@pytest.fixture
def campaign(settings):
    settings.PLATFORM_PUBLIC_URL = SITE
    settings.STUDY_LINK_FEE_PERCENT = 25  # the platform's fee, booked by the site
    for _ in range(8):
        make_segment(targets=(3, 3))
    draft = crowd.campaign_create(
        name="Panel descriptions",
        platform="studylink",
        kind=HitType.Kind.DESCRIPTION,
        tier=Tier.ONE,
        size=8,
        lifetime=timedelta(days=7),
        tasks_per_session=LIMIT,
        tasks_minimum=MINIMUM,
        task_cents=BONUS,
        confirm_hours=48,
    )
    return crowd.campaign_publish(campaign=draft)


@pytest.fixture
def researcher(client):
    staff = make_staff()
    staff.is_superuser = True
    staff.save()
    client.force_login(staff)
    return client


def through_link(link: str, participant_id: str, session_id: str) -> Participant:
    """A participant the platform sends to the printed ``link``, its placeholders filled."""
    parts = urlsplit(link)
    assert f"{parts.scheme}://{parts.netloc}{parts.path}" == SITE + URL
    ids = {
        "{PARTICIPANT_ID}": participant_id,
        "{SESSION_ID}": session_id,
        "{STUDY_ID}": "PANEL-STUDY-7",  # the platform's own id of the study
    }
    return Participant({name: ids.get(value, value) for name, value in parse_qsl(parts.query)})


def codes_shown(page) -> tuple[str, str]:
    """The completion code and the session's verification code the last page showed."""
    html = page.content.decode()
    completion = html.split('id="completion-code"><strong>', 1)[1].split("<", 1)[0]
    verification = html.split('id="verification-code"><strong>', 1)[1].split("<", 1)[0]
    return completion, verification


def export(rows) -> SimpleUploadedFile:
    """The platform's export of the study, as its researcher downloads it."""
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(["Participant", "Session", "Completion code", "Verification"])
    writer.writerows(rows)
    return SimpleUploadedFile("export.csv", out.getvalue().encode(), content_type="text/csv")


def sheet(researcher, campaign, name) -> list[list[str]]:
    response = researcher.get(reverse("admin:crowd_campaign_sheet", args=[campaign.pk, name]))
    assert response.status_code == 200
    return list(csv.reader(io.StringIO(response.content.decode())))


def test_a_study_link_campaign_pays_exactly_the_confirmed_sessions(campaign, researcher):
    link = crowd.study_link_address(campaign=campaign)
    assert link.startswith(SITE)

    # Two full sessions, one at the minimum, one whose participant will type a wrong code.
    full = [through_link(link, "P1", "S1"), through_link(link, "P2", "S2")]
    at_minimum = through_link(link, "P3", "S3")
    wrong_code = through_link(link, "P4", "S4")
    shown = {}
    for participant in (*full, wrong_code):
        participant.arrive()
        for text in TEXTS:
            done = participant.describe(text)
        shown[participant] = codes_shown(done)
    at_minimum.arrive()
    for text in TEXTS[:MINIMUM]:
        at_minimum.describe(text)
    shown[at_minimum] = codes_shown(at_minimum.finish())
    # P1 comes back for a second session, and stops at its minimum.
    again = through_link(link, "P1", "S6")
    again.arrive()
    for text in ("A girl sings on a stage.", "A boy kicks a ball."):
        again.describe(text)
    shown[again] = codes_shown(again.finish())
    confirmed_sessions = (*full, at_minimum, again)
    assert {completion for completion, _ in shown.values()} == {campaign.completion_code}

    # One does a task and never comes back.
    gone = through_link(link, "P5", "S5")
    gone.arrive()
    gone.describe(TEXTS[0])

    # The researcher uploads the platform's export: P4 typed someone else's code.
    rows = [[p.query["participant"], p.query["session"], *shown[p]] for p in confirmed_sessions]
    rows.append(["P4", "S4", campaign.completion_code, shown[full[0]][1]])
    confirmed = researcher.post(
        reverse("admin:crowd_campaign_confirm", args=[campaign.pk]),
        {
            "export": export(rows),
            "participant_column": "Participant",
            "session_column": "Session",
            "code_column": "Verification",
        },
        follow=True,
    )
    assert "4 sessions confirmed (10 tasks)" in confirmed.content.decode()
    assert "1 with a wrong verification code" in confirmed.content.decode()

    # Past the campaign's deadline, the work nobody confirmed gives its places back.
    later = timezone.now() + timedelta(hours=campaign.confirm_hours + 1)
    assert crowd.study_link_sessions_release(now=later) == 2
    for participant_id in ("P4", "P5"):
        assert not Assignment.objects.filter(
            worker__external_id=participant_id,
            status__in=[Assignment.Status.ASSIGNED, Assignment.Status.SUBMITTED],
        ).exists()

    # Staff accept every description in the queue; only confirmed work is accepted.
    collector.descriptions_review(
        description_ids=list(Description.objects.values_list("pk", flat=True)),
        status="accepted",
        reviewed_by=make_staff(),
        reason="Clear and on topic.",
    )
    accepted = Description.objects.filter(status="accepted")
    assert set(accepted.values_list("worker__external_id", flat=True)) == {"P1", "P2", "P3"}

    # The sheets list exactly the confirmed participants, with the amounts the pages stated.
    for participant in (*confirmed_sessions, wrong_code):
        assert participant.stated_pay() == {(REWARD, MINIMUM, BONUS, LIMIT)}
    approvals = sheet(researcher, campaign, "approvals")
    assert approvals[0] == ["participant_id", "session_id", "verification_code"]
    assert sorted(approvals[1:]) == sorted(
        [p.query["participant"], p.query["session"], shown[p][1]] for p in confirmed_sessions
    )
    bonuses = sheet(researcher, campaign, "bonuses")
    assert bonuses[0] == ["participant_id", "session_id", "verification_code", "amount"]
    assert sorted(bonuses[1:]) == sorted(
        [p.query["participant"], p.query["session"], shown[p][1], f"{BONUS / 100:.2f}"]
        for p in full
    )

    # Reconciling gives the site's own figures: the platform's are not read.
    result = reconciled(campaign)
    assert result["platform"] == "studylink" and result["currency"] == "USD"
    fee = platforms.get("studylink").fee_cents
    assert result["ledger_minor"] == {
        "rewards": 4 * REWARD,
        "bonuses": 2 * BONUS,
        "fees": 4 * fee(REWARD) + 2 * fee(BONUS),
    }
    assert result["platform_minor"] == {"rewards": None, "bonuses": None, "fees": None}
    assert result["difference_minor"] is None
    assert result["submissions"]["approved"] == 4
    assert result["submissions"]["awaiting_review"] == 0
    # P4's and P5's places were released, not returned: nobody gave the study back.
    assert result["submissions"]["released"] == 2 and result["submissions"]["returned"] == 0
    assert result["places_held"] == 4
    earned = LedgerEntry.objects.earnings().filter(campaign=campaign)
    assert set(earned.values_list("worker__external_id", flat=True)) == {"P1", "P2", "P3"}
    assert not WorkSession.objects.filter(state=WorkSession.State.OPEN).exists()
