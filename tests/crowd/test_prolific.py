"""The Prolific connector against the local stand-in of Prolific's API: every request's path,
body and Authorization header is what the connector means to send."""

import pytest

from crowd.platforms.base import PlatformError, Submission
from crowd.platforms.prolific.client import (
    REJECTION_MESSAGE_MINIMUM,
    PaymentUncertain,
    Prolific,
    ProlificError,
    approvals_csv,
    bonuses_csv,
    fee_cents,
    study_url,
)
from tests.crowd.prolific_standin import TOKEN, WORKSPACE

PARTICIPANT = "5f1e2d3c4b5a697887766554"
OTHER = "60ffe5c8371090c7041d43f8"


def create(platform, internal_name="campaign-7", places=3, url="https://example.org/x/"):
    return platform.study_create(
        name="Describe a short video segment",
        internal_name=internal_name,
        description="Watch a few seconds of video and write one sentence.",
        url=url,
        completion_code="C0DE1234",
        reward_cents=25,
        places=places,
        minutes=5,
    )


@pytest.fixture
def platform(prolific_api):
    return prolific_api.connector()


@pytest.fixture
def published(prolific_api, platform):
    study_id = create(platform)
    platform.study_publish(study_id)
    return study_id


def submitted(prolific_api, study_id):
    participant_id, submission_id = prolific_api.participant_joins(study_id)
    prolific_api.submission_status(submission_id, "AWAITING REVIEW")
    return participant_id, submission_id


# Requests


def test_every_request_carries_the_token_in_prolifics_scheme(prolific_api, platform):
    platform.balance_cents()
    create(platform)
    assert prolific_api.requests
    assert {r.headers["Authorization"] for r in prolific_api.requests} == {f"Token {TOKEN}"}


def test_the_balance_is_the_workspaces_available_balance(prolific_api, platform):
    prolific_api.balance = 4_321
    assert platform.balance_cents() == 4_321
    assert prolific_api.sent("GET", f"/api/v1/workspaces/{WORKSPACE}/balance/")


def test_the_balance_needs_a_workspace_and_says_so(prolific_api):
    platform = prolific_api.connector(workspace_id="")
    with pytest.raises(PlatformError, match="workspace_id"):
        platform.balance_cents()
    assert prolific_api.requests == []


def test_a_connector_needs_a_token():
    with pytest.raises(PlatformError, match="token"):
        Prolific(token="")


# Studies


def test_a_study_is_created_as_a_draft_with_our_url_code_reward_and_places(prolific_api, platform):
    study_id = create(platform, url="https://example.org/x/?kind=description")
    (request,) = prolific_api.sent("POST", "/api/v1/studies/")
    assert request.json == {
        "name": "Describe a short video segment",
        "internal_name": "campaign-7",
        "description": "Watch a few seconds of video and write one sentence.",
        "external_study_url": "https://example.org/x/?kind=description"
        "&PROLIFIC_PID={{%PROLIFIC_PID%}}&STUDY_ID={{%STUDY_ID%}}&SESSION_ID={{%SESSION_ID%}}",
        "prolific_id_option": "url_parameters",
        "completion_codes": [
            {
                "code": "C0DE1234",
                "code_type": "COMPLETED",
                "actions": [{"action": "MANUALLY_REVIEW"}],
            }
        ],
        "total_available_places": 3,
        "estimated_completion_time": 5,
        "maximum_allowed_time": 10,
        "reward": 25,
    }
    assert prolific_api.studies[study_id]["status"] == "UNPUBLISHED"


def test_a_study_can_give_participants_longer_and_carries_its_filters(prolific_api, platform):
    filters = [{"filter_id": "handedness", "selected_values": ["0"]}]
    platform.study_create(
        name="Describe a short video segment",
        internal_name="campaign-8",
        description="Watch a few seconds of video and write one sentence.",
        url="https://example.org/x/",
        completion_code="C0DE1234",
        reward_cents=25,
        places=3,
        minutes=5,
        filters=filters,
        maximum_minutes=30,
    )
    (request,) = prolific_api.sent("POST", "/api/v1/studies/")
    assert request.json["maximum_allowed_time"] == 30
    assert request.json["filters"] == filters


def test_a_study_goes_into_the_configured_project(prolific_api):
    platform = prolific_api.connector(project_id="6600000000000000000000bb")
    create(platform)
    (request,) = prolific_api.sent("POST", "/api/v1/studies/")
    assert request.json["project"] == "6600000000000000000000bb"


def test_the_placeholders_start_the_query_of_a_url_without_one():
    assert study_url("https://example.org/x/") == (
        "https://example.org/x/?PROLIFIC_PID={{%PROLIFIC_PID%}}"
        "&STUDY_ID={{%STUDY_ID%}}&SESSION_ID={{%SESSION_ID%}}"
    )


def test_creating_a_study_twice_with_one_internal_name_creates_one(prolific_api, platform):
    for number in range(3):  # other studies, so the lookup spans pages
        create(platform, internal_name=f"other-{number}")
    first = create(platform)
    again = create(platform)
    assert again == first
    assert len(prolific_api.sent("POST", "/api/v1/studies/")) == 4
    # The second call found the study on the listing's second page and stopped there.
    pages = [r.query.get("page") for r in prolific_api.sent("GET", "/api/v1/studies/")]
    assert pages[-2:] == [None, "2"]


def test_publishing_opens_the_study_once(prolific_api, platform):
    study_id = create(platform)
    platform.study_publish(study_id)
    platform.study_publish(study_id)  # a retry after a lost answer
    (request,) = prolific_api.sent("POST", f"/api/v1/studies/{study_id}/transition/")
    assert request.json == {"action": "PUBLISH"}
    assert prolific_api.studies[study_id]["status"] == "ACTIVE"


def test_stopping_takes_no_more_participants_and_can_be_repeated(prolific_api, platform, published):
    platform.study_stop(published)
    platform.study_stop(published)
    (request,) = prolific_api.sent("POST", f"/api/v1/studies/{published}/transition/")[1:]
    assert request.json == {"action": "STOP"}
    assert prolific_api.studies[published]["status"] == "AWAITING REVIEW"


def test_more_places_are_offered_by_raising_the_total(prolific_api, platform, published):
    platform.study_places(published, 8)
    (request,) = prolific_api.sent("PATCH", f"/api/v1/studies/{published}/")
    assert request.json == {"total_available_places": 8}
    assert prolific_api.studies[published]["total_available_places"] == 8


def test_fewer_places_are_refused_with_prolifics_message(platform, published):
    with pytest.raises(PlatformError, match="only increase the number of places"):
        platform.study_places(published, 1)


def test_the_counts_say_what_is_open_at_work_and_submitted(prolific_api, platform, published):
    prolific_api.participant_joins(published)
    submitted(prolific_api, published)
    _, returned = prolific_api.participant_joins(published)
    prolific_api.submission_status(returned, "RETURNED")
    assert platform.study_counts(published) == {
        "available": 0,
        "in_progress": 1,
        "submitted": 1,
        "status": "ACTIVE",
    }


# Submissions


def test_submissions_are_read_page_by_page_in_the_shared_vocabulary(
    prolific_api, platform, published
):
    platform.study_places(published, 6)
    statuses = ["ACTIVE", "AWAITING REVIEW", "APPROVED", "REJECTED", "RETURNED", "TIMED-OUT"]
    made = {}
    for status in statuses:
        participant_id, submission_id = prolific_api.participant_joins(published)
        prolific_api.submission_status(submission_id, status)
        made[submission_id] = participant_id
    read = {s.assignment_id: s for s in platform.submissions(published)}
    assert {key: (s.worker_id, s.listing_id) for key, s in read.items()} == {
        key: (participant_id, published) for key, participant_id in made.items()
    }
    assert [read[key].status for key in made] == [
        Submission.WORKING,
        Submission.SUBMITTED,
        Submission.APPROVED,
        Submission.REJECTED,
        Submission.GONE,
        Submission.GONE,
    ]
    pages = prolific_api.sent("GET", "/api/v1/submissions/")
    assert [r.query for r in pages] == [
        {"study": published},
        {"study": published, "page": "2"},
        {"study": published, "page": "3"},
    ]


def test_one_submission_is_read_in_the_shared_vocabulary(prolific_api, platform, published):
    participant_id, submission_id = submitted(prolific_api, published)
    assert platform.submission(submission_id) == Submission(
        assignment_id=submission_id,
        worker_id=participant_id,
        listing_id=published,
        status=Submission.SUBMITTED,
        bonuses_cents=(),
    )
    prolific_api.submission_status(submission_id, "TIMED-OUT")
    assert platform.submission(submission_id).status == Submission.GONE
    assert platform.submission(submission_id).timed_out


def test_an_unknown_submission_is_prolifics_404(prolific_api, platform):
    with pytest.raises(ProlificError, match="Not found") as caught:
        platform.submission(OTHER)  # well formed, but nobody's
    assert caught.value.status == 404
    assert len(prolific_api.sent("GET", f"/api/v1/submissions/{OTHER}/")) == 1


@pytest.mark.parametrize(
    "submission_id", ["", "S1", "../studies", f"{OTHER}/", OTHER.upper(), None]
)
def test_a_malformed_submission_id_is_a_404_without_a_request(
    prolific_api, platform, submission_id
):
    with pytest.raises(ProlificError, match="not a Prolific submission id") as caught:
        platform.submission(submission_id)
    assert caught.value.status == 404
    with pytest.raises(ProlificError, match="not a Prolific submission id"):
        platform.bonus_setup(worker_id=PARTICIPANT, assignment_id=submission_id, cents=25)
    assert prolific_api.requests == []


def test_approving_a_submission_transitions_it(prolific_api, platform, published):
    _, submission_id = submitted(prolific_api, published)
    platform.approve(assignment_id=submission_id, feedback="Thank you")
    (request,) = prolific_api.sent("POST", f"/api/v1/submissions/{submission_id}/transition/")
    assert request.json == {"action": "APPROVE"}
    assert prolific_api.submissions[submission_id]["status"] == "APPROVED"


def test_approving_an_approved_submission_again_counts_as_done(prolific_api, platform, published):
    _, submission_id = submitted(prolific_api, published)
    platform.approve(assignment_id=submission_id)
    platform.approve(assignment_id=submission_id)
    assert prolific_api.submissions[submission_id]["status"] == "APPROVED"


def test_approving_a_rejected_submission_is_an_error(prolific_api, platform, published):
    _, submission_id = submitted(prolific_api, published)
    platform.reject(assignment_id=submission_id, feedback="x" * REJECTION_MESSAGE_MINIMUM)
    with pytest.raises(PlatformError, match="Cannot transition a submission that is REJECTED"):
        platform.approve(assignment_id=submission_id)


def test_a_rejection_sends_the_feedback_and_a_category(prolific_api, platform, published):
    _, submission_id = submitted(prolific_api, published)
    feedback = "The sentence describes a different video from the one shown. " * 2
    platform.reject(assignment_id=submission_id, feedback=feedback)
    (request,) = prolific_api.sent("POST", f"/api/v1/submissions/{submission_id}/transition/")
    assert request.json == {
        "action": "REJECT",
        "message": feedback.strip(),
        "rejection_category": "LOW_EFFORT",
    }
    platform.reject(assignment_id=submission_id, feedback=feedback)  # a retry: done already
    assert prolific_api.submissions[submission_id]["status"] == "REJECTED"


def test_short_rejection_feedback_is_completed_to_prolifics_minimum(
    prolific_api, platform, published
):
    _, submission_id = submitted(prolific_api, published)
    platform.reject(assignment_id=submission_id, feedback="Off topic.")
    (request,) = prolific_api.sent("POST", f"/api/v1/submissions/{submission_id}/transition/")
    assert request.json["message"].startswith("Off topic. ")
    assert len(request.json["message"]) >= REJECTION_MESSAGE_MINIMUM


def test_a_rejection_without_feedback_is_refused_before_any_request(
    prolific_api, platform, published
):
    _, submission_id = submitted(prolific_api, published)
    before = len(prolific_api.requests)
    with pytest.raises(ValueError, match="needs feedback"):
        platform.reject(assignment_id=submission_id, feedback="  ")
    assert len(prolific_api.requests) == before


# Errors and retries


def test_throttling_is_retried_with_backoff(prolific_api, platform):
    path = f"/api/v1/workspaces/{WORKSPACE}/balance/"
    prolific_api.fail_next("GET", path, status=429, times=2)
    assert platform.balance_cents() == prolific_api.balance
    assert len(prolific_api.sent("GET", path)) == 3
    assert prolific_api.slept == [0.5, 1.0]


def test_server_errors_are_retried_a_few_times_then_reported(prolific_api, platform):
    path = f"/api/v1/workspaces/{WORKSPACE}/balance/"
    prolific_api.fail_next("GET", path, status=503, times=20)
    with pytest.raises(PlatformError, match="503"):
        platform.balance_cents()
    assert len(prolific_api.sent("GET", path)) == 6


def test_a_refusal_carries_prolifics_own_message(platform):
    with pytest.raises(PlatformError) as caught:
        platform.study_publish("0123456789abcdef01234567")
    assert "404" in str(caught.value) and "Not found" in str(caught.value)


def test_a_wrong_token_is_reported_not_retried(prolific_api):
    platform = Prolific(token="wrong", base_url=prolific_api.url, workspace_id=WORKSPACE)
    with pytest.raises(PlatformError, match="Invalid token"):
        platform.balance_cents()
    assert len(prolific_api.requests) == 1


def test_an_unreachable_api_is_a_platform_error():
    platform = Prolific(token=TOKEN, base_url="http://127.0.0.1:9", workspace_id=WORKSPACE)
    with pytest.raises(PlatformError, match="could not be reached"):
        platform.balance_cents()


# Bonuses


def test_a_bonus_is_set_up_for_the_submissions_study_then_paid(prolific_api, platform, published):
    participant_id, submission_id = submitted(prolific_api, published)
    bonus_id = platform.bonus_setup(worker_id=participant_id, assignment_id=submission_id, cents=25)
    (setup,) = prolific_api.sent("POST", "/api/v1/submissions/bonus-payments/")
    assert setup.json == {"study_id": published, "csv_bonuses": f"{participant_id},0.25\n"}
    assert prolific_api.payments == []
    platform.bonus_pay(bonus_id)
    assert prolific_api.payments == [bonus_id]


def test_a_bonus_for_someone_elses_submission_is_not_set_up(prolific_api, platform, published):
    _, submission_id = submitted(prolific_api, published)
    with pytest.raises(PlatformError, match="is not by participant"):
        platform.bonus_setup(worker_id=OTHER, assignment_id=submission_id, cents=25)
    assert prolific_api.bonuses == {}


def test_a_lost_answer_to_a_payment_is_never_resent(prolific_api, platform, published):
    participant_id, submission_id = submitted(prolific_api, published)
    bonus_id = platform.bonus_setup(worker_id=participant_id, assignment_id=submission_id, cents=25)
    path = f"/api/v1/bulk-bonus-payments/{bonus_id}/pay/"
    prolific_api.fail_next("POST", path, drop=True)
    with pytest.raises(PaymentUncertain, match="check the workspace's payments"):
        platform.bonus_pay(bonus_id)
    assert prolific_api.payments == [bonus_id]  # Prolific took it; we were not told
    assert len(prolific_api.sent("POST", path)) == 1


def test_a_server_error_on_a_payment_is_never_retried(prolific_api, platform, published):
    participant_id, submission_id = submitted(prolific_api, published)
    bonus_id = platform.bonus_setup(worker_id=participant_id, assignment_id=submission_id, cents=25)
    path = f"/api/v1/bulk-bonus-payments/{bonus_id}/pay/"
    prolific_api.fail_next("POST", path, status=502)
    with pytest.raises(PaymentUncertain):
        platform.bonus_pay(bonus_id)
    assert len(prolific_api.sent("POST", path)) == 1


def test_a_throttled_payment_is_retried_and_pays_once(prolific_api, platform, published):
    participant_id, submission_id = submitted(prolific_api, published)
    bonus_id = platform.bonus_setup(worker_id=participant_id, assignment_id=submission_id, cents=25)
    prolific_api.fail_next("POST", f"/api/v1/bulk-bonus-payments/{bonus_id}/pay/", status=429)
    platform.bonus_pay(bonus_id)
    assert prolific_api.payments == [bonus_id]


def test_setting_up_again_after_a_failed_setup_pays_once(prolific_api, platform, published):
    participant_id, submission_id = submitted(prolific_api, published)
    prolific_api.fail_next("POST", "/api/v1/submissions/bonus-payments/", drop=True)
    with pytest.raises(PlatformError):
        platform.bonus_setup(worker_id=participant_id, assignment_id=submission_id, cents=25)
    bonus_id = platform.bonus_setup(worker_id=participant_id, assignment_id=submission_id, cents=25)
    platform.bonus_pay(bonus_id)
    assert len(prolific_api.bonuses) == 2  # the first, unpaid, costs nothing
    assert prolific_api.payments == [bonus_id]


def test_a_one_step_bonus_is_refused_with_the_two_steps_named(prolific_api, platform):
    with pytest.raises(PlatformError, match="bonus_setup.*bonus_pay"):
        platform.bonus(
            worker_id=PARTICIPANT, assignment_id="a" * 24, cents=25, reason="r", token="t"
        )
    assert prolific_api.requests == []


# Fees and bulk formats


@pytest.mark.parametrize("reward, fee", [(0, 0), (1, 1), (100, 34), (25, 9), (300, 102)])
def test_the_fee_is_a_percentage_rounded_up(reward, fee):
    assert fee_cents(reward, percent=34) == fee


def test_approvals_are_one_participant_id_a_line():
    assert approvals_csv([PARTICIPANT, OTHER, PARTICIPANT]) == f"{PARTICIPANT}\n{OTHER}\n"
    assert approvals_csv([]) == ""


def test_bonuses_are_id_and_amount_in_major_units_a_line():
    assert bonuses_csv([(PARTICIPANT, 25), (OTHER, 150)]) == (f"{PARTICIPANT},0.25\n{OTHER},1.50\n")


@pytest.mark.parametrize(
    "participant_id",
    [
        "",
        "5f1e2d3c4b5a69788776655",
        "5f1e2d3c4b5a6978877665544",
        "5f1e2d3c4b5a69788776655z",
        "5f1e2d3c4b5a6978877665,4",
        None,
    ],
)
def test_a_bad_participant_id_is_refused(participant_id):
    with pytest.raises(ValueError, match="not a Prolific id"):
        approvals_csv([participant_id])
    with pytest.raises(ValueError, match="not a Prolific id"):
        bonuses_csv([(participant_id, 10)])


@pytest.mark.parametrize("cents", [0, -5, 1.5, True, "25"])
def test_a_bonus_must_be_positive_whole_cents(cents):
    with pytest.raises(ValueError, match="positive number of cents"):
        bonuses_csv([(PARTICIPANT, cents)])


def test_a_participant_is_not_bonused_twice_in_one_list():
    with pytest.raises(ValueError, match="listed twice"):
        bonuses_csv([(PARTICIPANT, 10), (PARTICIPANT, 20)])


def test_a_row_that_is_not_a_pair_is_refused():
    with pytest.raises(ValueError, match="not a \\(participant id, cents\\) pair"):
        bonuses_csv([PARTICIPANT])


def test_the_configured_connector_reads_token_url_workspace_and_project(settings):
    from crowd.platforms import connector

    settings.PROLIFIC_API_TOKEN = "configured"
    settings.PROLIFIC_API_URL = "https://prolific.example/"
    settings.PROLIFIC_WORKSPACE_ID = WORKSPACE
    settings.PROLIFIC_PROJECT_ID = "6600000000000000000000bb"
    platform = connector("prolific")
    assert isinstance(platform, Prolific)
    assert platform.session.headers["Authorization"] == "Token configured"
    assert (platform.base_url, platform.workspace_id, platform.project_id) == (
        "https://prolific.example",
        WORKSPACE,
        "6600000000000000000000bb",
    )
