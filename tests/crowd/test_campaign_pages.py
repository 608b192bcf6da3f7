"""The campaign pages in the admin and the ``campaign`` command."""

import pytest
from django.core.management import CommandError, call_command
from django.urls import reverse

from crowd.models import Campaign, HitType
from tests.crowd.test_campaigns import campaign_of, expect_balance
from tests.factories import make_segment, make_staff, make_worker

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
            "platform": "mturk",
            "kind": HitType.Kind.DESCRIPTION,
            "tier": 1,
            "size": 5,
            "lifetime_days": 7,
        },
    )
    campaign = Campaign.objects.get()
    assert answer.url == reverse("admin:crowd_campaign_change", args=[campaign.pk])
    page = staff_client.get(answer.url).content.decode()
    assert "&lt;b&gt;Batch&lt;/b&gt;" in page and "<b>Batch</b>" not in page
    assert "3 at 1¢ + 1¢ fee" in page and "6¢ committed" in page


def test_a_campaign_with_nothing_to_offer_is_refused_on_the_form(staff_client):
    answer = staff_client.post(
        reverse("admin:crowd_campaign_create"),
        {"platform": "mturk", "kind": "alignment", "tier": 1, "size": 5, "lifetime_days": 7},
    )
    assert answer.status_code == 200 and "No word alignment HITs" in answer.content.decode()
    assert not Campaign.objects.exists()


def test_publishing_from_the_page_is_refused_when_the_balance_is_short(staff_client, mturk):
    campaign = campaign_of(2)
    expect_balance(mturk, "0.01")
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


def test_the_command_creates_and_shows_a_campaign(capsys):
    make_segment(targets=(3, 3))
    call_command(
        "campaign", "create", "--platform", "mturk", "--kind", "description", "--size", "1"
    )
    out = capsys.readouterr().out
    campaign = Campaign.objects.get()
    assert f"Created campaign {campaign.pk}" in out and "3 places at 1¢ + 1¢ fee" in out
    with pytest.raises(CommandError, match="No connector is configured for mturk"):
        call_command("campaign", "publish", str(campaign.pk))
