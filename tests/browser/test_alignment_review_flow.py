"""A worker aligns a pair in the browser; staff see it flagged against the gold and reject it."""

import re

import pytest
from django.conf import settings
from django.test import Client
from playwright.sync_api import expect

from annotations import services
from annotations.models import Alignment, SentencePair
from crowd import services as crowd
from crowd.models import Assignment, HitType, LedgerEntry, Tier
from tests.factories import make_staff, make_worker

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
    row = page.get_by_role("row").filter(has=page.locator(f"#tick-{submitted.pk}"))
    expect(row.get_by_role("rowheader")).to_have_text(
        re.compile(f"Alignment {submitted.pk} by .* flagged")
    )
    expect(row.get_by_text("mean F1 0.00 against 1 other annotation")).to_be_visible()

    row.get_by_role("checkbox").check()
    page.get_by_role("radio", name="Reject").check()
    page.get_by_role("button", name="Apply to the ticked alignments").click()
    expect(page.get_by_text("Give a reason to reject; the worker sees it.")).to_be_visible()
    page.locator(f"#tick-{submitted.pk}").check()
    page.get_by_role("radio", name="Reject").check()
    page.get_by_label("Reason", exact=True).fill("Punctuation linked to a word.")
    page.get_by_role("button", name="Apply to the ticked alignments").click()
    expect(page.get_by_text("1 rejected.")).to_be_visible()
    expect(page.get_by_text("No alignment is waiting for review.")).to_be_visible()

    submitted.assignment.refresh_from_db()
    assert submitted.assignment.status == Assignment.Status.REJECTED
    assert not LedgerEntry.objects.exists()


def eleven_waiting_alignments():
    pairs = services.pairs_store(
        [
            SentencePair(
                origin=SentencePair.Origin.IMPORT,
                import_key=f"bulk:{n}",
                tokens_a=["A", "man", "plays", "a", "guitar", "."],
                tokens_b=["A", "guy", "strums", "a", "guitar", str(n)],
            )
            for n in range(11)
        ],
        open_hits=True,
    )
    for pair in pairs:
        Alignment.objects.create(pair=pair, annotator="gold", links="0-0 1-1 2-2 3-3 4-4")
    alignments = []
    for _ in pairs:
        worker = make_worker()
        assignment = crowd.assignment_claim(
            worker=worker, tier=Tier.ONE, kind=HitType.Kind.ALIGNMENT
        )
        alignment, _ = services.alignment_submit(
            assignment_id=assignment.pk, worker=worker, links="0-0 1-1 2-2 3-3 4-4"
        )
        alignments.append(alignment)
    return alignments


def test_staff_accept_eleven_alignments_at_once_on_a_page_two_screens_tall(page, live_server):
    alignments = eleven_waiting_alignments()
    log_in_as(page, live_server, make_staff())
    page.set_viewport_size({"width": 1280, "height": 800})
    page.goto("/align/review/")
    height = page.evaluate("document.documentElement.scrollHeight")
    assert height <= 1600, height

    page.get_by_label("Tick all on this page").check()
    page.get_by_role("radio", name="Accept").check()
    page.get_by_role("button", name="Apply to the ticked alignments").click()
    expect(page.get_by_text("11 accepted.")).to_be_visible()
    expect(page.get_by_text("No alignment is waiting for review.")).to_be_visible()
    assert LedgerEntry.objects.filter(assignment__alignment__in=alignments).count() == 11
