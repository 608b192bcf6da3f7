"""Who may take a Prolific study and what it must pay, against the local stand-in of Prolific's
API: participant groups (ParaCrowd's qualifications there), the allowlist and language filters
on a study, and Prolific's reward recommendations."""

import pytest

from crowd import platforms
from crowd import services as crowd
from crowd.models import PlatformAction, PlatformQualification, Tier
from crowd.platforms.base import PlatformError
from crowd.platforms.prolific.client import ProlificError
from crowd.services import outbox
from tests.crowd.prolific_standin import WORKSPACE, NotEligible

PARTICIPANT = "5f1e2d3c4b5a697887766554"
OTHER = "60ffe5c8371090c7041d43f8"
THIRD = "6123456789abcdef01234567"
GROUPS = "/api/v1/participant-groups/"


@pytest.fixture
def platform(prolific_api):
    return prolific_api.connector()


def members_path(group_id):
    return f"{GROUPS}{group_id}/participants/"


def create_study(platform, **options):
    return platform.study_create(
        name="Describe a short video segment",
        internal_name="campaign-9",
        description="Watch a few seconds of video and write one sentence.",
        url="https://example.org/x/",
        completion_code="C0DE1234",
        reward_cents=25,
        places=3,
        minutes=5,
        **options,
    )


# Participant groups


def test_a_group_is_looked_for_then_created_in_the_workspace(prolific_api, platform):
    group_id = platform.qualification_type_create(
        name="ParaCrowd Tier 2", description="Granted for good descriptions."
    )
    (lookup,) = prolific_api.sent("GET", GROUPS)
    assert lookup.query == {"workspace_id": WORKSPACE}
    (request,) = prolific_api.sent("POST", GROUPS)
    assert request.json == {
        "name": "ParaCrowd Tier 2",
        "workspace_id": WORKSPACE,
        "description": "Granted for good descriptions.",
    }
    assert prolific_api.groups[group_id]["name"] == "ParaCrowd Tier 2"


def test_a_group_the_workspace_already_has_is_returned_not_made_again(prolific_api, platform):
    prolific_api.group_add("ParaCrowd Tier 2 draft")
    existing = prolific_api.group_add("ParaCrowd Tier 2", [OTHER])
    found = platform.qualification_type_create(name="ParaCrowd Tier 2", description="d")
    assert found == existing
    assert prolific_api.sent("POST", GROUPS) == []
    assert platform.qualification_type_find(name="ParaCrowd Tier 2") == existing


def test_a_group_is_created_once_when_the_first_answer_was_lost(prolific_api, platform):
    prolific_api.fail_next("POST", GROUPS, drop=True)
    with pytest.raises(PlatformError, match="could not be reached"):
        platform.qualification_type_create(name="ParaCrowd Tier 2", description="d")
    group_id = platform.qualification_type_create(name="ParaCrowd Tier 2", description="d")
    assert list(prolific_api.groups) == [group_id]
    assert len(prolific_api.sent("POST", GROUPS)) == 1


def test_a_group_nobody_made_is_not_found(prolific_api, platform):
    prolific_api.group_add("Something else")
    assert platform.qualification_type_find(name="ParaCrowd Tier 2") is None


def test_groups_need_a_workspace_and_say_so(prolific_api):
    platform = prolific_api.connector(workspace_id="")
    with pytest.raises(PlatformError, match="workspace_id"):
        platform.qualification_type_create(name="ParaCrowd Tier 2", description="d")
    assert prolific_api.requests == []


def test_granting_adds_one_participant_and_keeps_the_others(prolific_api, platform):
    group_id = prolific_api.group_add("ParaCrowd Tier 2", [OTHER])
    platform.qualification_grant(qualification_type_id=group_id, worker_id=PARTICIPANT)
    platform.qualification_grant(qualification_type_id=group_id, worker_id=PARTICIPANT)
    requests = prolific_api.sent("POST", members_path(group_id))
    assert [r.json for r in requests] == [{"participant_ids": [PARTICIPANT]}] * 2
    assert platform.participant_group_members(group_id) == [OTHER, PARTICIPANT]


def test_revoking_removes_one_participant_and_can_be_repeated(prolific_api, platform):
    group_id = prolific_api.group_add("ParaCrowd Tier 2", [OTHER, PARTICIPANT])
    for _ in range(2):
        platform.qualification_revoke(
            qualification_type_id=group_id, worker_id=PARTICIPANT, reason="Too many typos."
        )
    requests = prolific_api.sent("DELETE", members_path(group_id))
    assert [r.json for r in requests] == [{"participant_ids": [PARTICIPANT]}] * 2
    assert prolific_api.group_members[group_id] == [OTHER]


@pytest.mark.parametrize("change", ["qualification_grant", "qualification_revoke"])
@pytest.mark.parametrize("worker_id", ["", "P1", OTHER.upper(), f"{OTHER}/", None])
def test_a_malformed_participant_id_is_refused_before_any_request(
    prolific_api, platform, change, worker_id
):
    group_id = prolific_api.group_add("ParaCrowd Tier 2")
    with pytest.raises(ProlificError, match="not a Prolific participant id") as caught:
        getattr(platform, change)(qualification_type_id=group_id, worker_id=worker_id)
    assert caught.value.status == 400
    assert prolific_api.requests == []


def test_a_group_id_that_is_not_prolifics_is_refused_before_any_request(prolific_api, platform):
    with pytest.raises(ProlificError, match="not a Prolific participant group id"):
        platform.qualification_grant(qualification_type_id="../studies", worker_id=PARTICIPANT)
    assert prolific_api.requests == []


def test_members_are_read_page_by_page(prolific_api, platform):
    group_id = prolific_api.group_add("ParaCrowd Tier 2", [PARTICIPANT, OTHER, THIRD])
    assert platform.participant_group_members(group_id) == [PARTICIPANT, OTHER, THIRD]
    pages = prolific_api.sent("GET", members_path(group_id))
    assert [r.query for r in pages] == [{}, {"page": "2"}]


# A study for one group


def test_a_study_for_a_group_is_created_with_the_groups_allowlist(prolific_api, platform):
    group_id = prolific_api.group_add("ParaCrowd Tier 2", [PARTICIPANT])
    create_study(platform, filters=[platform.group_filter(group_id)])
    (request,) = prolific_api.sent("POST", "/api/v1/studies/")
    assert request.json["filters"] == [
        {"filter_id": "participant_group_allowlist", "selected_values": [group_id]}
    ]


def test_only_members_of_the_allowlisted_group_can_join_the_study(prolific_api, platform):
    group_id = prolific_api.group_add("ParaCrowd Tier 2", [PARTICIPANT])
    study_id = create_study(platform, filters=[platform.group_filter(group_id)])
    platform.study_publish(study_id)
    with pytest.raises(NotEligible, match="none of the study's allowed groups"):
        prolific_api.participant_joins(study_id, OTHER)
    with pytest.raises(NotEligible):
        prolific_api.participant_joins(study_id)  # someone new
    assert prolific_api.participant_joins(study_id, PARTICIPANT)[0] == PARTICIPANT
    # Groups are live: one granted now can join, one revoked cannot.
    platform.qualification_grant(qualification_type_id=group_id, worker_id=OTHER)
    platform.qualification_revoke(qualification_type_id=group_id, worker_id=THIRD)
    assert prolific_api.participant_joins(study_id, OTHER)[0] == OTHER
    assert prolific_api.studies[study_id]["places_taken"] == 2


def test_a_participant_cannot_take_one_study_twice(prolific_api, platform):
    study_id = create_study(platform)
    platform.study_publish(study_id)
    prolific_api.participant_joins(study_id, PARTICIPANT)
    with pytest.raises(NotEligible, match="already taken"):
        prolific_api.participant_joins(study_id, PARTICIPANT)


def test_a_study_allowlisting_an_unknown_group_is_refused_with_prolifics_message(
    prolific_api, platform
):
    with pytest.raises(ProlificError, match="Invalid choices") as caught:
        create_study(platform, filters=[platform.group_filter(THIRD)])
    assert caught.value.status == 400
    assert prolific_api.studies == {}


@pytest.mark.parametrize(
    "entry",
    [
        {"filter_id": "fluent-languages"},
        {"selected_values": ["9"]},
        {"filter_id": "fluent-languages", "selected_values": ["9"], "values": ["9"]},
        {"filter_id": "fluent-languages", "selected_values": ["English"]},
        {"filter_id": "no-such-filter", "selected_values": ["1"]},
    ],
)
def test_a_filter_prolific_could_not_apply_is_refused(prolific_api, platform, entry):
    with pytest.raises(ProlificError) as caught:
        create_study(platform, filters=[entry])
    assert caught.value.status == 400
    assert prolific_api.studies == {}


# Languages


def test_languages_are_named_and_sent_as_prolifics_choice_ids(prolific_api, platform):
    languages = platform.language_filter(["english", "Spanish", "ENGLISH"])
    assert languages == {"filter_id": "fluent-languages", "selected_values": ["9", "46"]}
    create_study(platform, filters=[languages])
    (request,) = prolific_api.sent("POST", "/api/v1/studies/")
    assert request.json["filters"] == [
        {"filter_id": "fluent-languages", "selected_values": ["9", "46"]}
    ]


def test_the_filter_list_is_read_once_a_connector_across_its_pages(prolific_api, platform):
    platform.language_filter(["French"])
    platform.language_filter(["German"])
    pages = prolific_api.sent("GET", "/api/v1/filters/")
    assert [r.query for r in pages] == [{}, {"page": "2"}]


def test_an_unknown_language_is_refused_by_name_and_no_study_is_made(prolific_api, platform):
    with pytest.raises(PlatformError, match="called 'Klingon'.$"):
        create_study(platform, filters=[platform.language_filter(["English", "Klingon"])])
    with pytest.raises(PlatformError, match="'english '"):
        platform.language_filter(["english "])  # a name is matched exactly
    assert prolific_api.sent("POST", "/api/v1/studies/") == []
    assert prolific_api.sent("GET", "/api/v1/studies/") == []


def test_no_languages_is_refused_before_any_request(prolific_api, platform):
    for languages in ([], "English"):
        with pytest.raises(PlatformError, match="at least one language"):
            platform.language_filter(languages)
    assert prolific_api.requests == []


# Rewards


def test_the_reward_minimum_is_the_first_recommendations_minimum(prolific_api, platform):
    assert platform.reward_minimum_cents_per_hour(currency="USD") == 800
    prolific_api.reward_rates["GBP"] = (700, 950)
    minimum = platform.reward_minimum_cents_per_hour(
        currency="GBP", screener_ids=["fluent-languages", "participant_group_allowlist"]
    )
    assert minimum == 700
    first, second = prolific_api.sent("GET", "/api/v1/reward-recommendations/")
    assert first.query == {"workspace_id": WORKSPACE, "currency": "USD"}
    assert second.query == {
        "workspace_id": WORKSPACE,
        "currency": "GBP",
        "screener_ids": "fluent-languages,participant_group_allowlist",
    }


def test_recommendations_answered_as_a_page_are_read_the_same(prolific_api, platform):
    prolific_api.rewards_paged = True
    assert platform.reward_minimum_cents_per_hour(currency="GBP") == 600


def test_no_recommendation_is_a_platform_error(prolific_api, platform):
    del prolific_api.reward_rates["USD"]
    with pytest.raises(PlatformError, match="no reward recommendation in USD"):
        platform.reward_minimum_cents_per_hour(currency="USD")


def test_a_currency_prolific_does_not_take_is_refused_with_its_message(platform):
    with pytest.raises(ProlificError, match="not a valid choice") as caught:
        platform.reward_minimum_cents_per_hour(currency="XYZ")
    assert caught.value.status == 400


def test_rewards_need_a_workspace_and_say_so(prolific_api):
    platform = prolific_api.connector(workspace_id="")
    with pytest.raises(PlatformError, match="workspace_id"):
        platform.reward_minimum_cents_per_hour(currency="GBP")
    assert prolific_api.requests == []


# Through the outbox


@pytest.mark.django_db
def test_the_outbox_grants_and_revokes_tier_two_through_a_participant_group(prolific_api):
    platforms.install("prolific", prolific_api.connector())
    try:
        worker = crowd.worker_from_platform(platform="prolific", external_id=PARTICIPANT)
        for kind in (PlatformAction.Kind.GRANT, PlatformAction.Kind.REVOKE):
            outbox.platform_action_queue(
                kind=kind,
                worker=worker,
                token=f"{kind}:qualification:1",
                details={"tier": Tier.TWO, "reason": "Reviewed."},
            )
            assert crowd.platform_actions_send() == 1
            (group_id,) = prolific_api.groups
            members = prolific_api.group_members[group_id]
            assert members == ([PARTICIPANT] if kind == PlatformAction.Kind.GRANT else [])
    finally:
        platforms.install("prolific", None)
    stored = PlatformQualification.objects.get()
    assert stored.external_id == group_id
    assert prolific_api.groups[group_id]["name"] == outbox.QUALIFICATION_NAME
