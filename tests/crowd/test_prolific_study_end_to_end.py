"""A whole Prolific study, end to end, against the stand-in of Prolific's API (submissions and
their transitions, two-step bonuses, the workspace's balance, signed webhooks) and the live
site with a real Celery worker applying the webhooks.

Six participants take places: two do full sessions, one stops at the minimum, one returns
the study midway, one times out, and one submits on Prolific with no work done here. A forged
webhook and a replayed event arrive among the genuine ones. Staff review the work, the outbox
tells Prolific, and the researcher runs ``campaign reconcile``: the money agrees to the cent
with what Prolific charged, nothing is left awaiting review, no bonus is paid twice, the
places of those who left are free, the forged webhook changed nothing, and every page a
participant saw stated the pay they were paid."""

from datetime import timedelta

import pytest
from django.db import connections

from collector import services as collector
from collector.models import Description
from crowd import platforms
from crowd import services as crowd
from crowd.models import (
    Assignment,
    Campaign,
    HitType,
    LedgerEntry,
    PlatformAction,
    PlatformEvent,
    Tier,
    WorkSession,
)
from crowd.platforms.base import money
from tests.conftest import wait_for
from tests.crowd.end_to_end import Participant, completion_code, reconciled
from tests.factories import make_segment, make_staff

pytestmark = pytest.mark.django_db(transaction=True)

REWARD, BONUS, MINIMUM, LIMIT = 60, 30, 2, 3
TEXTS = [
    "A woman rides a horse along a beach.",
    "A man slices an onion on a board.",
    "Two dogs chase a red ball.",
]


@pytest.fixture
def prolific(prolific_api, settings, live_server, monkeypatch):
    # The live server's request threads would keep their connections past the run.
    monkeypatch.setitem(connections.settings["default"], "CONN_MAX_AGE", 0)
    settings.PLATFORM_PUBLIC_URL = "https://paracrowd.example.org"
    prolific_api.target_proxy = live_server.url  # the TLS proxy in front of the site
    platforms.install("prolific", prolific_api.connector())
    yield prolific_api
    platforms.install("prolific", None)


def study(prolific) -> Campaign:
    """A campaign of sessions of up to three tasks, two at least, published as one study."""
    for _ in range(8):
        make_segment(targets=(3, 3))
    draft = crowd.campaign_create(
        name="Descriptions",
        platform="prolific",
        kind=HitType.Kind.DESCRIPTION,
        tier=Tier.ONE,
        size=8,
        lifetime=timedelta(days=7),
        tasks_per_session=LIMIT,
        tasks_minimum=MINIMUM,
        task_cents=BONUS,
    )
    campaign = crowd.campaign_publish(campaign=draft)
    assert list(prolific.studies) == [campaign.external_id]
    return campaign


def joins(prolific, campaign) -> Participant:
    """A participant takes a place on Prolific, which opens the study's URL with their ids."""
    participant_id, submission_id = prolific.participant_joins(campaign.external_id)
    return Participant(
        {
            "PROLIFIC_PID": participant_id,
            "STUDY_ID": campaign.external_id,
            "SESSION_ID": submission_id,
        }
    )


def submission_of(participant: Participant) -> str:
    return participant.query["SESSION_ID"]


def comes_back_to_prolific(prolific, participant: Participant, finished) -> None:
    """Prolific takes the completion code the site sent the participant back with: the
    study's COMPLETED code puts the submission in review (its action is MANUALLY_REVIEW)."""
    code = completion_code(finished)
    study = prolific.studies[participant.query["STUDY_ID"]]
    (entry,) = [c for c in study["completion_codes"] if c["code"] == code]
    assert entry["code_type"] == "COMPLETED"
    assert entry["actions"] == [{"action": "MANUALLY_REVIEW"}]
    prolific.submission_status(submission_of(participant), "AWAITING REVIEW")


def notified(prolific, participant: Participant):
    """Prolific's webhook for the submission's new status; the site answers 2xx."""
    delivery = prolific.submission_notify(submission_of(participant))
    assert 200 <= delivery.response.status_code < 300, delivery.response.content
    return delivery


def all_events_applied():
    return not PlatformEvent.objects.filter(processed_at=None).exists()


def outbox_sent():
    crowd.platform_actions_send()
    return not PlatformAction.objects.filter(state=PlatformAction.State.PENDING).exists()


def session_of(participant: Participant) -> WorkSession:
    return WorkSession.objects.get(external_id=submission_of(participant))


def test_a_prolific_study_ends_reconciled_to_the_cent(prolific, live_worker, settings):
    campaign = study(prolific)
    assert campaign.reward_cents == REWARD and campaign.task_cents == BONUS
    balance_before = prolific.balance

    # Two full sessions and one that stops at the minimum, each back on Prolific in review.
    full = [joins(prolific, campaign), joins(prolific, campaign)]
    at_minimum = joins(prolific, campaign)
    for participant in full:
        participant.arrive()
        for text in TEXTS:
            finished = participant.describe(text)
        comes_back_to_prolific(prolific, participant, finished)
    at_minimum.arrive()
    for text in TEXTS[:MINIMUM]:
        at_minimum.describe(text)
    comes_back_to_prolific(prolific, at_minimum, at_minimum.finish())

    # One returns the study after a task, one lets the study time out on a task in hand.
    returning, timing_out = joins(prolific, campaign), joins(prolific, campaign)
    returning.arrive()
    returning.describe(TEXTS[0])
    timing_out.arrive()
    prolific.submission_status(submission_of(returning), "RETURNED")
    prolific.submission_status(submission_of(timing_out), "TIMED-OUT")

    # One takes a place and submits on Prolific without ever opening the task here.
    stranger, stranger_submission = prolific.participant_joins(campaign.external_id)
    prolific.submission_status(stranger_submission, "AWAITING REVIEW")

    # Prolific's webhooks, a forgery claiming a full session was returned, and a replay.
    deliveries = [notified(prolific, p) for p in (*full, at_minimum, returning, timing_out)]
    forged_body = {
        "resource_id": submission_of(full[0]),
        "event_type": "submission.status.change",
        "participant_id": full[0].query["PROLIFIC_PID"],
        "status": "RETURNED",
    }
    forged = prolific.deliver(
        "submission.status.change", forged_body, secret="not-the-workspace-secret"
    )
    assert forged.response.status_code == 403
    wait_for(all_events_applied, seconds=15)
    events = PlatformEvent.objects.count()
    replay = prolific.resend(deliveries[3])  # the return, byte for byte
    assert 200 <= replay.response.status_code < 300
    assert PlatformEvent.objects.count() == events == len(deliveries)

    # The webhooks confirmed the submitted sessions and gave the others' tasks back.
    for participant in (*full, at_minimum):
        assert session_of(participant).state == WorkSession.State.FINISHED
    for participant in (returning, timing_out):
        assert session_of(participant).state == WorkSession.State.ABANDONED
    assert not Assignment.objects.filter(
        session__in=[session_of(returning), session_of(timing_out)],
        status__in=[Assignment.Status.ASSIGNED, Assignment.Status.SUBMITTED],
    ).exists()

    # Staff accept every description in the review queue; the outbox tells Prolific.
    collector.descriptions_review(
        description_ids=list(Description.objects.values_list("pk", flat=True)),
        status="accepted",
        reviewed_by=make_staff(),
        reason="Clear and on topic.",
    )
    wait_for(outbox_sent, seconds=15)

    # The researcher reconciles: the stranger's submission is rejected as no data.
    reconciled(campaign)
    wait_for(outbox_sent, seconds=15)
    result = reconciled(campaign)

    submissions = prolific.submissions
    assert submissions[stranger_submission]["status"] == "REJECTED"
    (rejection,) = prolific.sent("POST", f"/api/v1/submissions/{stranger_submission}/transition/")
    assert rejection.json["rejection_category"] == "NO_DATA"
    assert result["currency"] == "USD"
    assert result["difference_minor"] == 0
    assert result["submissions"] == {
        "approved": 3,
        "rejected": 1,
        "returned": 1,
        "timed_out": 1,
        "awaiting_review": 0,
        "active": 0,
        "released": 0,
    }
    assert "AWAITING REVIEW" not in {s["status"] for s in submissions.values()}

    # What Prolific charged is what the ledger booked: rewards, bonuses and fees apart.
    ledger = result["ledger_minor"]
    assert balance_before - prolific.balance == sum(ledger.values())
    assert ledger == result["platform_minor"]
    assert (ledger["rewards"], ledger["bonuses"]) == (3 * REWARD, 2 * BONUS)
    # Each fee its own entry: 34% of an approval (20.4 cents) or a bonus line (10.2), rounded
    # up to the minor unit.
    assert settings.PROLIFIC_FEE_PERCENT == 34
    fees = LedgerEntry.objects.filter(kind=LedgerEntry.Kind.FEE).values_list("amount_cents")
    assert sorted(cents for (cents,) in fees) == [11, 11, 21, 21, 21]

    # Each bonus paid once, on the sessions that did a task past the minimum.
    paid = {p.query["PROLIFIC_PID"]: submissions[submission_of(p)] for p in (*full, at_minimum)}
    assert [paid[p.query["PROLIFIC_PID"]]["bonus_payments"] for p in full] == [[BONUS], [BONUS]]
    assert paid[at_minimum.query["PROLIFIC_PID"]]["bonus_payments"] == []
    assert len(prolific.payments) == len(set(prolific.payments)) == 2

    # The forged webhook changed nothing: that session was approved and paid in full.
    assert submissions[submission_of(full[0])]["status"] == "APPROVED"
    assert session_of(full[0]).state == WorkSession.State.FINISHED

    # Those who left hold no place, and were paid nothing: the returned task's description
    # stays unaccepted, since Prolific never confirmed it.
    assert Description.objects.get(worker=session_of(returning).worker).status == "pending"
    for participant in (returning, timing_out):
        assert submissions[submission_of(participant)]["bonus_payments"] == []
        assert not LedgerEntry.objects.filter(worker=session_of(participant).worker).exists()

    # Every task page stated the pay, in the currency the workspace pays in, and it is what
    # Prolific paid.
    study_reward = prolific.studies[campaign.external_id]["reward"]
    assert money(study_reward, prolific.currency) == "$0.60"
    for participant in (*full, at_minimum, returning, timing_out):
        assert participant.task_pages()
        for page in participant.task_pages():
            assert "$0.60" in page or "60¢" in page
        assert participant.stated_pay() == {(study_reward, MINIMUM, BONUS, LIMIT)}
