"""Money the platform agrees with, to the cent: the ledger books what Prolific charges (a
session's whole reward on approval, each bonus once, the fee apart), ``campaign reconcile``
decides every submission and compares the two, and only bonuses Prolific shows unpaid are
listed for paying by hand. Against the local stand-in of Prolific's API."""

import io
import json
from datetime import timedelta

import pytest
from django.core.management import call_command
from django.urls import reverse
from django.utils import timezone

from collector import services as collector
from crowd import platforms
from crowd import services as crowd
from crowd.models import Campaign, HitType, LedgerEntry, PlatformAction, Tier, WorkSession
from crowd.platforms.prolific.client import fee_cents
from tests.crowd.prolific_sessions import session_described
from tests.factories import make_segment, make_staff

pytestmark = pytest.mark.django_db

KEYS = {
    "campaign",
    "platform",
    "currency",
    "submissions",
    "unknown_to_site",
    "platform_minor",
    "ledger_minor",
    "difference_minor",
    "places_held",
}
TEXTS = [
    "A woman rides a horse.",
    "A man slices an onion.",
    "Two dogs chase a ball.",
    "A child plays a piano.",
    "A cat sleeps on a sofa.",
]


@pytest.fixture
def prolific(prolific_api, settings):
    settings.PLATFORM_PUBLIC_URL = "https://paracrowd.example.org"
    platforms.install("prolific", prolific_api.connector())
    yield prolific_api
    platforms.install("prolific", None)


def published(*, tasks_per_session=5, tasks_minimum=None, size=5):
    for _ in range(size):
        make_segment(targets=(3, 3))
    campaign = crowd.campaign_create(
        name="Descriptions",
        platform="prolific",
        kind=HitType.Kind.DESCRIPTION,
        tier=Tier.ONE,
        size=size,
        lifetime=timedelta(days=7),
        tasks_per_session=tasks_per_session,
        tasks_minimum=tasks_minimum,
    )
    return crowd.campaign_publish(campaign=campaign)


def submitted_session(prolific, campaign, texts):
    """A participant does ``texts`` in one session and submits it on Prolific; read back."""
    session_id, session, descriptions = session_described(prolific, campaign, texts)
    prolific.submission_status(session_id, "AWAITING REVIEW")
    crowd.campaign_sync(campaign=campaign)
    return session_id, session, descriptions


def booked(campaign, kind):
    return list(
        LedgerEntry.objects.filter(campaign=campaign, kind=kind).values_list(
            "amount_cents", flat=True
        )
    )


def reconciled_json(campaign) -> dict:
    out = io.StringIO()
    call_command("campaign", "reconcile", str(campaign.pk), "--json", stdout=out)
    return json.loads(out.getvalue())


def test_a_session_with_four_of_five_tasks_accepted_books_the_whole_reward_and_its_fee(
    prolific, settings
):
    campaign = published()
    staff = make_staff()
    session_id, session, descriptions = submitted_session(prolific, campaign, TEXTS)
    collector.descriptions_review(
        description_ids=[d.pk for d in descriptions[:4]],
        status="accepted",
        reviewed_by=staff,
        reason="Clear.",
    )
    collector.descriptions_review(
        description_ids=[descriptions[4].pk], status="rejected", reviewed_by=staff, reason="No."
    )
    assert crowd.platform_actions_send() == 1
    assert prolific.submissions[session_id]["status"] == "APPROVED"
    fee = fee_cents(campaign.reward_cents, percent=settings.PROLIFIC_FEE_PERCENT)
    assert booked(campaign, LedgerEntry.Kind.REWARD) == [campaign.reward_cents]
    assert booked(campaign, LedgerEntry.Kind.FEE) == [fee]
    # What the worker earned is the reward; the fee is nobody's earnings.
    earned = sum(session.worker.ledger_entries.values_list("amount_cents", flat=True))
    assert earned == campaign.reward_cents
    assert 125_000 - prolific.balance == campaign.reward_cents + fee
    summary = crowd.campaign_reconcile(campaign=campaign)
    assert summary["ledger_minor"] == {"rewards": campaign.reward_cents, "bonuses": 0, "fees": fee}
    assert summary["platform_minor"] == summary["ledger_minor"]
    assert summary["difference_minor"] == 0


def test_a_bonus_is_booked_with_its_fee_once_even_when_its_answer_was_lost(prolific, settings):
    campaign = published(tasks_per_session=2, tasks_minimum=1, size=2)
    staff = make_staff()
    session_id, session, descriptions = submitted_session(prolific, campaign, TEXTS[:2])
    prolific.fail_next("POST", "/api/v1/bulk-bonus-payments/*", drop=True)
    review = {"status": "accepted", "reviewed_by": staff, "reason": "Clear."}
    collector.descriptions_review(description_ids=[d.pk for d in descriptions], **review)
    crowd.platform_actions_send()
    crowd.platform_actions_send()
    # Reviewed again: nothing more is booked or sent.
    collector.descriptions_review(description_ids=[d.pk for d in descriptions], **review)
    assert crowd.platform_actions_send() == 0
    bonus = PlatformAction.objects.get(kind=PlatformAction.Kind.BONUS)
    assert bonus.state == PlatformAction.State.FAILED and len(prolific.payments) == 1
    percent = settings.PROLIFIC_FEE_PERCENT
    assert booked(campaign, LedgerEntry.Kind.BONUS) == [campaign.task_cents]
    assert sorted(booked(campaign, LedgerEntry.Kind.FEE)) == sorted(
        [fee_cents(campaign.reward_cents, percent=percent)]
        + [fee_cents(campaign.task_cents, percent=percent)]
    )
    summary = crowd.campaign_reconcile(campaign=campaign)
    assert summary["difference_minor"] == 0
    assert 125_000 - prolific.balance == sum(summary["ledger_minor"].values())


def test_a_bonus_given_up_on_that_prolific_shows_paid_is_not_listed_for_paying_by_hand(
    prolific, client
):
    campaign = published(tasks_per_session=2, tasks_minimum=1, size=2)
    staff = make_staff()
    staff.is_superuser = True
    staff.save()
    _, _, descriptions = submitted_session(prolific, campaign, TEXTS[:2])
    prolific.fail_next("POST", "/api/v1/bulk-bonus-payments/*", drop=True)
    collector.descriptions_review(
        description_ids=[d.pk for d in descriptions],
        status="accepted",
        reviewed_by=staff,
        reason="Clear.",
    )
    crowd.platform_actions_send()
    crowd.platform_actions_send()
    crowd.campaign_reconcile(campaign=campaign)
    client.force_login(staff)
    sheet = client.get(reverse("admin:crowd_campaign_sheet", args=[campaign.pk, "bonuses"]))
    assert sheet.content.decode() == ""
    bonus = PlatformAction.objects.get(kind=PlatformAction.Kind.BONUS)
    assert bonus.state == PlatformAction.State.DONE
    assert len(prolific.payments) == 1


def test_a_bonus_prolific_shows_unpaid_is_listed_once_its_payment_had_time_to_settle(
    prolific, client
):
    campaign = published(tasks_per_session=2, tasks_minimum=1, size=2)
    staff = make_staff()
    staff.is_superuser = True
    staff.save()
    _, session, descriptions = submitted_session(prolific, campaign, TEXTS[:2])
    # The pay call fails before Prolific takes it, and its answer is lost.
    prolific.fail_next("POST", "/api/v1/bulk-bonus-payments/*", status=500)
    collector.descriptions_review(
        description_ids=[d.pk for d in descriptions],
        status="accepted",
        reviewed_by=staff,
        reason="Clear.",
    )
    crowd.platform_actions_send()
    crowd.platform_actions_send()
    crowd.campaign_reconcile(campaign=campaign)
    client.force_login(staff)
    url = reverse("admin:crowd_campaign_sheet", args=[campaign.pk, "bonuses"])
    assert client.get(url).content.decode() == ""  # it may still be paid
    crowd.campaign_reconcile(campaign=campaign, now=timezone.now() + timedelta(hours=2))
    amount = f"{campaign.task_cents // 100}.{campaign.task_cents % 100:02d}"
    assert client.get(url).content.decode() == f"{session.worker.external_id},{amount}\n"


def test_a_submission_awaiting_review_with_no_session_here_is_rejected_as_no_data(prolific):
    campaign = published(size=1, tasks_per_session=1)
    _, stranger = prolific.participant_joins(campaign.external_id)
    prolific.submission_status(stranger, "AWAITING REVIEW")
    summary = crowd.campaign_reconcile(campaign=campaign)
    assert summary["unknown_to_site"] == 1
    assert summary["submissions"]["awaiting_review"] == 1
    crowd.platform_actions_send()
    assert prolific.submissions[stranger]["status"] == "REJECTED"
    (sent,) = prolific.sent("POST", f"/api/v1/submissions/{stranger}/transition/")
    assert sent.json["rejection_category"] == "NO_DATA"
    # Read again: decided once.
    crowd.campaign_reconcile(campaign=campaign)
    assert crowd.platform_actions_send() == 0
    assert reconciled_json(campaign)["submissions"]["rejected"] == 1


def test_reconcile_json_is_one_object_with_every_key_and_no_difference_when_consistent(
    prolific,
):
    campaign = published(size=1, tasks_per_session=1)
    staff = make_staff()
    session_id, _, descriptions = submitted_session(prolific, campaign, TEXTS[:1])
    collector.descriptions_review(
        description_ids=[descriptions[0].pk], status="accepted", reviewed_by=staff, reason="Ok."
    )
    crowd.platform_actions_send()
    out = io.StringIO()
    call_command("campaign", "reconcile", str(campaign.pk), "--json", stdout=out)
    result = json.loads(out.getvalue())  # one object, nothing else
    assert set(result) >= KEYS
    assert result["currency"] == "USD" and result["platform"] == "prolific"
    assert set(result["submissions"]) == {
        "approved",
        "rejected",
        "returned",
        "timed_out",
        "awaiting_review",
        "active",
        "released",
    }
    assert (
        set(result["platform_minor"])
        == set(result["ledger_minor"])
        == {
            "rewards",
            "bonuses",
            "fees",
        }
    )
    assert result["submissions"]["approved"] == 1 and result["difference_minor"] == 0
    assert Campaign.objects.get(pk=campaign.pk).reconciliation == result


def test_reconcile_says_what_it_found_in_words(prolific):
    campaign = published(size=1, tasks_per_session=1)
    out = io.StringIO()
    call_command("campaign", "reconcile", str(campaign.pk), stdout=out)
    assert "Difference (ledger − platform): $0.00." in out.getvalue()


def test_a_plan_counts_the_fee_of_each_bonus_line_rounded_up_on_its_own():
    from crowd.services.pay import bonus_fees_cents

    # Each task past the minimum is its own bonus line: 3 lines of 10 cents at 34% cost
    # 4 cents each, where 34% of the 30 cents together would be 11.
    assert bonus_fees_cents("prolific", task_cents=10, bonuses=3) == 12


def test_while_prolific_cannot_be_read_sessions_it_never_listed_count_released_not_returned(
    prolific,
):
    campaign = published(size=4, tasks_per_session=1)
    # One participant gives the study back, one runs out of time, one visit Prolific never
    # lists (the read-back gives up on it once twice the longest time Prolific allows has
    # passed), and one Prolific lists for another participant.
    returned_id, returned, _ = session_described(prolific, campaign, [])
    late_id, late, _ = session_described(prolific, campaign, [])
    unlisted_id, unlisted, _ = session_described(prolific, campaign, [])
    other_id, other, _ = session_described(prolific, campaign, [])
    prolific.submission_status(returned_id, "RETURNED")
    prolific.submission_status(late_id, "TIMED-OUT")
    del prolific.submissions[unlisted_id]
    prolific.submissions[other_id]["participant_id"] = "someone-else"
    crowd.campaign_sync(campaign=campaign, now=timezone.now() + timedelta(days=1))
    statuses = {s.pk: s.platform_status for s in WorkSession.objects.filter(campaign=campaign)}
    assert statuses == {
        returned.pk: "returned",
        late.pk: "timed out",
        unlisted.pk: "unknown",
        other.pk: "listed for someone else",
    }

    prolific.fail_next("GET", "/api/v1/submissions/", status=400)
    summary = crowd.campaign_reconcile(campaign=campaign)

    # The site's own view: the participant who gave the study back is the one returned, the
    # one who ran out of time timed out; the visits the site gave up on (never listed, or
    # listed for someone else) had their places given back by the site.
    assert "error" in summary
    assert summary["submissions"] == {
        "approved": 0,
        "rejected": 0,
        "returned": 1,
        "timed_out": 1,
        "awaiting_review": 0,
        "active": 0,
        "released": 2,
    }
    assert "unknown_to_site: Prolific's submissions could not be read" in summary["unknown"]
