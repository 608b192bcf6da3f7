"""What the campaign page shows: amounts in the platform's currency, an error mark only on
errors, a sandbox only where there is one, each platform's own words for its files, why a
campaign offers fewer HITs than asked for, and its state while it is published."""

from datetime import timedelta

import pytest
from django.core.management import call_command
from django.urls import reverse

from crowd import platforms
from crowd import services as crowd
from crowd.models import Campaign, CampaignEvent
from tests.crowd.test_campaigns import campaign_of
from tests.factories import make_mturk_campaign, make_segment, make_staff

pytestmark = pytest.mark.django_db


@pytest.fixture
def staff_client(client):
    staff = make_staff()
    staff.is_superuser = True
    staff.save()
    client.force_login(staff)
    return client


def page_of(client, campaign) -> str:
    return client.get(reverse("admin:crowd_campaign_change", args=[campaign.pk])).content.decode()


def test_large_amounts_are_shown_in_dollars_with_thousands_not_in_cents(staff_client):
    campaign = campaign_of(1, task_cents=10)
    Campaign.objects.filter(pk=campaign.pk).update(reward_cents=900315)
    page = page_of(staff_client, campaign)
    assert "$9,003.15 + $0.11 fee" in page
    assert "900315¢" not in page and "¢ committed" not in page


def test_only_an_error_event_is_marked_and_ordinary_ones_carry_no_cross(staff_client):
    campaign = campaign_of(1)
    CampaignEvent.objects.create(campaign=campaign, message="The platform said no.", is_error=True)
    page = page_of(staff_client, campaign)
    # The admin's boolean icons (a red cross for "not an error") are gone from the page.
    assert "icon-no.svg" not in page and "icon-yes.svg" not in page
    assert page.count("<p>Error</p>") == 1


def test_sandbox_is_shown_only_for_a_platform_that_has_one(staff_client):
    prolific = campaign_of(1)
    study_link = campaign_of(1, platform="studylink")
    for campaign in (prolific, study_link):
        assert "Sandbox" not in page_of(staff_client, campaign)
    mturk = make_mturk_campaign()
    assert "Sandbox" in page_of(staff_client, mturk)
    listing = staff_client.get(reverse("admin:crowd_campaign_changelist")).content.decode()
    assert "icon-no.svg" not in listing and "icon-yes.svg" not in listing


def test_a_study_link_campaign_names_no_other_platform_for_its_files(staff_client, settings):
    settings.PLATFORM_PUBLIC_URL = "https://paracrowd.example.org"
    published = crowd.campaign_publish(campaign=campaign_of(1, platform="studylink"))
    page = page_of(staff_client, published)
    assert "Prolific" not in page
    assert (
        "For the platform&#x27;s own pages:" in page and "of every session with paid work." in page
    )


def test_a_prolific_campaign_gives_its_files_in_prolifics_words(staff_client, prolific_api):
    platforms.install("prolific", prolific_api.connector())
    try:
        published = crowd.campaign_publish(campaign=campaign_of(1))
    finally:
        platforms.install("prolific", None)
    page = page_of(staff_client, published)
    assert "For Prolific&#x27;s own pages (bulk approve, bulk bonus):" in page
    assert "approvals still to send</a> and" in page


def test_asking_for_more_hits_than_want_work_says_why_fewer_were_made(staff_client):
    make_segment(targets=(3, 3))
    answer = staff_client.post(
        reverse("admin:crowd_campaign_create"),
        {"platform": "prolific", "kind": "description", "tier": 1, "size": 3, "lifetime_days": 7},
        follow=True,
    )
    why = (
        "3 HITs were asked for, but only 1 video description HIT wants work in tier 1 "
        "outside other live campaigns, so the campaign offers 1."
    )
    assert why in answer.content.decode()
    assert why in Campaign.objects.get().events.get().message


def test_the_command_says_why_it_made_fewer_hits_than_asked_for(capsys):
    make_segment(targets=(3, 3))
    call_command("campaign", "create", "--kind", "description", "--size", "3")
    assert "3 HITs were asked for, but only 1" in capsys.readouterr().out


def test_a_campaign_of_one_hit_is_counted_in_the_singular():
    make_segment(targets=(1, 1))
    campaign = crowd.campaign_create(
        name="One",
        platform="prolific",
        kind="description",
        tier=1,
        size=1,
        lifetime=timedelta(days=7),
    )
    created = campaign.events.get().message
    assert created.startswith("Created with 1 HIT wanting 1 task: "), created
