"""Staff and researchers in a real browser: a small comparison warns and draws its forest plot,
the research page's sections are a click away, every refusal is the one page saying what to
do, and the campaign form is headed once."""

import pytest
from playwright.sync_api import expect

from research.models import SystemScoreJob
from tests.factories import make_researcher, make_staff, make_worker

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def log_in(page, username, then):
    page.goto(f"/accounts/login/?next={then}")
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill("correct horse battery")
    page.get_by_role("button", name="Log in").click()
    page.wait_for_load_state()


def difference(value, low, high, p_value=0.001):
    return {"items": 3, "difference": value, "low": low, "high": high, "p_value": p_value}


def three_pair_comparison(user):
    row = {"pairs": 3, "scored": 3, "bleu": 40.0, "pinc": 10.0, "combined": 5.0, "meteor": 0.4}
    result = {
        "baseline": "copy",
        "samples": 1000,
        "seed": 5,
        "split": "test split",
        "filter": "accepted",
        "systems": [{**row, "name": "copy"}, {**row, "name": "reword", "pinc": 60.0}],
        "human": None,
        "comparisons": {
            "reword": {
                "bleu": difference(-12.5, -20.0, -4.0),
                "pinc": difference(50.0, 41.0, 58.5),
                "combined": difference(3.2, -1.0, 7.5, 0.2),
                "meteor": difference(-0.05, -0.1, 0.02, 0.3),
            }
        },
    }
    return SystemScoreJob.objects.create(
        requested_by=user, parameters={}, systems=[], state="done", result=result
    )


@pytest.mark.parametrize("width", [390, 1280])
def test_a_three_pair_comparison_warns_and_draws_a_forest_plot_inside_the_page(
    page, live_server, width
):
    job = three_pair_comparison(make_researcher(username="rita"))
    page.set_viewport_size({"width": width, "height": 900})
    log_in(page, "rita", "/research/")

    page.get_by_role("navigation", name="On this page").get_by_role(
        "link", name="Compare systems"
    ).click()
    expect(page.get_by_role("heading", name="Compare systems")).to_be_in_viewport()
    expect(page.locator(f"#small-sample-{job.pk}")).to_contain_text("Small sample: 3 scored pairs")
    plots = page.locator(f"#forest-{job.pk} figure")
    expect(plots).to_have_count(4)
    for n in range(4):
        plot = plots.nth(n)
        plot.scroll_into_view_if_needed()
        expect(plot.locator("svg line.zero")).to_have_count(1)
        expect(plot.locator("svg circle")).to_have_count(1)
        box, page_width = plot.locator("svg").bounding_box(), page.evaluate("innerWidth")
        assert box["x"] >= 0 and box["x"] + box["width"] <= page_width
    # The reword row's PINC interval lies right of zero, its METEOR interval across it.
    pinc, meteor = plots.nth(1).locator("svg"), plots.nth(3).locator("svg")
    for svg, crosses in ((pinc, False), (meteor, True)):
        zero = float(svg.locator("line.zero").get_attribute("x1"))
        interval = svg.locator("g.estimate line")
        low, high = float(interval.get_attribute("x1")), float(interval.get_attribute("x2"))
        assert (low < zero < high) == crosses


def test_a_visitor_is_sent_to_the_sites_log_in_and_back_and_a_worker_is_refused_in_words(page):
    make_staff(username="ada")
    make_worker(username="wanda")

    page.goto("/review/ledger/")
    expect(page.get_by_role("heading", level=1)).to_have_text("Log in")
    assert "/admin/" not in page.url
    page.get_by_label("Username").fill("ada")
    page.get_by_label("Password").fill("correct horse battery")
    page.get_by_role("button", name="Log in").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Ledger")

    page.context.clear_cookies()
    log_in(page, "wanda", "/review/ledger/")
    expect(page.get_by_role("heading", level=1)).to_have_text("This page is not open to you")
    expect(page.locator("#refusal")).to_have_text("This page is for staff.")
    expect(page.get_by_text("You are logged in as wanda")).to_be_visible()
    expect(page.get_by_role("link", name="log in as that account")).to_be_visible()

    page.goto("/no-such-page/")
    expect(page.get_by_role("heading", level=1)).to_have_text("Nothing here")
    expect(page.get_by_role("link", name="Log out wanda")).to_have_count(0)
    expect(page.get_by_role("button", name="Log out wanda")).to_be_visible()


def test_a_failed_log_in_warns_before_the_lockout(page):
    make_worker(username="wanda")
    page.goto("/accounts/login/")
    page.get_by_label("Username").fill("wanda")
    page.get_by_label("Password").fill("not the password")
    page.get_by_role("button", name="Log in").click()
    expect(page.get_by_text("4 attempts left before a lockout of 15 minutes.")).to_be_visible()


def test_the_campaign_form_is_headed_once_and_says_size_counts_hits(page):
    staff = make_staff(username="ada")
    staff.is_superuser = True
    staff.save()
    log_in(page, "ada", "/admin/crowd/campaign/create/")
    expect(page.get_by_role("heading", name="New campaign")).to_have_count(1)
    expect(page.get_by_label("HITs")).to_be_visible()
    expect(page.get_by_text("not how many workers")).to_be_visible()
