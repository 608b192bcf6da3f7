"""A campaign published from its page in a real browser: the page follows the publication
in the background and shows the campaign published without being reloaded by hand."""

import pytest
from playwright.sync_api import expect

from crowd import services as crowd
from tests.browser.test_staff_pages import log_in
from tests.crowd.test_campaigns import campaign_of
from tests.factories import make_staff

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_the_campaign_page_shows_the_campaign_published_without_a_reload(
    page, live_server, settings
):
    settings.PLATFORM_PUBLIC_URL = "https://paracrowd.example.org"
    staff = make_staff(username="sam")
    staff.is_superuser = True
    staff.save()
    campaign = campaign_of(1, platform="studylink")
    log_in(page, "sam", f"/admin/crowd/campaign/{campaign.pk}/change/")

    page.get_by_role("button", name="Publish").click()
    # No Celery worker runs here: the page shows the draft until the test publishes it.
    summary = page.locator("#campaign-summary")
    expect(summary).to_contain_text("not published")
    expect(page.locator("#campaign-following")).to_be_visible()

    crowd.campaign_publish(campaign=campaign)
    expect(summary).to_contain_text(": published", timeout=20_000)
    expect(page.locator("#campaign-following")).to_have_count(0)
