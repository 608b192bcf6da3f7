"""The review pages: staff only, every change a POST with CSRF and a reason, the queue in a
fixed number of queries, and workers seeing their own results."""

import csv
import io
from datetime import timedelta

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from collector import services
from collector.models import Description
from crowd import services as crowd
from crowd.models import AuditEntry, LedgerEntry, Tier, Worker
from review.models import OverviewReport, WorkerSignals
from review.reports import Period
from review.services import (
    overview_report_compute,
    overview_report_request,
    worker_signals_refresh,
)
from tests.factories import make_segment, make_submitted_description, make_worker

pytestmark = pytest.mark.django_db
# What a page costs in queries, the same at every size of corpus (an N+1 shows up as a change).
QUEUE_QUERIES = 4
# Two of them: how their texts were typed; one: their alignments that kept the suggestion; six:
# their gold items and the rule's standing.
WORKER_PANEL_QUERIES = 20

PAGES = ["overview", "queue", "descriptions", "ledger", "audit"]


@pytest.fixture
def staff(client, admin_user):
    client.force_login(admin_user)
    return admin_user


@pytest.fixture
def paster():
    """A Tier-1 worker who pasted one sentence on four segments, with markup in it."""
    worker = make_worker(username="paster")
    for _ in range(4):
        make_submitted_description(worker, "<b>A man</b> is doing something in the video.")
    worker_signals_refresh(worker_id=worker.pk)
    return worker


def test_staff_open_every_review_page_with_one_heading(client, staff, paster):
    for name in PAGES:
        response = client.get(reverse(f"review:{name}"))
        assert response.status_code == 200, name
        assert response.content.decode().count("<h1") == 1, name
    response = client.get(reverse("review:worker", args=[paster.pk]))
    assert response.status_code == 200 and response.content.decode().count("<h1") == 1


def test_strangers_are_sent_to_the_sites_login_and_workers_are_refused(client, paster):
    urls = [reverse(f"review:{name}") for name in PAGES] + [
        reverse("review:worker", args=[paster.pk]),
        reverse("review:ledger_csv"),
    ]
    for url in urls:
        response = client.get(url)
        assert response.status_code == 302, url
        assert response["Location"].startswith(f"{reverse('login')}?next="), url
    client.force_login(make_worker().user)
    for url in urls:
        response = client.get(url)
        assert response.status_code == 403 and "This page is for staff." in response.text, url
    response = client.post(
        reverse("review:standing", args=[paster.pk]), {"action": "promote", "reason": "x"}
    )
    assert response.status_code == 403 and paster.current_tier == Tier.ONE


def test_a_change_without_the_csrf_token_is_refused(admin_user, paster):
    client = Client(enforce_csrf_checks=True)
    client.force_login(admin_user)
    response = client.post(
        reverse("review:standing", args=[paster.pk]), {"action": "promote", "reason": "Good."}
    )
    assert response.status_code == 403 and paster.current_tier == Tier.ONE


def test_changes_refuse_a_get(client, staff, paster):
    for url in [
        reverse("review:standing", args=[paster.pk]),
        reverse("review:bonus", args=[paster.pk]),
        reverse("review:payout"),
    ]:
        assert client.get(url).status_code == 405


def test_the_queue_ranks_tier_one_workers_by_submissions_and_leaves_out_tier_two(client, staff):
    busy, quiet, promoted = make_worker(username="busy"), make_worker(username="quiet"), None
    for n in range(3):
        make_submitted_description(busy, f"A man throws ball number {n}.")
    make_submitted_description(quiet, "A cat sleeps on a sofa.")
    promoted = make_worker(username="promoted", tier=Tier.TWO)
    make_submitted_description(promoted, "A dog runs.")
    page = client.get(reverse("review:queue")).content.decode()
    assert page.index(">busy<") < page.index(">quiet<")
    assert ">promoted<" not in page


def test_the_queue_filters_by_language_signal_and_period(client, staff, paster):
    hindi = make_worker(username="hindi")
    make_submitted_description(hindi, "एक आदमी गिटार बजा रहा है।", language="hi")
    hindi.descriptions.update(time_spent=timedelta(seconds=60))  # watched, then wrote
    worker_signals_refresh(worker_id=hindi.pk)
    queue = reverse("review:queue")
    page = client.get(queue, {"language": "hi"}).content.decode()
    assert ">hindi<" in page and ">paster<" not in page
    page = client.get(queue, {"signal": "duplicates"}).content.decode()
    assert ">paster<" in page and ">hindi<" not in page
    page = client.get(queue, {"signal": "none"}).content.decode()
    assert ">hindi<" in page and ">paster<" not in page
    Description.objects.filter(worker=paster).update(created_at=timezone.now() - timedelta(days=40))
    since = (timezone.localdate() - timedelta(days=7)).isoformat()
    page = client.get(queue, {"since": since}).content.decode()
    assert ">hindi<" in page and ">paster<" not in page


def test_the_queue_leaves_out_blocked_workers_unless_asked(client, staff, paster, admin_user):
    crowd.worker_block(worker=paster, blocked_by=admin_user, reason="Pastes.")
    assert ">paster<" not in client.get(reverse("review:queue")).content.decode()
    page = client.get(reverse("review:queue"), {"blocked": "on"}).content.decode()
    assert ">paster<" in page and "blocked" in page


@pytest.mark.parametrize("workers", [3, 30])
def test_the_queue_takes_the_same_number_of_queries_for_3_workers_as_for_30(
    client, staff, django_assert_num_queries, workers
):
    for _ in range(workers):
        worker = make_worker()
        make_submitted_description(worker, "A man is playing a guitar.")
        worker_signals_refresh(worker_id=worker.pk)
    with django_assert_num_queries(QUEUE_QUERIES):
        assert client.get(reverse("review:queue")).status_code == 200


@pytest.mark.parametrize("examples", [0, 4])
def test_the_worker_panel_takes_the_same_number_of_queries_however_many_examples(
    client, staff, paster, django_assert_num_queries, examples
):
    texts = ["A man is plaing a gitar.", "nice video", "A cat slepes.", "Guitar"]
    for text in texts[:examples]:
        make_submitted_description(paster, text)
    worker_signals_refresh(worker_id=paster.pk)
    with django_assert_num_queries(WORKER_PANEL_QUERIES):
        assert client.get(reverse("review:worker", args=[paster.pk])).status_code == 200


def test_the_worker_panel_explains_each_signal_with_examples_escaped(client, staff, paster):
    page = client.get(reverse("review:worker", args=[paster.pk])).content.decode()
    assert 'id="signal-duplicates"' in page and "Pasting one sentence on many videos" in page
    assert "the same or nearly the same text on 4 segments" in page
    assert "&lt;b&gt;A man&lt;/b&gt;" in page and "<b>A man</b>" not in page


def test_staff_promote_a_worker_with_a_reason_and_it_is_logged(client, staff, paster):
    response = client.post(
        reverse("review:standing", args=[paster.pk]),
        {"action": "promote", "reason": "Good grammar."},
    )
    assert response.status_code == 302
    assert paster.current_tier == Tier.TWO
    entry = AuditEntry.objects.get(worker=paster, action="promote")
    assert (entry.actor, entry.reason) == (staff, "Good grammar.")
    page = client.get(reverse("review:audit")).content.decode()
    assert "Good grammar." in page
    # A worker id that is not a whole number the database can hold filters nothing, never 500.
    for typed in ("\u00b3", "9" * 30, "x"):
        assert client.get(reverse("review:audit"), {"worker": typed}).status_code == 200


def test_a_decision_without_a_reason_changes_nothing_and_says_why(client, staff, paster):
    response = client.post(
        reverse("review:standing", args=[paster.pk]), {"action": "block", "reason": " "}
    )
    assert response.status_code == 400
    page = response.content.decode()
    assert 'id="reason-block-error"' in page and "Give a reason" in page
    paster.refresh_from_db()
    assert paster.blocked_at is None and not AuditEntry.objects.filter(action="block").exists()


def test_staff_block_and_unblock_a_worker(client, staff, paster):
    url = reverse("review:standing", args=[paster.pk])
    client.post(url, {"action": "block", "reason": "Copy-paste."})
    paster.refresh_from_db()
    assert paster.blocked_at is not None
    client.post(url, {"action": "unblock", "reason": "Apologised."})
    paster.refresh_from_db()
    assert paster.blocked_at is None


def test_a_bonus_form_sent_twice_pays_once(client, staff, paster):
    data = {"amount": "0.25", "reason": "Helpful comments.", "token": "form-1"}
    for _ in range(2):
        client.post(reverse("review:bonus", args=[paster.pk]), data)
    assert list(LedgerEntry.objects.values_list("amount_cents", "kind")) == [(25, "bonus")]


def test_staff_reject_in_bulk_and_the_worker_sees_why(client, staff, paster):
    ids = list(paster.descriptions.values_list("pk", flat=True))
    response = client.post(
        reverse("review:descriptions"),
        {"description": ids[:3], "decision": "rejected", "reason": "Same text on every video."},
    )
    assert response.status_code == 302
    assert paster.descriptions.filter(status="rejected").count() == 3
    client.force_login(paster.user)
    page = client.get(reverse("collector:dashboard")).content.decode()
    assert "Rejected: Same text on every video." in page


def test_a_review_without_ticks_or_reason_is_sent_back_with_the_errors(client, staff, paster):
    response = client.post(reverse("review:descriptions"), {"decision": "rejected"})
    page = response.content.decode()
    assert response.status_code == 400
    assert "Tick at least one description." in page and "Give a reason to reject" in page
    assert not paster.descriptions.exclude(status="pending").exists()


def test_accepting_needs_no_reason_and_the_worker_reads_a_plain_one(client, staff, paster):
    ticked = list(paster.descriptions.values_list("pk", flat=True))[:2]
    response = client.post(
        reverse("review:descriptions"), {"decision": "accepted", "description": ticked}
    )
    assert response.status_code == 302
    accepted = paster.descriptions.filter(status="accepted")
    assert sorted(accepted.values_list("pk", flat=True)) == sorted(ticked)
    assert set(accepted.values_list("review_reason", flat=True)) == {"Accepted."}


def test_the_review_list_shows_pending_work_first_and_filters(client, staff, paster):
    other = make_worker(username="other")
    make_submitted_description(other, "A cat sleeps.")
    page = client.get(reverse("review:descriptions")).content.decode()
    assert page.count('class="tick"') == 5
    page = client.get(reverse("review:descriptions"), {"worker": other.pk}).content.decode()
    assert page.count('class="tick"') == 1


def test_the_dashboard_reads_earnings_from_the_ledger(client, paster, admin_user):
    services.descriptions_review(
        description_ids=list(paster.descriptions.values_list("pk", flat=True))[:2],
        status="accepted",
        reviewed_by=admin_user,
        reason="Fine.",
    )
    crowd.bonus_pay(
        worker=paster, amount_cents=30, reason="Nice comments.", paid_by=admin_user, token="b"
    )
    client.force_login(paster.user)
    page = client.get(reverse("collector:dashboard")).content.decode()
    assert '<td id="earned-tier1">$0.02</td>' in page
    assert '<strong id="earned-total">$0.32</strong>' in page
    assert "Nice comments." in page


def test_a_promoted_worker_sees_the_promotion_on_the_dashboard(client, paster, admin_user):
    crowd.qualification_grant(worker=paster, tier=Tier.TWO, granted_by=admin_user, reason="Good.")
    make_segment()  # one they have not described: a segment is described once per worker
    client.force_login(paster.user)
    page = client.get(reverse("collector:dashboard")).content.decode()
    assert 'id="promotion"' in page and "Describe a video · Tier 2 · $0.05 each" in page


def test_a_blocked_worker_sees_why_no_task_is_offered(client, paster, admin_user):
    crowd.worker_block(worker=paster, blocked_by=admin_user, reason="Copying.")
    client.force_login(paster.user)
    page = client.get(reverse("collector:dashboard")).content.decode()
    assert "can no longer take new tasks" in page and "Describe a video" not in page


def test_the_ledger_totals_the_cost_with_the_platform_fee(client, staff, paster, settings):
    settings.PLATFORM_FEE_PERCENT, settings.PLATFORM_FEE_MINIMUM_CENTS = 20, 1
    Worker.objects.filter(pk=paster.pk).update(platform=Worker.Platform.PROLIFIC)
    services.descriptions_review(
        description_ids=list(paster.descriptions.values_list("pk", flat=True)),
        status="accepted",
        reviewed_by=staff,
        reason="Fine.",
    )
    crowd.bonus_pay(worker=paster, amount_cents=250, reason="r", paid_by=staff, token="t")
    page = client.get(reverse("review:ledger")).content.decode()
    # Four tasks at 1¢ (fee 1¢ each, the minimum) and a $2.50 bonus (fee 50¢).
    assert '<dd id="credited">$2.54</dd>' in page
    assert "$0.54" in page and "$3.08" in page


def test_the_ledger_charges_no_platform_fee_on_local_sign_ups_work(client, staff, paster, settings):
    settings.PLATFORM_FEE_PERCENT, settings.PLATFORM_FEE_MINIMUM_CENTS = 20, 1
    crowd.bonus_pay(worker=paster, amount_cents=250, reason="r", paid_by=staff, token="t")
    page = client.get(reverse("review:ledger")).content.decode()
    assert '<dd id="credited">$2.50</dd>' in page
    assert "<dt>Platform fee</dt><dd>$0.00</dd>" in page


def test_the_payments_csv_lists_what_each_worker_is_owed(client, staff, paster):
    crowd.bonus_pay(worker=paster, amount_cents=105, reason="r", paid_by=staff, token="t")
    evil = make_worker(username="=cmd|calc")
    crowd.bonus_pay(worker=evil, amount_cents=7, reason="r", paid_by=staff, token="u")
    response = client.get(reverse("review:ledger_csv"))
    rows = list(csv.DictReader(io.StringIO(response.content.decode())))
    owed = {row["username"]: (row["amount_cents"], row["amount"]) for row in rows}
    assert owed == {"paster": ("105", "1.05"), "'=cmd|calc": ("7", "0.07")}


def test_recording_a_payout_clears_what_is_unpaid(client, staff, paster):
    crowd.bonus_pay(worker=paster, amount_cents=105, reason="r", paid_by=staff, token="t")
    response = client.post(
        reverse("review:payout"),
        {"through": timezone.localdate().isoformat(), "reason": "Paid on the platform."},
    )
    assert response.status_code == 302
    assert not LedgerEntry.objects.filter(payout__isnull=True).exists()
    rows = client.get(reverse("review:ledger_csv")).content.decode().splitlines()
    assert len(rows) == 1  # the header only


def test_the_overview_shows_the_studys_table_one(client, staff, paster):
    make_submitted_description(make_worker(), "एक आदमी गिटार बजा रहा है।", language="hi")
    refresh_overview_now()
    page = client.get(reverse("review:overview")).content.decode()
    assert "Descriptions per day" in page and "<svg" in page
    table = page[page.index('id="table-one"') :]
    tier_one = table[table.index("Tier 1") : table.index("</tr>", table.index("Tier 1"))]
    # pay, workers English/total, submitted English/total, accepted English/total
    numbers = [
        cell.split("<")[0]
        for cell in tier_one.split('<td class="number">')[1:]  # noqa: S608
    ]
    assert numbers == ["$0.01", "1", "2", "4", "5", "0", "0"]


def refresh_overview_now(period: Period | None = None) -> OverviewReport:
    """What beat and a Celery worker do: queue the overview of the period, then compute it."""
    report = overview_report_request(period=period or Period())
    assert overview_report_compute(report_id=report.pk)
    report.refresh_from_db()
    return report


def test_the_worker_panel_shows_whether_the_platform_paid_each_entry_in_flat_queries(client, staff):
    turker = crowd.worker_from_platform(platform="prolific", external_id="W-panel")
    queries = []
    for n in range(6):
        crowd.bonus_pay(
            worker=turker, amount_cents=5, reason="<i>Thanks</i>", paid_by=staff, token=f"b{n}"
        )
        if n in (0, 5):
            with CaptureQueriesContext(connection) as captured:
                page = client.get(reverse("review:worker", args=[turker.pk])).content.decode()
            queries.append(len(captured))
    assert queries[0] == queries[1]
    payments = page.split('id="payments"')[1].split("</table>")[0]
    assert payments.count("<td>pending</td>") == 6
    assert "&lt;i&gt;Thanks&lt;/i&gt;" in payments and "<i>Thanks</i>" not in payments


def test_the_worker_panel_shows_each_examples_current_bleu_not_the_one_stored_with_it(
    client, staff, paster
):
    signals = WorkerSignals.objects.get(worker=paster)
    described = paster.descriptions.first()
    signals.details["bleu"] = {
        "explanation": "Mean leave-one-out BLEU 1.0 over 3 descriptions.",
        "examples": [{"id": described.pk, "note": "BLEU 99.9"}],
    }
    signals.save()
    page = client.get(reverse("review:worker", args=[paster.pk])).content.decode()
    assert "&lt;b&gt;A man&lt;/b&gt;" in page and "BLEU 99.9" not in page
