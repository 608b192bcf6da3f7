"""The campaign pages in the admin and the ``campaign`` command."""

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import CommandError, call_command
from django.urls import reverse

from crowd import platforms
from crowd import services as crowd
from crowd.campaign_admin import CLOSED_NOTICE, NOT_OFFERED
from crowd.models import Campaign, HitType, WorkSession
from crowd.platforms.mturk.client import CLOSURE_MESSAGE
from tests.crowd.test_campaigns import campaign_of
from tests.factories import make_mturk_campaign, make_segment, make_staff, make_worker

pytestmark = pytest.mark.django_db


@pytest.fixture
def staff_client(client):
    staff = make_staff()
    staff.is_superuser = True
    staff.save()
    client.force_login(staff)
    return client


def test_staff_create_a_draft_campaign_from_the_form(staff_client):
    make_segment(targets=(3, 3))
    answer = staff_client.post(
        reverse("admin:crowd_campaign_create"),
        {
            "name": "<b>Batch</b>",
            "platform": "prolific",
            "kind": HitType.Kind.DESCRIPTION,
            "tier": 1,
            "size": 5,
            "tasks_per_session": 3,
            "task_cents": 10,
            "languages": "es, fr",
            "lifetime_days": 7,
        },
    )
    campaign = Campaign.objects.get()
    assert answer.url == reverse("admin:crowd_campaign_change", args=[campaign.pk])
    page = staff_client.get(answer.url).content.decode()
    assert "&lt;b&gt;Batch&lt;/b&gt;" in page and "<b>Batch</b>" not in page
    # Three descriptions wanted, one session of three at 10¢ a task (Prolific's fee 11¢).
    assert "1 at $0.30 + $0.11 fee: sessions of up to 3 tasks" in page
    assert "$0.41 committed" in page
    assert "$9.00 an hour at 40 seconds a task" in page and "minimum is $8.00" in page
    assert (campaign.platform, campaign.languages) == ("prolific", ["es", "fr"])


def test_the_form_offers_prolific_by_default_and_not_mechanical_turk(staff_client):
    page = staff_client.get(reverse("admin:crowd_campaign_create")).content.decode()
    assert '<option value="prolific" selected>Prolific</option>' in page
    assert 'value="mturk"' not in page
    assert NOT_OFFERED in page.replace("&#x27;", "'")


def test_a_mechanical_turk_campaign_posted_to_the_form_is_refused(staff_client):
    make_segment(targets=(3, 3))
    answer = staff_client.post(
        reverse("admin:crowd_campaign_create"),
        {"platform": "mturk", "kind": "description", "tier": 1, "size": 1, "lifetime_days": 7},
    )
    assert answer.status_code == 200 and "30 September 2026" in answer.content.decode()
    assert not Campaign.objects.exists()


def test_a_campaign_with_nothing_to_offer_is_refused_on_the_form(staff_client):
    answer = staff_client.post(
        reverse("admin:crowd_campaign_create"),
        {"platform": "prolific", "kind": "alignment", "tier": 1, "size": 5, "lifetime_days": 7},
    )
    assert answer.status_code == 200 and "No word alignment HITs" in answer.content.decode()
    assert not Campaign.objects.exists()


@pytest.fixture
def prolific(prolific_api):
    platforms.install("prolific", prolific_api.connector())
    yield prolific_api
    platforms.install("prolific", None)


def test_publishing_from_the_page_is_refused_when_the_balance_is_short(staff_client, prolific):
    campaign = campaign_of(2)
    prolific.balance = 1
    answer = staff_client.post(
        reverse("admin:crowd_campaign_action", args=[campaign.pk, "publish"]), follow=True
    )
    assert "does not cover" in answer.content.decode()
    campaign.refresh_from_db()
    assert campaign.state == Campaign.State.DRAFT


def test_workers_cannot_reach_the_campaign_pages(client):
    worker = make_worker()
    client.force_login(worker.user)
    answer = client.get(reverse("admin:crowd_campaign_create"))
    assert answer.status_code == 302 and "/login/" in answer.url


def test_an_old_mechanical_turk_campaign_still_has_its_pages_with_the_closure(staff_client):
    campaign = make_mturk_campaign()
    listing = staff_client.get(reverse("admin:crowd_campaign_changelist"))
    assert listing.status_code == 200 and campaign.name in listing.content.decode()
    assert CLOSED_NOTICE in listing.content.decode()
    page = staff_client.get(reverse("admin:crowd_campaign_change", args=[campaign.pk]))
    text = page.content.decode()
    assert page.status_code == 200 and CLOSED_NOTICE in text
    assert "Read back now" in text and "Extend" not in text


def test_a_prolific_campaign_page_has_no_closure_notice(staff_client):
    campaign = campaign_of(1)
    page = staff_client.get(reverse("admin:crowd_campaign_change", args=[campaign.pk]))
    assert "Publish" in page.content.decode()
    assert CLOSED_NOTICE not in page.content.decode()
    listing = staff_client.get(reverse("admin:crowd_campaign_changelist")).content.decode()
    assert CLOSED_NOTICE not in listing


def test_the_command_creates_a_prolific_campaign_by_default_and_shows_it(capsys):
    make_segment(targets=(3, 3))
    call_command("campaign", "create", "--kind", "description", "--size", "1", "--task-cents", "9")
    out = capsys.readouterr().out
    campaign = Campaign.objects.get()
    assert campaign.platform == "prolific"
    assert f"Created campaign {campaign.pk}" in out
    # One segment wants three descriptions: one session of three, at 9¢ a task.
    assert "1 place at $0.27 + $0.10 fee, sessions of up to 3 tasks" in out
    assert "hourly rate: $8.10 at 40 seconds a task" in out
    with pytest.raises(CommandError, match="No connector is configured for prolific"):
        call_command("campaign", "publish", str(campaign.pk))


def test_the_command_refuses_mechanical_turk_with_the_closure(capsys):
    make_segment(targets=(3, 3))
    with pytest.raises(CommandError) as refusal:
        call_command(
            "campaign", "create", "--platform", "mturk", "--kind", "description", "--size", "1"
        )
    assert str(refusal.value) == CLOSURE_MESSAGE
    assert not Campaign.objects.exists()


def test_the_commands_help_says_prolific_is_the_default_and_mechanical_turk_closed(capsys):
    with pytest.raises(SystemExit):
        call_command("campaign", "create", "--help")
    text = " ".join(capsys.readouterr().out.split())
    assert "default: prolific" in text and "closed to new HITs on 30 September 2026" in text


def test_the_command_plans_the_places_rate_and_cost_of_the_work_wanted(capsys):
    call_command(
        "campaign", "plan", "--kind", "description", "--tasks", "2000", "--tasks-per-session", "20"
    )
    out = capsys.readouterr().out
    # 20 tasks of 40 s: 14 whole minutes; the least reward reaching $8.00 an hour over them is
    # 187¢, so 10¢ a task (200¢ a place, Prolific's 34% fee 68¢).
    assert "2000 tasks: 100 places of up to 20 tasks (finish after 20)" in out
    assert "pay: 10¢ a task at 40 s a task = $8.57 an hour (minimum $8.00)" in out
    assert "a place: $2.00 + $0.68 fee" in out
    assert "cost at most: $268.00" in out
    assert not Campaign.objects.exists()


def test_a_study_link_campaign_page_gives_the_links_and_confirms_an_uploaded_export(
    staff_client, client, settings
):
    settings.PLATFORM_PUBLIC_URL = "https://paracrowd.example.org"
    published = crowd.campaign_publish(
        campaign=campaign_of(1, platform="studylink", tasks_per_session=1)
    )
    page = staff_client.get(reverse("admin:crowd_campaign_change", args=[published.pk]))
    html = page.content.decode()
    # The link of the platform the campaign was made for (a lab's own panel by default).
    assert f"?campaign={published.external_id}&amp;participant={{PARTICIPANT_ID}}" in html
    assert "Confirm sessions from the platform" in html

    visit = {"participant": "P1", "session": "S1", "campaign": published.external_id}
    task = client.get(reverse("collector:platform_describe"), visit).content.decode()
    token = task.split('name="token" value="', 1)[1].split('"', 1)[0]
    client.post(
        reverse("collector:platform_describe"),
        {"token": token, "text": "A man is rowing a boat.", "language": "en"},
    )
    export = SimpleUploadedFile("export.csv", b"Participant,Session\nP1,S1\n", "text/csv")
    answer = staff_client.post(
        reverse("admin:crowd_campaign_confirm", args=[published.pk]),
        {"export": export, "participant_column": "participant", "session_column": "session"},
        follow=True,
    )
    assert "1 session confirmed (1 task)" in answer.content.decode()
    assert WorkSession.objects.get().assignments.get().verified_at is not None


def test_only_staff_who_may_change_campaigns_confirm_an_export(client):
    published = crowd.campaign_publish(campaign=campaign_of(1, platform="studylink"))
    client.force_login(make_worker().user)
    export = SimpleUploadedFile("export.csv", b"Participant,Session\nP1,S1\n", "text/csv")
    answer = client.post(
        reverse("admin:crowd_campaign_confirm", args=[published.pk]),
        {"export": export, "participant_column": "participant", "session_column": "session"},
    )
    assert answer.status_code == 302 and "/admin/login/" in answer["Location"]


def test_the_form_is_headed_once_and_says_size_counts_hits(staff_client):
    page = staff_client.get(reverse("admin:crowd_campaign_create")).content.decode()
    assert page.count("<h1>New campaign</h1>") == 1
    assert '<label for="id_size">HITs:</label>' in page and "not how many workers" in page
