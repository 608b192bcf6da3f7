"""The Mechanical Turk connector against botocore's Stubber: every request is checked against
the MTurk API model and against the exact parameters we mean to send."""

from datetime import date

import pytest

from crowd.platforms.base import PlatformError, Submission
from crowd.platforms.mturk.client import (
    CLOSURE_MESSAGE,
    closure_check,
    external_question,
    payments_open,
    reward,
)
from crowd.services.closures import platform_open_check
from crowd.services.errors import WorkRefused


@pytest.fixture
def mturk(mturk_account):
    return mturk_account


def test_new_hits_were_taken_until_the_last_day_of_september_2026():
    closure_check(today=date(2026, 9, 30))
    for day in (date(2026, 10, 1), date(2026, 11, 26), date(2027, 2, 1)):
        with pytest.raises(PlatformError) as closed:
            closure_check(today=day)
        assert str(closed.value) == CLOSURE_MESSAGE


def test_today_mechanical_turk_takes_no_new_work():
    with pytest.raises(PlatformError, match="closed on 30 September 2026"):
        closure_check()


def test_approvals_and_bonuses_were_taken_until_the_thirtieth_of_october():
    assert payments_open(date(2026, 10, 30))
    assert not payments_open(date(2026, 10, 31))
    assert not payments_open()


def test_the_closure_message_gives_every_date_and_where_to_go_instead():
    for words in ("30 September 2026", "30 October 2026", "28 January 2027", "Prolific", "link"):
        assert words in CLOSURE_MESSAGE


def test_the_services_refuse_new_work_only_on_a_closed_platform():
    platform_open_check(platform="prolific")
    platform_open_check(platform="mturk", today=date(2026, 9, 30))
    with pytest.raises(WorkRefused, match="^Amazon Mechanical Turk closed"):
        platform_open_check(platform="mturk", today=date(2026, 10, 1))


@pytest.mark.parametrize("cents, text", [(0, "0.00"), (1, "0.01"), (5, "0.05"), (125, "1.25")])
def test_rewards_are_dollar_strings_with_two_decimals(cents, text):
    assert reward(cents) == text


@pytest.mark.parametrize("cents", [-1, 1.5, True])
def test_a_reward_must_be_whole_non_negative_cents(cents):
    with pytest.raises(ValueError):
        reward(cents)


def test_the_external_question_escapes_the_url():
    xml = external_question("https://example.org/external/describe/?tier=2&kind=description")
    assert "<ExternalURL>https://example.org/external/describe/?tier=2&amp;kind=description<" in xml
    assert "ExternalQuestion.xsd" in xml and "<FrameHeight>0</FrameHeight>" in xml


def test_the_balance_is_read_in_cents(mturk):
    platform, stubber, _ = mturk
    stubber.add_response("get_account_balance", {"AvailableBalance": "10000.05"}, {})
    assert platform.balance_cents() == 1_000_005


def test_a_tier_two_hit_type_requires_the_qualification_to_see_or_accept_it(mturk):
    platform, stubber, _ = mturk
    stubber.add_response(
        "create_hit_type",
        {"HITTypeId": "HT1"},
        {
            "Title": "Describe a short video segment in one sentence",
            "Description": "Watch a few seconds of video and write one sentence.",
            "Keywords": "video, description",
            "Reward": "0.05",
            "AssignmentDurationInSeconds": 900,
            "AutoApprovalDelayInSeconds": 259200,
            "QualificationRequirements": [
                {
                    "QualificationTypeId": "Q2",
                    "Comparator": "Exists",
                    "ActionsGuarded": "DiscoverPreviewAndAccept",
                }
            ],
        },
    )
    assert (
        platform.hit_type_create(
            title="Describe a short video segment in one sentence",
            description="Watch a few seconds of video and write one sentence.",
            keywords="video, description",
            reward_cents=5,
            assignment_seconds=900,
            auto_approval_seconds=3 * 24 * 3600,
            qualification_type_id="Q2",
        )
        == "HT1"
    )


def test_a_hit_carries_its_external_question_and_a_request_token(mturk):
    platform, stubber, _ = mturk
    url = "https://paracrowd.example/external/describe/"
    stubber.add_response(
        "create_hit_with_hit_type",
        {"HIT": {"HITId": "H1"}},
        {
            "HITTypeId": "HT1",
            "MaxAssignments": 20,
            "LifetimeInSeconds": 7 * 24 * 3600,
            "Question": external_question(url),
            "RequesterAnnotation": "campaign-3-segment-17-tier-1",
            "UniqueRequestToken": "campaign-3-segment-17-tier-1",
        },
    )
    hit_id = platform.hit_create(
        hit_type_id="HT1",
        url=url,
        max_assignments=20,
        lifetime_seconds=7 * 24 * 3600,
        token="campaign-3-segment-17-tier-1",
    )
    assert hit_id == "H1"


def test_throttling_is_retried_with_growing_pauses(mturk):
    platform, stubber, slept = mturk
    for _ in range(2):
        stubber.add_client_error("get_account_balance", service_error_code="ThrottlingException")
    stubber.add_response("get_account_balance", {"AvailableBalance": "1.00"}, {})
    assert platform.balance_cents() == 100
    assert slept == [0.5, 1.0]


def test_other_errors_are_not_retried(mturk):
    platform, stubber, slept = mturk
    stubber.add_client_error("get_account_balance", service_error_code="ServiceFault")
    with pytest.raises(Exception, match="ServiceFault"):
        platform.balance_cents()
    assert slept == []


def test_a_bonus_sent_again_with_its_token_is_not_paid_twice(mturk):
    platform, stubber, _ = mturk
    expected = {
        "WorkerId": "A1WORKER",
        "AssignmentId": "ASSIGN1",
        "BonusAmount": "0.25",
        "Reason": "Thank you for careful work.",
        "UniqueRequestToken": "ledger-entry-42",
    }
    stubber.add_response("send_bonus", {}, expected)
    stubber.add_client_error(
        "send_bonus",
        service_error_code="RequestError",
        service_message="The value of UniqueRequestToken ledger-entry-42 has already been used.",
        expected_params=expected,
    )
    for _ in range(2):
        platform.bonus(
            worker_id="A1WORKER",
            assignment_id="ASSIGN1",
            cents=25,
            reason="Thank you for careful work.",
            token="ledger-entry-42",
        )


def test_assignments_are_listed_page_by_page(mturk):
    platform, stubber, _ = mturk

    def assignment(n):
        return {
            "AssignmentId": f"A{n}",
            "WorkerId": f"W{n}",
            "HITId": "H1",
            "AssignmentStatus": "Submitted",
        }

    stubber.add_response(
        "list_assignments_for_hit",
        {"NextToken": "page2", "NumResults": 1, "Assignments": [assignment(1)]},
        {"HITId": "H1", "MaxResults": 100},
    )
    stubber.add_response(
        "list_assignments_for_hit",
        {"NumResults": 1, "Assignments": [assignment(2)]},
        {"HITId": "H1", "MaxResults": 100, "NextToken": "page2"},
    )
    assert list(platform.assignments("H1")) == [
        Submission("A1", "W1", "H1", "submitted"),
        Submission("A2", "W2", "H1", "submitted"),
    ]


def test_approving_rejecting_and_qualifying_send_what_the_platform_expects(mturk):
    platform, stubber, _ = mturk
    stubber.add_response("approve_assignment", {}, {"AssignmentId": "A1"})
    stubber.add_response(
        "reject_assignment", {}, {"AssignmentId": "A2", "RequesterFeedback": "Not about the video."}
    )
    stubber.add_response(
        "associate_qualification_with_worker",
        {},
        {
            "QualificationTypeId": "Q2",
            "WorkerId": "W1",
            "IntegerValue": 1,
            "SendNotification": True,
        },
    )
    stubber.add_response(
        "disassociate_qualification_from_worker",
        {},
        {"QualificationTypeId": "Q2", "WorkerId": "W1", "Reason": "Copied other workers."},
    )
    stubber.add_response(
        "create_qualification_type",
        {"QualificationType": {"QualificationTypeId": "Q2"}},
        {
            "Name": "ParaCrowd Tier 2",
            "Description": "Granted by ParaCrowd's staff to careful describers.",
            "Keywords": "paracrowd,tier",
            "QualificationTypeStatus": "Active",
        },
    )
    platform.approve(assignment_id="A1")
    platform.reject(assignment_id="A2", feedback="Not about the video.")
    platform.qualification_grant(qualification_type_id="Q2", worker_id="W1")
    platform.qualification_revoke(
        qualification_type_id="Q2", worker_id="W1", reason="Copied other workers."
    )
    assert (
        platform.qualification_type_create(
            name="ParaCrowd Tier 2",
            description="Granted by ParaCrowd's staff to careful describers.",
        )
        == "Q2"
    )


def test_a_hit_published_again_with_its_token_creates_nothing(mturk):
    platform, stubber, _ = mturk
    stubber.add_client_error(
        "create_hit_with_hit_type",
        service_error_code="RequestError",
        service_message="The value of UniqueRequestToken campaign-3 has already been used.",
    )
    hit_id = platform.hit_create(
        hit_type_id="HT1",
        url="https://x.example/",
        max_assignments=1,
        lifetime_seconds=60,
        token="campaign-3",
    )
    assert hit_id is None
