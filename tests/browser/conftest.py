"""Headless Debian Chromium, driven by Playwright; never a downloaded browser."""

import os
import shutil

import pytest
from django.test import testcases
from playwright.sync_api import sync_playwright

from tests.site_objects import make_site

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--autoplay-policy=no-user-gesture-required",
    # navigator.webdriver false, as in a person's browser: the task pages flag it for review
    # (tests/browser/test_typing_signals_flow.py launches one with it on).
    "--disable-blink-features=AutomationControlled",
]


@pytest.fixture(scope="session")
def browser():
    # Playwright's sync API runs an event loop in this thread; Django's ORM, used by the test
    # alongside it, would otherwise refuse to run.
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


@pytest.fixture(scope="session")
def media_through_the_application():
    """Django's live server answers MEDIA_URL itself, without byte ranges; let our own media
    view (the one users get) answer instead, so that seeking is tested for real."""
    original = testcases._MediaFilesHandler._should_handle
    testcases._MediaFilesHandler._should_handle = lambda handler, path: False
    yield
    testcases._MediaFilesHandler._should_handle = original


@pytest.fixture
def page(browser, media_through_the_application, live_server):
    context = browser.new_context(base_url=live_server.url)
    page = context.new_page()
    page.set_default_timeout(10_000)
    script_errors = []
    page.on("pageerror", lambda error: script_errors.append(error))
    # Chromium reports what the Content-Security-Policy blocked on the console: every flow
    # the browser tests drive must work under the site's policy, the YouTube player included.
    blocked = []
    page.on(
        "console",
        lambda message: "Content Security Policy" in message.text and blocked.append(message.text),
    )
    yield page
    context.close()
    assert not script_errors, f"a page script failed: {script_errors}"
    assert not blocked, f"the Content-Security-Policy blocked: {blocked}"


@pytest.fixture
def walked_site(settings, media_root, media_through_the_application):
    """Every role's account and an object behind every page, for the whole-site walks."""
    settings.RELEASE_LICENSE = "cc-by-4.0"  # so that the research page shows the release form
    return make_site()
