"""A worker aligns a pair in the browser; staff see it flagged against the gold and reject it."""

import re

import pytest
from django.conf import settings
from django.test import Client
from playwright.sync_api import expect

from annotations.models import Alignment
from crowd.models import Assignment, LedgerEntry
from tests.factories import make_staff

from .test_align_flow import A, B, cell, log_in, open_pair, open_task_from_the_dashboard

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def log_in_as(page, live_server, user):
    client = Client()
    client.force_login(user)
    page.context.clear_cookies()
    page.context.add_cookies(
        [
            {
                "name": settings.SESSION_COOKIE_NAME,
                "value": client.cookies[settings.SESSION_COOKIE_NAME].value,
                "url": live_server.url,
            }
        ]
    )


def test_a_careless_alignment_is_flagged_and_rejected_with_a_reason(page, live_server):
    pair = open_pair(A, B, "")
    Alignment.objects.create(pair=pair, annotator="gold", links="0-0 1-1 3p2 5-4 6-5")
    log_in(page, live_server)
    open_task_from_the_dashboard(page)

    # The guidelines are one link away, in a new tab.
    guidelines = page.get_by_role("link", name="The full guidelines, with examples")
    expect(guidelines).to_have_attribute("target", "_blank")
    # A careless worker links "A" to "." and submits.
    cell(page, "A ↔ .: none").click()
    page.get_by_role("button", name="Submit and next").click()
    expect(page.get_by_text("Thank you! Your alignment was saved.")).to_be_visible()
    submitted = Alignment.objects.exclude(annotator="gold").get()

    log_in_as(page, live_server, make_staff())
    page.goto("/align/review/")
    heading = page.get_by_role(
        "heading", name=re.compile(f"Alignment {submitted.pk} by .* flagged")
    )
    expect(heading).to_be_visible()
    expect(page.get_by_text("mean F1 0.00 against 1 other annotation")).to_be_visible()

    page.get_by_role("button", name="Reject").click()
    expect(page.get_by_text("Give a reason; the worker sees it.")).to_be_visible()
    page.get_by_label("Reason (needed to reject; the worker sees it)").fill(
        "Punctuation linked to a word."
    )
    page.get_by_role("button", name="Reject").click()
    expect(page.get_by_text(f"Alignment {submitted.pk} rejected.")).to_be_visible()
    expect(page.get_by_text("No alignment is waiting for review.")).to_be_visible()

    submitted.assignment.refresh_from_db()
    assert submitted.assignment.status == Assignment.Status.REJECTED
    assert not LedgerEntry.objects.exists()
