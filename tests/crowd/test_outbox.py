"""Decisions reaching Mechanical Turk through the outbox: each is queued in the decision's
transaction and sent once, the exact requests checked with botocore's Stubber (which also
refuses any call nobody expected, so "sent once" is checked by every test). These run on a day
before Mechanical Turk's last day for payments; what happens after it is in
test_closed_platform_payments.py."""

import threading
from datetime import date, timedelta

import pytest
from django.db import connection
from django.urls import reverse
from django.utils import timezone

from collector import services as collector
from collector.models import Description
from crowd import platforms
from crowd import services as crowd
from crowd.models import (
    Assignment,
    AuditEntry,
    Campaign,
    CampaignEvent,
    CampaignHit,
    HitType,
    LedgerEntry,
    PlatformAction,
    PlatformQualification,
    Tier,
)
from crowd.services import outbox
from crowd.tasks import send_platform_actions
from tests.factories import make_description, make_segment, make_worker

pytestmark = pytest.mark.django_db

FEEDBACK_SUBMITTED_ONLY = "This operation can be called with a status of: Submitted"


@pytest.fixture(autouse=True)
def before_mechanical_turk_stopped_payments(monkeypatch):
    monkeypatch.setattr("crowd.platforms.mturk.client._today", lambda: date(2026, 10, 15))


@pytest.fixture
def campaign():
    return Campaign.objects.create(
        name="Describe, tier 1",
        platform=Campaign.Platform.MTURK,
        sandbox=True,
        hit_type=HitType.objects.for_kind(HitType.Kind.DESCRIPTION),
        tier=Tier.ONE,
        reward_cents=1,
        fee_cents=1,
        lifetime=timedelta(days=7),
        external_id="HT1",
    )


@pytest.fixture
def turker():
    return crowd.worker_from_platform(platform="mturk", external_id="W1")


_ids = iter(range(1, 10_000))


def submitted(worker, campaign, *, verified=True) -> Assignment:
    """A worker's submitted assignment on a HIT the campaign published on Mechanical Turk."""
    hit = make_segment().hits.get(tier=Tier.ONE)
    n = next(_ids)
    CampaignHit.objects.create(
        campaign=campaign, hit=hit, max_assignments=1, external_hit_id=f"H{n}"
    )
    hit.submitted_count = 1
    hit.save(update_fields=["submitted_count"])
    now = timezone.now()
    return Assignment.objects.select_related("hit__hit_type").get(
        pk=Assignment.objects.create(
            hit=hit,
            worker=worker,
            status=Assignment.Status.SUBMITTED,
            expires_at=now + timedelta(minutes=15),
            submitted_at=now,
            external_assignment_id=f"A{n}",
            external_hit_id=f"H{n}",
            campaign=campaign,
            verified_at=now if verified else None,
        ).pk
    )


def pay(*assignments, reason="Good description."):
    return crowd.ledger_pay_assignments(assignments=assignments, reason=reason)


def test_accepted_work_is_approved_on_mechanical_turk_with_the_reason(mturk, campaign, turker):
    assignment = submitted(turker, campaign)
    assert pay(assignment) == 1
    action = PlatformAction.objects.get()
    assert (action.token, action.state) == (f"approve:assignment:{assignment.pk}", "pending")
    assert action.ledger_entry == LedgerEntry.objects.earnings().get(assignment=assignment)
    assert action.campaign == campaign
    mturk.add_response(
        "approve_assignment",
        {},
        {
            "AssignmentId": assignment.external_assignment_id,
            "RequesterFeedback": "Good description.",
        },
    )
    assert crowd.platform_actions_send() == 1
    action.refresh_from_db()
    assert action.state == "done" and action.done_at is not None and action.attempts == 0


def test_sending_twice_calls_the_platform_once(mturk, campaign, turker):
    assignment = submitted(turker, campaign)
    pay(assignment)
    pay(assignment)  # paying again queues nothing more
    mturk.add_response(
        "approve_assignment",
        {},
        {
            "AssignmentId": assignment.external_assignment_id,
            "RequesterFeedback": "Good description.",
        },
    )
    assert crowd.platform_actions_send() == 1
    assert crowd.platform_actions_send() == 0
    assert PlatformAction.objects.count() == 1


def test_queuing_the_same_decision_again_changes_nothing(campaign, turker):
    assignment = submitted(turker, campaign)
    first = crowd.platform_action_queue(
        kind="reject", worker=turker, token="reject:assignment:1", assignment=assignment
    )
    again = crowd.platform_action_queue(
        kind="reject",
        worker=turker,
        token="reject:assignment:1",
        assignment=assignment,
        details={"feedback": "other"},
    )
    assert again.pk == first.pk and again.details == {}


def test_rejected_work_is_rejected_with_the_reviews_reason_as_feedback(
    mturk, campaign, turker, admin_user
):
    assignment = submitted(turker, campaign)
    description = make_description(
        assignment.hit.item.segment,
        "asdf asdf",
        worker=turker,
        status=Description.Status.PENDING,
        assignment=assignment,
    )
    collector.descriptions_review(
        description_ids=[description.pk],
        status=Description.Status.REJECTED,
        reviewed_by=admin_user,
        reason="The sentence does not describe the video.",
    )
    mturk.add_response(
        "reject_assignment",
        {},
        {
            "AssignmentId": assignment.external_assignment_id,
            "RequesterFeedback": "The sentence does not describe the video.",
        },
    )
    assert crowd.platform_actions_send() == 1
    assert not LedgerEntry.objects.earnings().exists()


def test_an_overturned_rejection_is_approved_over_the_rejection(mturk, campaign, turker):
    assignment = submitted(turker, campaign)
    crowd.assignment_reject(assignment_ids=[assignment.pk], reason="Spam.")
    mturk.add_response(
        "reject_assignment",
        {},
        {"AssignmentId": assignment.external_assignment_id, "RequesterFeedback": "Spam."},
    )
    crowd.platform_actions_send()
    crowd.assignment_reinstate(assignment_ids=[assignment.pk])
    pay(assignment, reason="Overturned: it was fine.")
    mturk.add_response(
        "approve_assignment",
        {},
        {
            "AssignmentId": assignment.external_assignment_id,
            "RequesterFeedback": "Overturned: it was fine.",
            "OverrideRejection": True,
        },
    )
    assert crowd.platform_actions_send() == 1


def test_a_rejection_overturned_before_it_was_sent_is_never_sent(mturk, campaign, turker):
    assignment = submitted(turker, campaign)
    crowd.assignment_reject(assignment_ids=[assignment.pk], reason="Spam.")
    crowd.assignment_reinstate(assignment_ids=[assignment.pk])
    assert crowd.platform_actions_send() == 1  # no reject_assignment: the Stubber has none
    reject = PlatformAction.objects.get(kind="reject")
    assert reject.state == "done" and reject.details["overturned"] is True


def test_an_approval_the_platform_already_holds_is_done(mturk, campaign, turker):
    assignment = submitted(turker, campaign)
    pay(assignment, reason="Fine.")
    # The first call went through but its answer was lost; the resend is refused.
    mturk.add_client_error(
        "approve_assignment",
        service_error_code="RequestError",
        service_message=FEEDBACK_SUBMITTED_ONLY,
    )
    mturk.add_response(
        "get_assignment",
        {
            "Assignment": {
                "AssignmentId": assignment.external_assignment_id,
                "AssignmentStatus": "Approved",
            }
        },
        {"AssignmentId": assignment.external_assignment_id},
    )
    assert crowd.platform_actions_send() == 1
    action = PlatformAction.objects.get()
    assert action.state == "done" and action.last_error == ""


def test_a_refused_call_is_recorded_and_retried_on_a_later_run(mturk, campaign, turker):
    assignment = submitted(turker, campaign)
    pay(assignment, reason="Fine.")
    mturk.add_client_error(
        "approve_assignment", service_error_code="ServiceFault", service_message="Try later."
    )
    mturk.add_response(
        "get_assignment",
        {
            "Assignment": {
                "AssignmentId": assignment.external_assignment_id,
                "AssignmentStatus": "Submitted",
            }
        },
        {"AssignmentId": assignment.external_assignment_id},
    )
    assert crowd.platform_actions_send() == 0
    action = PlatformAction.objects.get()
    assert (action.state, action.attempts) == ("pending", 1)
    assert "Try later." in action.last_error
    event = CampaignEvent.objects.get(campaign=campaign)
    assert event.is_error and "Try later." in event.message
    assert "pending (last try:" in crowd.ledger_entry_platform_payment(
        LedgerEntry.objects.earnings().select_related("platform_payment").get()
    )
    # Not again at once: the retry waits.
    assert crowd.platform_actions_send() == 0
    PlatformAction.objects.update(created_at=timezone.now() - timedelta(hours=1))
    mturk.add_response(
        "approve_assignment",
        {},
        {"AssignmentId": assignment.external_assignment_id, "RequesterFeedback": "Fine."},
    )
    assert crowd.platform_actions_send() == 1


def test_an_action_refused_too_often_fails(mturk, campaign, turker):
    assignment = submitted(turker, campaign)
    pay(assignment, reason="Fine.")
    PlatformAction.objects.update(
        attempts=outbox.MAX_ATTEMPTS - 1, created_at=timezone.now() - timedelta(days=1)
    )
    mturk.add_client_error(
        "approve_assignment", service_error_code="RequestError", service_message="No such HIT."
    )
    mturk.add_response(
        "get_assignment",
        {
            "Assignment": {
                "AssignmentId": assignment.external_assignment_id,
                "AssignmentStatus": "Submitted",
            }
        },
        {"AssignmentId": assignment.external_assignment_id},
    )
    crowd.platform_actions_send()
    action = PlatformAction.objects.select_related("ledger_entry").get()
    assert action.state == "failed"
    assert crowd.ledger_entry_platform_payment(action.ledger_entry).startswith("failed: ")
    assert crowd.platform_actions_send() == 0


def test_without_a_connector_actions_wait_uncounted(settings, campaign, turker):
    settings.MTURK_ENABLED = False
    pay(submitted(turker, campaign))
    assert crowd.platform_actions_send() == 0
    action = PlatformAction.objects.get()
    assert (action.state, action.attempts) == ("pending", 0)
    assert "No connector is configured" in action.last_error
    assert not CampaignEvent.objects.exists()


def test_a_bonus_is_paid_once_with_the_action_token(mturk, campaign, turker, admin_user):
    assignment = submitted(turker, campaign)
    entry, _ = crowd.bonus_pay(
        worker=turker, amount_cents=25, reason="Great work.", paid_by=admin_user, token="t1"
    )
    crowd.bonus_pay(
        worker=turker, amount_cents=25, reason="Great work.", paid_by=admin_user, token="t1"
    )
    mturk.add_response(
        "send_bonus",
        {},
        {
            "WorkerId": "W1",
            "AssignmentId": assignment.external_assignment_id,
            "BonusAmount": "0.25",
            "Reason": "Great work.",
            "UniqueRequestToken": f"bonus:ledger:{entry.pk}",
        },
    )
    assert crowd.platform_actions_send() == 1
    assert crowd.platform_actions_send() == 0
    entry = LedgerEntry.objects.earnings().select_related("platform_payment").get(pk=entry.pk)
    assert crowd.ledger_entry_platform_payment(entry).startswith("paid by Mechanical Turk at ")


def test_a_bonus_for_a_turker_without_campaign_work_fails_without_calling(
    mturk, turker, admin_user
):
    crowd.bonus_pay(worker=turker, amount_cents=25, reason="Thanks.", paid_by=admin_user, token="t")
    crowd.platform_actions_send()
    action = PlatformAction.objects.get()
    assert action.state == "failed" and "has none from a campaign" in action.last_error


def test_promoting_a_turker_grants_the_qualification_created_once(mturk, turker):
    mturk.add_response(
        "create_qualification_type",
        {"QualificationType": {"QualificationTypeId": "Q2"}},
        {
            "Name": "ParaCrowd Tier 2",
            "Description": outbox.QUALIFICATION_DESCRIPTION,
            "Keywords": "paracrowd,tier",
            "QualificationTypeStatus": "Active",
        },
    )
    mturk.add_response(
        "associate_qualification_with_worker",
        {},
        {
            "QualificationTypeId": "Q2",
            "WorkerId": "W1",
            "IntegerValue": 1,
            "SendNotification": True,
        },
    )
    crowd.qualification_grant(worker=turker, tier=Tier.TWO, granted_by=None, reason="Good work.")
    assert crowd.platform_actions_send() == 1
    assert PlatformQualification.objects.get().external_id == "Q2"
    told = AuditEntry.objects.get(action=AuditEntry.Action.PLATFORM)
    assert told.worker == turker and "granted" in told.reason

    mturk.add_response(
        "disassociate_qualification_from_worker",
        {},
        {"QualificationTypeId": "Q2", "WorkerId": "W1", "Reason": "Too many typos."},
    )
    crowd.qualification_revoke(
        worker=turker, tier=Tier.TWO, revoked_by=None, reason="Too many typos."
    )
    assert crowd.platform_actions_send() == 1
    assert AuditEntry.objects.filter(action=AuditEntry.Action.PLATFORM).count() == 2


def test_a_qualification_type_the_account_already_has_is_found_by_name(mturk, turker):
    mturk.add_client_error(
        "create_qualification_type",
        service_error_code="RequestError",
        service_message="You have already created a QualificationType with this name.",
    )
    mturk.add_response(
        "list_qualification_types",
        {
            "QualificationTypes": [
                {"QualificationTypeId": "Q1", "Name": "ParaCrowd Tier 2 draft"},
                {"QualificationTypeId": "Q2", "Name": "ParaCrowd Tier 2"},
            ]
        },
        {
            "Query": "ParaCrowd Tier 2",
            "MustBeRequestable": False,
            "MustBeOwnedByCaller": True,
            "MaxResults": 100,
        },
    )
    mturk.add_response(
        "associate_qualification_with_worker",
        {},
        {
            "QualificationTypeId": "Q2",
            "WorkerId": "W1",
            "IntegerValue": 1,
            "SendNotification": True,
        },
    )
    crowd.qualification_grant(worker=turker, tier=Tier.TWO, granted_by=None, reason="Good work.")
    assert crowd.platform_actions_send() == 1
    assert PlatformQualification.objects.get().external_id == "Q2"


def test_unverified_work_is_never_paid_or_approved(campaign, turker):
    assignment = submitted(turker, campaign, verified=False)
    assert pay(assignment) == 0
    Assignment.objects.filter(pk=assignment.pk).update(
        submitted_at=timezone.now() - timedelta(days=30)
    )
    assert crowd.assignments_auto_pay(kind=HitType.Kind.DESCRIPTION) == 0
    assert not LedgerEntry.objects.earnings().exists() and not PlatformAction.objects.exists()


def test_the_platforms_own_approval_is_recorded_once(campaign, turker):
    assignment = submitted(turker, campaign)
    approved_at = timezone.now() - timedelta(hours=2)
    assert crowd.platform_approval_record(assignment=assignment, approved_at=approved_at)
    assert not crowd.platform_approval_record(assignment=assignment, approved_at=approved_at)
    entry = LedgerEntry.objects.earnings().select_related("platform_payment").get()
    assert entry.amount_cents == campaign.reward_cents
    action = entry.platform_payment
    assert (action.state, action.details, action.done_at) == (
        "done",
        {"by": "platform"},
        approved_at,
    )
    assert "itself" in crowd.ledger_entry_platform_payment(entry)
    assert pay(assignment) == 0 and PlatformAction.objects.count() == 1


def test_local_workers_produce_no_actions(campaign, admin_user):
    local = make_worker()
    assignment = submitted(local, campaign)
    pay(assignment)
    crowd.assignment_reject(assignment_ids=[submitted(local, campaign).pk], reason="No.")
    crowd.bonus_pay(worker=local, amount_cents=5, reason="Thanks.", paid_by=admin_user, token="x")
    crowd.qualification_grant(worker=local, tier=Tier.TWO, granted_by=None, reason="Good.")
    assert not PlatformAction.objects.exists()
    entry = LedgerEntry.objects.earnings().select_related("platform_payment").first()
    assert crowd.ledger_entry_platform_payment(entry) == "not through a platform"


def test_work_outside_any_campaign_produces_no_actions(turker):
    hit = make_segment().hits.get(tier=Tier.ONE)
    assignment = Assignment.objects.select_related("hit__hit_type").get(
        pk=Assignment.objects.create(
            hit=hit,
            worker=turker,
            status=Assignment.Status.SUBMITTED,
            expires_at=timezone.now(),
            external_assignment_id="A-old",
            verified_at=timezone.now(),
        ).pk
    )
    pay(assignment)
    assert LedgerEntry.objects.earnings().exists() and not PlatformAction.objects.exists()


class Prolific:
    """Stands in for the Prolific connector's bonus calls: set up, then pay (not idempotent)."""

    def __init__(self):
        self.calls = []

    def bonus_setup(self, *, worker_id, assignment_id, cents):
        self.calls.append(("setup", worker_id, assignment_id, cents))
        return "B1"

    def bonus_pay(self, bonus_id):
        self.calls.append(("pay", bonus_id))


@pytest.fixture
def prolific():
    connector = Prolific()
    platforms.install("prolific", connector)
    yield connector
    platforms.install("prolific", None)


def test_a_prolific_bonus_is_set_up_stored_and_paid_once(prolific, admin_user):
    worker = crowd.worker_from_platform(platform="prolific", external_id="P1")
    entry, _ = crowd.bonus_pay(
        worker=worker, amount_cents=30, reason="Thanks.", paid_by=admin_user, token="p"
    )
    assert crowd.platform_actions_send() == 1
    assert prolific.calls == [("setup", "P1", "", 30), ("pay", "B1")]
    assert PlatformAction.objects.get().details["bonus_id"] == "B1"


def test_a_prolific_payment_whose_answer_was_lost_is_never_asked_again(prolific, admin_user):
    worker = crowd.worker_from_platform(platform="prolific", external_id="P1")
    crowd.bonus_pay(worker=worker, amount_cents=30, reason="Thanks.", paid_by=admin_user, token="p")
    # As a sender that died after asking Prolific to pay leaves it.
    PlatformAction.objects.update(
        details={"cents": 30, "reason": "Thanks.", "bonus_id": "B1", "pay_requested": "B1"}
    )
    assert crowd.platform_actions_send() == 0
    assert prolific.calls == []
    assert PlatformAction.objects.get().state == "failed"


@pytest.mark.django_db(transaction=True)
def test_two_senders_never_send_the_same_action(mturk, campaign, turker):
    assignment = submitted(turker, campaign)
    pay(assignment, reason="Fine.")
    connector = platforms.connector("mturk")
    other_sender, started = [], []

    class Slow:
        """Mechanical Turk, with a second sender running while the first one's call is out."""

        sandbox = True

        def approve(self, **params):
            if not started:  # only the first sender's call starts another sender
                started.append(True)
                thread = threading.Thread(target=lambda: other_sender.append(send_elsewhere()))
                thread.start()
                thread.join()
            connector.approve(**params)

    def send_elsewhere():
        try:
            return crowd.platform_actions_send()
        finally:
            connection.close()

    platforms.install("mturk", Slow())
    mturk.add_response(
        "approve_assignment",
        {},
        {"AssignmentId": assignment.external_assignment_id, "RequesterFeedback": "Fine."},
    )
    assert crowd.platform_actions_send() == 1
    assert other_sender == [0]
    assert PlatformAction.objects.get().state == "done"


def test_the_ledger_admin_shows_whether_the_platform_paid(admin_client, campaign, turker):
    assignment = submitted(turker, campaign)
    crowd.platform_approval_record(assignment=assignment, approved_at=timezone.now())
    page = admin_client.get(reverse("admin:crowd_ledgerentry_changelist")).content.decode()
    assert "paid by the platform" in page.lower()
    assert "paid by Mechanical Turk itself at" in page


def test_the_send_task_sends_the_outbox(mturk, campaign, turker):
    assignment = submitted(turker, campaign)
    pay(assignment, reason="Fine.")
    mturk.add_response(
        "approve_assignment",
        {},
        {"AssignmentId": assignment.external_assignment_id, "RequesterFeedback": "Fine."},
    )
    assert send_platform_actions() == 1
