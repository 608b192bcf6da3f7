"""Study links that work as printed for every platform, and the limits that keep invented ids
from holding a campaign's places: one open session per participant, every new session counted
against the address, and a deadline after which unconfirmed work gives its places back."""

from datetime import timedelta
from urllib.parse import parse_qsl, urlsplit

import pytest
from django.urls import reverse
from django.utils import timezone

from crowd import services as crowd
from crowd.models import Assignment, Campaign, Hit, HitType, Tier, WorkSession
from crowd.platforms.studylink import links as studylink
from crowd.tasks import sync_campaigns
from tests.factories import make_segment

pytestmark = pytest.mark.django_db

URL = reverse("collector:platform_describe")


def publish(settings, *, preset="generic", confirm_hours=48, segments=4):
    settings.PLATFORM_PUBLIC_URL = "https://paracrowd.example.org"
    for _ in range(segments):
        make_segment(targets=(3, 3))
    draft = crowd.campaign_create(
        name="Panel descriptions",
        platform="studylink",
        kind=HitType.Kind.DESCRIPTION,
        tier=Tier.ONE,
        size=segments,
        lifetime=timedelta(days=7),
        tasks_per_session=3,
        tasks_minimum=2,
        study_link_preset=preset,
        confirm_hours=confirm_hours,
    )
    return crowd.campaign_publish(campaign=draft)


def arrive(client, link, **appended):
    """Follow ``link`` as its platform would: placeholders replaced, its own ids appended."""
    params = dict(parse_qsl(urlsplit(link).query))
    for name, value in params.items():
        if value.startswith(("{", "%")):
            params[name] = f"X{name}1"
    return client.get(URL, {**params, **appended})


def token_from(response) -> str:
    return response.content.decode().split('name="token" value="', 1)[1].split('"', 1)[0]


def submit(client, page, text):
    answer = client.post(URL, {"token": token_from(page), "text": text, "language": "en"})
    return client.get(answer["Location"]) if answer.status_code == 302 else answer


def test_connect_participants_arrive_with_connects_own_parameter_names(client, settings):
    campaign = publish(settings, preset="connect")
    link = crowd.study_link_address(campaign=campaign)
    assert "participantId" not in link  # Connect appends its ids itself
    page = arrive(client, link, participantId="CP1", assignmentId="CA1", projectId="PR1")
    assert page.status_code == 200, page.content.decode()
    session = WorkSession.objects.get()
    assert (session.worker.external_id, session.external_id) == ("CP1", "CA1")


def test_clickworker_participants_arrive_with_user_id_and_their_export_confirms_them(
    client, settings
):
    campaign = publish(settings, preset="clickworker")
    page = arrive(client, crowd.study_link_address(campaign=campaign), user_id="CW1")
    assert page.status_code == 200, page.content.decode()
    submit(client, page, "A man is cutting wood.")
    session = WorkSession.objects.get()
    assert session.worker.external_id == "CW1" and session.external_id.startswith("local-")
    # Clickworker sends no session id: the export has none, and the session is found anyway.
    counts = crowd.study_link_confirm(
        campaign=campaign,
        text="user_id\nCW1\n",
        participant_column="user_id",
        session_column=None,
    )
    assert counts["sessions"] == 1 and counts["tasks"] == 1


def test_one_participant_has_sessions_of_their_own_in_two_clickworker_campaigns(client, settings):
    first = publish(settings, preset="clickworker")
    second = publish(settings, preset="clickworker")
    for campaign in (first, second):
        page = arrive(client, crowd.study_link_address(campaign=campaign), user_id="CW1")
        assert page.status_code == 200, page.content.decode()
    assert WorkSession.objects.values("external_id").distinct().count() == 2


@pytest.mark.parametrize(
    "public_url",
    ["", "http://localhost:8000", "https://127.0.0.1:8443", "http://paracrowd.example.org"],
)
def test_no_link_is_given_while_participants_could_not_reach_it(settings, public_url):
    campaign = publish(settings)
    settings.PLATFORM_PUBLIC_URL = public_url
    with pytest.raises(crowd.WorkRefused, match="PLATFORM_PUBLIC_URL") as refusal:
        crowd.study_link_address(campaign=campaign)
    assert "https address" in str(refusal.value)


def test_the_campaign_page_says_why_it_shows_no_link(admin_client, settings):
    campaign = publish(settings)
    settings.PLATFORM_PUBLIC_URL = "http://localhost:8000"
    page = admin_client.get(reverse("admin:crowd_campaign_change", args=[campaign.pk]))
    html = page.content.decode()
    assert "No link: PLATFORM_PUBLIC_URL is http://localhost:8000" in html
    assert "?campaign=" not in html


def test_a_link_for_another_platform_is_refused_once_participants_arrived(client, settings):
    campaign = publish(settings)
    # Before anyone arrives, a link for another platform makes it the campaign's.
    assert "%SURVEY_CODE%" in crowd.study_link_address(campaign=campaign, preset="sona")
    assert Campaign.objects.get().study_link_preset == "sona"
    arrive(client, crowd.study_link_address(campaign=campaign), participant="SC1")
    with pytest.raises(crowd.WorkRefused, match="SONA, and participants have arrived"):
        crowd.study_link_address(campaign=campaign, preset="connect")
    assert Campaign.objects.get().study_link_preset == "sona"


def test_a_participant_with_a_session_open_cannot_open_another(client, settings):
    campaign = publish(settings)
    params = {"participant": "P1", "campaign": campaign.external_id}
    assert client.get(URL, {**params, "session": "S1"}).status_code == 200
    second = client.get(URL, {**params, "session": "S2"})
    assert second.status_code == 403
    assert "already have a session open in this study" in second.content.decode()
    assert list(WorkSession.objects.values_list("external_id", flat=True)) == ["S1"]
    # The first one is theirs as before.
    assert client.get(URL, {**params, "session": "S1"}).status_code == 200


def test_every_new_session_counts_against_the_addresss_hourly_allowance(client, settings):
    campaign = publish(settings)
    settings.PLATFORM_ARRIVALS_PER_HOUR = 2
    params = {"participant": "P1", "campaign": campaign.external_id}
    for session_id in ("S1", "S2"):
        assert client.get(URL, {**params, "session": session_id}).status_code == 200
        crowd.session_finish(session=WorkSession.objects.get(external_id=session_id))
    refused = client.get(URL, {**params, "session": "S3"})
    assert refused.status_code == 429
    assert WorkSession.objects.count() == 2
    # A reload of a session already open is not a new arrival.
    assert client.get(URL, {**params, "session": "S2"}).status_code == 200


def squat(client, campaign, count):
    for n in range(count):
        params = {"participant": f"Q{n}", "session": f"T{n}", "campaign": campaign.external_id}
        submit(client, client.get(URL, params), "Invented work.")


def test_unconfirmed_work_gives_its_places_back_after_the_campaigns_deadline(client, settings):
    campaign = publish(settings, confirm_hours=12)
    squat(client, campaign, 3)
    assert sum(Hit.objects.values_list("submitted_count", flat=True)) == 3
    started = WorkSession.objects.order_by("started_at").first().started_at
    assert crowd.study_link_sessions_release(now=started + timedelta(hours=11)) == 0
    assert crowd.study_link_sessions_release(now=timezone.now() + timedelta(hours=12)) == 3
    assert sum(Hit.objects.values_list("submitted_count", flat=True)) == 0
    # Their work is not confirmed, and the task each held next went back.
    assert Assignment.objects.filter(status="unverified").count() == 3
    assert not Assignment.objects.filter(status__in=["submitted", "assigned"]).exists()
    assert set(WorkSession.objects.values_list("state", flat=True)) == {"abandoned"}
    # The platform's export listing one later still confirms it.
    code = studylink.verification_code(
        session_id="T1", participant_id="Q1", config=studylink.StudyLinkConfig.from_settings()
    )
    counts = crowd.study_link_confirm(
        campaign=campaign,
        text=f"worker,session,code\nQ1,T1,{code}\n",
        participant_column="worker",
        session_column="session",
        code_column="code",
    )
    assert counts["tasks"] == 1
    assert Assignment.objects.filter(status="submitted").count() == 1


def test_reconcile_counts_released_sessions_as_released_not_returned(client, settings):
    campaign = publish(settings, confirm_hours=12)
    squat(client, campaign, 3)
    crowd.study_link_sessions_release(now=timezone.now() + timedelta(hours=12))
    counts = crowd.campaign_reconcile(campaign=campaign)["submissions"]
    assert counts["released"] == 3 and counts["returned"] == 0
    # One the export lists after its release is confirmed work, awaiting review again.
    code = studylink.verification_code(
        session_id="T1", participant_id="Q1", config=studylink.StudyLinkConfig.from_settings()
    )
    crowd.study_link_confirm(
        campaign=campaign,
        text=f"worker,session,code\nQ1,T1,{code}\n",
        participant_column="worker",
        session_column="session",
        code_column="code",
    )
    result = crowd.campaign_reconcile(campaign=campaign)
    assert result["submissions"]["released"] == 2
    assert result["submissions"]["awaiting_review"] == 1
    assert result["places_held"] == 1
    assert "2 released" in " ".join(crowd.reconciliation_lines(result))


def test_the_periodic_read_back_releases_study_link_work_past_its_deadline(client, settings):
    campaign = publish(settings)
    squat(client, campaign, 2)
    WorkSession.objects.update(started_at=timezone.now() - timedelta(hours=49))
    sync_campaigns()
    assert not Assignment.objects.filter(status="submitted").exists()
    assert sum(Hit.objects.values_list("submitted_count", flat=True)) == 0


def test_the_campaign_page_states_the_deadline_to_confirm(admin_client, settings):
    campaign = publish(settings, confirm_hours=12)
    page = admin_client.get(reverse("admin:crowd_campaign_change", args=[campaign.pk]))
    assert "Confirm each session within 12 hours of its start" in page.content.decode()


def test_a_drafts_study_link_sheet_answers_with_a_message_and_is_not_linked(admin_client):
    make_segment()
    draft = crowd.campaign_create(
        name="Draft",
        platform="studylink",
        kind=HitType.Kind.DESCRIPTION,
        tier=Tier.ONE,
        size=1,
        lifetime=timedelta(days=7),
    )
    sheet = reverse("admin:crowd_campaign_sheet", args=[draft.pk, "approvals"])
    response = admin_client.get(sheet, follow=True)
    assert response.status_code == 200
    assert "Publish the campaign first" in response.content.decode()
    page = admin_client.get(reverse("admin:crowd_campaign_change", args=[draft.pk]))
    assert sheet not in page.content.decode()


def test_a_draft_study_link_campaign_says_its_link_waits_for_an_address_to_reach(admin_client):
    make_segment()
    draft = crowd.campaign_create(
        name="Draft",
        platform="studylink",
        kind=HitType.Kind.DESCRIPTION,
        tier=Tier.ONE,
        size=1,
        lifetime=timedelta(days=7),
    )
    page = admin_client.get(reverse("admin:crowd_campaign_change", args=[draft.pk]))
    assert (
        "Its link to paste is made when it is published; it will not be shown while "
        "PLATFORM_PUBLIC_URL is http://localhost:8000, an address of this machine only"
    ) in page.content.decode()
