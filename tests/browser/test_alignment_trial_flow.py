"""A new worker takes the alignment trial in the browser, qualifies, aligns a pair, and staff
accept the alignment in review."""

import pytest
from playwright.sync_api import expect

from annotations.models import Alignment, SentencePair
from annotations.trial import trial_pair_mark
from crowd.models import AuditEntry, LedgerEntry, Qualification
from tests.factories import make_staff

from .test_align_flow import A, B, cell, log_in, open_pair
from .test_alignment_review_flow import log_in_as

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# Identical words are not scored; of the rest the gold has man-guy, playing-plays and a-the
# sure, is-plays possible.
GOLD = "0-0 1-1 2p2 3-2 4-3 5-4 6-5"


def test_trial_then_qualified_then_align_then_review(page, live_server):
    open_pair(A, B, "")
    trial_pair = SentencePair.objects.create(
        origin=SentencePair.Origin.IMPORT, import_key="trial", tokens_a=A, tokens_b=B
    )
    trial_pair_mark(pair_id=trial_pair.pk, gold_links=GOLD)
    log_in(page, live_server)

    # Alignment tasks are closed until the trial is passed; the dashboard says so.
    page.goto("/dashboard/")
    expect(page.get_by_role("button", name="Align two sentences · Tier 1")).to_have_count(0)
    page.get_by_role("link", name="Take the alignment trial").click()
    expect(page.get_by_text("Trial pair 1 of 1 · unpaid")).to_be_visible()
    expect(page.get_by_role("grid", name="Alignment grid")).to_be_visible()

    # Two of the three sure links: precision 1, recall 2/3, F1 0.80.
    cell(page, "man ↔ guy: none").click()
    cell(page, "playing ↔ plays: none").click()
    page.get_by_role("button", name="Submit").click()
    expect(
        page.get_by_text("Trial done (F1 0.80). You may now take alignment tasks.")
    ).to_be_visible()
    grant = Qualification.objects.get(kind=Qualification.Kind.ALIGNMENT)
    assert grant.granted_by is None
    assert AuditEntry.objects.get(worker=grant.worker).reason.startswith("Automatic rule")

    # Now the real task, paid once accepted.
    page.get_by_role("button", name="Align two sentences · Tier 1").click()
    expect(page.get_by_role("grid", name="Alignment grid")).to_be_visible()
    cell(page, "man ↔ guy: none").click()
    page.get_by_role("button", name="Submit and next").click()
    expect(page.get_by_text("Thank you! Your alignment was saved.")).to_be_visible()
    submitted = Alignment.objects.get()

    log_in_as(page, live_server, make_staff())
    page.goto("/align/review/")
    page.get_by_label(f"Alignment {submitted.pk} by", exact=False).check()
    page.get_by_role("radio", name="Accept").check()
    page.get_by_role("button", name="Apply to the ticked alignments").click()
    expect(page.get_by_text("1 accepted.")).to_be_visible()
    assert LedgerEntry.objects.get().assignment == submitted.assignment
