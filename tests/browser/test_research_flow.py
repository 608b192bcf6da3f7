"""A researcher exports from their page in a real browser, and reads the API docs offline."""

from pathlib import Path
from urllib.parse import urlsplit

import pytest
from django.conf import settings
from django.test import Client
from playwright.sync_api import expect

from tests.factories import make_description, make_researcher, make_segment

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def log_in_as_researcher(page, live_server):
    client = Client()
    client.force_login(make_researcher())
    session = client.cookies[settings.SESSION_COOKIE_NAME].value
    page.context.add_cookies(
        [{"name": settings.SESSION_COOKIE_NAME, "value": session, "url": live_server.url}]
    )


def test_a_researcher_starts_an_export_and_its_download_appears(
    page, live_server, live_worker, media_root
):
    segment = make_segment()
    for text in ("A man plays a guitar.", "Someone strums a guitar."):
        make_description(segment, text)
    log_in_as_researcher(page, live_server)

    page.goto("/research/")
    expect(page.get_by_role("heading", level=1)).to_have_text("Research")
    page.get_by_label("Format").select_option("msvd-csv")
    page.get_by_role("button", name="Export what is shown").click()

    # The page reloads itself while the export runs, until the download is there.
    download_link = page.get_by_role("link", name="Download corpus.csv")
    expect(download_link).to_be_visible(timeout=30_000)
    with page.expect_download() as download:
        download_link.click()
    assert "A man plays a guitar." in Path(download.value.path()).read_text(encoding="utf-8")


def only_the_test_server(route):
    """Any request that would leave this machine fails, as it would offline."""
    if urlsplit(route.request.url).hostname in ("127.0.0.1", "localhost"):
        route.continue_()
    else:
        route.abort()


def test_the_api_docs_load_without_the_internet(page, live_server):
    log_in_as_researcher(page, live_server)
    page.route("**/*", only_the_test_server)

    page.goto("/api/docs/")

    expect(page.get_by_text("ParaCrowd research API")).to_be_visible()
    expect(page.get_by_text("/api/clusters/")).to_be_visible()
