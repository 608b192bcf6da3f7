"""The study-link connector: links, arrivals, verification codes, the CSVs and platform exports.
Pure functions, so no database."""

import csv
import io

import pytest
from django.core.exceptions import ImproperlyConfigured
from django.http import QueryDict

from crowd.platforms.studylink import links as studylink
from crowd.platforms.studylink.links import (
    PlatformRecord,
    StudyLinkConfig,
    approvals_csv,
    arrival_ids,
    bonuses_csv,
    completion_address,
    records_read,
    study_link,
    verification_check,
    verification_code,
)
from paracrowd.environment import env_https_url, env_url_parameter

SECRET = "a-test-secret-that-is-long-enough-0123456789"
ENTRANCE = "https://paracrowd.example.org/collector/platform/describe/"
SONA_COMPLETION = (
    "https://school.sona-systems.com/webstudy_credit.aspx?experiment_id=12&credit_token=ab12"
    "&survey_code={participant}"
)


@pytest.fixture
def config():
    return StudyLinkConfig(secret=SECRET)


def rows_of(text):
    return list(csv.reader(io.StringIO(text)))


# Links


def test_the_generic_link_puts_the_panel_placeholders_under_the_configured_names():
    config = StudyLinkConfig(
        secret=SECRET, participant_param="pid", session_param="sid", study_param="sty"
    )
    assert study_link(ENTRANCE, config) == (
        ENTRANCE + "?pid={PARTICIPANT_ID}&sid={SESSION_ID}&sty={STUDY_ID}"
    )


def test_the_sona_link_carries_the_survey_code_and_nothing_sona_does_not_send(config):
    assert study_link(ENTRANCE, config.for_preset("sona"), "sona") == (
        ENTRANCE + "?participant=%SURVEY_CODE%"
    )


def test_the_microworkers_link_carries_worker_slot_and_campaign_placeholders(config):
    assert study_link(ENTRANCE + "?kind=rating", config, "microworkers") == (
        ENTRANCE + "?kind=rating&participant={{MW_ID}}&session={{SLOT_ID}}&study={{CAMP_ID}}"
    )


@pytest.mark.parametrize("preset", ["connect", "clickworker"])
def test_platforms_that_append_their_own_parameters_get_the_entrance_as_it_is(config, preset):
    assert study_link(ENTRANCE, config.for_preset(preset), preset) == ENTRANCE


def test_connect_and_clickworker_impose_their_parameter_names(config):
    assert config.for_preset("connect").participant_param == "participantId"
    assert config.for_preset("connect").session_param == "assignmentId"
    clickworker = config.for_preset("clickworker")
    assert (clickworker.participant_param, clickworker.session_param) == ("user_id", "")


def test_a_link_is_refused_when_the_platform_names_the_participant_otherwise(config):
    with pytest.raises(ValueError, match="'user_id'"):
        study_link(ENTRANCE, config, "clickworker")


def test_a_link_is_refused_when_it_expects_a_session_the_platform_never_sends(config):
    with pytest.raises(ValueError, match="SONA sends no session id"):
        study_link(ENTRANCE, config, "sona")


def test_an_unknown_preset_is_refused_with_the_known_ones(config):
    with pytest.raises(ValueError, match="generic, connect, sona"):
        study_link(ENTRANCE, config, "mturk")


# Arrivals


def test_it_reads_the_ids_under_custom_parameter_names():
    config = StudyLinkConfig(
        secret=SECRET, participant_param="user_id", session_param="slot", study_param="camp"
    )
    arrival = arrival_ids(QueryDict("user_id=W123&slot=s-9&camp=C.7"), config)
    assert (arrival.participant_id, arrival.session_id, arrival.study_id) == ("W123", "s-9", "C.7")


def test_the_study_id_is_optional(config):
    assert arrival_ids({"participant": "P1", "session": "S1"}, config).study_id is None


def test_without_a_session_parameter_the_session_is_made_up_from_participant_and_study(config):
    sona = config.for_preset("sona")
    first = arrival_ids(QueryDict("participant=4711"), sona)
    again = arrival_ids(QueryDict("participant=4711"), sona)
    other = arrival_ids(QueryDict("participant=4712"), sona)
    assert first.session_id == again.session_id != other.session_id
    assert first.session_id.startswith("local-") and len(first.session_id) == 22


@pytest.mark.parametrize(
    ("query", "message"),
    [
        ("session=S1", "has no 'participant' parameter"),
        ("participant=&session=S1", "has no 'participant' parameter"),
        ("participant=P1", "has no 'session' parameter"),
        ("participant=P1&participant=P2&session=S1", "gives the 'participant' parameter twice"),
        ("participant=a%20b&session=S1", "'participant' parameter of your link is not an id"),
        ("participant=-1&session=S1", "'participant' parameter of your link is not an id"),
        ("participant=" + "x" * 65 + "&session=S1", "'participant' parameter of your link"),
        ("participant=P1&session=%3Cscript%3E", "'session' parameter of your link is not"),
        ("participant=ann%40example.org&session=S1", "holds an email address"),
        ("participant=%SURVEY_CODE%&session=S1", "still holds the platform's placeholder"),
    ],
)
def test_missing_or_malformed_ids_are_refused_naming_the_parameter(config, query, message):
    with pytest.raises(ValueError, match=message) as refused:
        arrival_ids(QueryDict(query), config)
    assert str(refused.value).count(".") == 1  # one sentence


# Verification codes


def test_the_verification_code_is_stable_and_grouped(config):
    code = verification_code(session_id="S1", participant_id="P1", config=config)
    assert code == verification_code(session_id="S1", participant_id="P1", config=config)
    assert len(code) == 14 and code[4] == code[9] == "-"
    assert set(code.replace("-", "")) <= set("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567")


def test_the_verification_code_differs_per_session_participant_and_secret(config):
    codes = {
        verification_code(session_id="S1", participant_id="P1", config=config),
        verification_code(session_id="S2", participant_id="P1", config=config),
        verification_code(session_id="S1", participant_id="P2", config=config),
        verification_code(session_id="P1", participant_id="S1", config=config),
        verification_code(session_id="S1", participant_id="P1", config=StudyLinkConfig(secret="x")),
    }
    assert len(codes) == 5


def test_the_verification_code_checks_as_a_person_may_type_it(config):
    code = verification_code(session_id="S1", participant_id="P1", config=config)
    for typed in (code, code.lower(), code.replace("-", ""), " " + code.replace("-", " ") + " "):
        assert verification_check(typed, session_id="S1", participant_id="P1", config=config)


def test_a_tampered_or_borrowed_verification_code_fails(config):
    code = verification_code(session_id="S1", participant_id="P1", config=config)
    tampered = ("B" if code[0] == "A" else "A") + code[1:]
    assert not verification_check(tampered, session_id="S1", participant_id="P1", config=config)
    assert not verification_check(code, session_id="S1", participant_id="P2", config=config)
    assert not verification_check("", session_id="S1", participant_id="P1", config=config)
    assert not verification_check(code + "ü", session_id="S1", participant_id="P1", config=config)


# Completion


def test_without_a_completion_url_the_code_is_shown_instead(config):
    assert completion_address(completion_code="C1", verification="V", config=config) is None


def test_the_completion_address_quotes_what_it_fills_in():
    config = StudyLinkConfig(
        secret=SECRET, completion_url="https://panel.example.org/done?cc={code}&v={verification}"
    )
    address = completion_address(completion_code="a&b=c", verification="AB CD/EF", config=config)
    assert address == "https://panel.example.org/done?cc=a%26b%3Dc&v=AB%20CD%2FEF"


def test_the_sona_completion_address_carries_the_survey_code():
    config = StudyLinkConfig(secret=SECRET, completion_url=SONA_COMPLETION)
    address = completion_address(
        completion_code="", verification="", config=config, participant_id="4711"
    )
    assert address.endswith("credit_token=ab12&survey_code=4711")
    with pytest.raises(ValueError, match="needs the participant id"):
        completion_address(completion_code="", verification="", config=config)


# The CSVs researchers upload


def test_the_approvals_csv_has_a_header_and_a_row_per_participant():
    text = approvals_csv([("P1", "S1", "AAAA-BBBB-CCCC"), ("P2", "local-X", "DDDD-EEEE-FFFF")])
    assert rows_of(text) == [
        ["participant_id", "session_id", "verification_code"],
        ["P1", "S1", "AAAA-BBBB-CCCC"],
        ["P2", "local-X", "DDDD-EEEE-FFFF"],
    ]


def test_the_bonuses_csv_gives_amounts_in_major_units():
    text = bonuses_csv([("P1", "S1", "AAAA-BBBB-CCCC", 25), ("P2", "S2", "V", 1200)])
    assert rows_of(text) == [
        ["participant_id", "session_id", "verification_code", "amount"],
        ["P1", "S1", "AAAA-BBBB-CCCC", "0.25"],
        ["P2", "S2", "V", "12.00"],
    ]


@pytest.mark.parametrize("cents", [0, -5, 2.5, True])
def test_a_bonus_that_is_not_positive_whole_cents_is_refused(cents):
    with pytest.raises(ValueError, match="positive number of cents"):
        bonuses_csv([("P1", "S1", "V", cents)])


def test_a_session_listed_twice_is_refused_as_it_would_be_paid_twice():
    with pytest.raises(ValueError, match="P1's session S1 is listed twice"):
        approvals_csv([("P1", "S1", "V"), ("P1", "S1", "V")])
    with pytest.raises(ValueError, match="P1's session S1 is listed twice"):
        bonuses_csv([("P1", "S1", "V", 10), ("P1", "S1", "V", 10)])


def test_a_participant_who_came_back_has_a_row_for_each_session():
    rows = approvals_csv([("P1", "S1", "V"), ("P1", "S2", "W")]).splitlines()
    assert rows[1:] == ["P1,S1,V", "P1,S2,W"]


def test_an_id_that_is_not_one_is_refused_in_a_csv():
    with pytest.raises(ValueError, match="is not a platform id"):
        approvals_csv([('=HYPERLINK("http://x")', "S1", "V")])


@pytest.mark.parametrize("dangerous", ["=1+1", "+1", "-1", "@SUM(A1)", "\tx", "\rx"])
def test_cells_a_spreadsheet_would_evaluate_are_neutralised(dangerous):
    assert rows_of(approvals_csv([("P1", "S1", dangerous)]))[1][2] == "'" + dangerous


# Platform exports


def test_it_reads_a_semicolon_export_with_a_byte_order_mark_and_any_header_case(config):
    good = verification_code(session_id="S1", participant_id="P1", config=config)
    text = (
        "\ufeffWorker ID;Slot;Proof;Status\r\n"
        f"P1;S1;{good.lower()};OK\r\n"
        "\r\n"
        "P2;S2;AAAA-BBBB-CCCC;NOTRATED\r\n"
    )
    records = records_read(
        text,
        participant_column="worker id",
        session_column="SLOT",
        code_column="proof",
        status_column="status",
        config=config,
    )
    assert records == [
        PlatformRecord("P1", "S1", good.lower(), "OK", True),
        PlatformRecord("P2", "S2", "AAAA-BBBB-CCCC", "NOTRATED", False),
    ]


def test_a_forged_code_is_flagged_in_a_tab_export_without_sessions(config):
    clickworker = config.for_preset("clickworker")
    session = arrival_ids({"user_id": "777"}, clickworker).session_id
    good = verification_code(session_id=session, participant_id="777", config=clickworker)
    forged = verification_code(session_id="S1", participant_id="777", config=clickworker)
    records = records_read(
        f"user_id\tcode\n777\t{good}\n777\t{forged}\n",
        participant_column="user_id",
        session_column=None,
        code_column="code",
        config=clickworker,
    )
    assert [record.verified for record in records] == [True, False]


def test_without_a_code_column_nothing_is_verified(config):
    records = records_read("participant,session\nP1,S1\n", **_columns(), config=config)
    assert records == [PlatformRecord("P1", "S1", None, None, None)]


def test_a_missing_column_is_named(config):
    with pytest.raises(ValueError, match="no column named 'code'"):
        records_read(
            "participant,session\nP1,S1\n", **_columns(), code_column="code", config=config
        )


def test_a_bad_id_in_an_export_names_its_line(config):
    with pytest.raises(ValueError, match="Line 3: 'a b' is not a platform id"):
        records_read("participant,session\nP1,S1\na b,S2\n", **_columns(), config=config)


def test_an_export_without_sessions_is_refused_when_the_platform_sends_them(config):
    with pytest.raises(ValueError, match="name the export's session column"):
        records_read(
            "participant\nP1\n",
            participant_column="participant",
            session_column=None,
            config=config,
        )


def test_an_export_over_the_row_limit_is_refused(config, monkeypatch):
    monkeypatch.setattr(studylink, "MAX_RECORDS", 2)
    text = "participant,session\n" + "".join(f"P{n},S{n}\n" for n in range(3))
    with pytest.raises(ValueError, match="more than 2 rows"):
        records_read(text, **_columns(), config=config)


def _columns():
    return {"participant_column": "participant", "session_column": "session"}


# Settings


def test_the_secret_defaults_to_one_derived_from_the_secret_key(settings):
    settings.STUDY_LINK_SECRET = ""
    derived = StudyLinkConfig.from_settings().secret
    assert derived and settings.SECRET_KEY not in derived
    settings.SECRET_KEY = "another-secret-key-for-this-test"
    assert StudyLinkConfig.from_settings().secret != derived
    settings.STUDY_LINK_SECRET = SECRET
    assert StudyLinkConfig.from_settings().secret == SECRET


def test_a_config_without_a_secret_is_refused():
    with pytest.raises(ValueError, match="needs a secret"):
        StudyLinkConfig(secret="")


PLACEHOLDERS = ("code", "verification", "participant")


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("http://panel.example.org/done?cc={code}", "must start with https://"),
        ("ftp://panel.example.org/done", "must start with https://"),
        ("javascript:alert(1)", "must name its host plainly"),
        ("https://{code}.example.org/done", "must name its host plainly"),
        ("https://user@panel.example.org/done", "must name its host plainly"),
        ("https://panel.example.org/done?cc={cc}", "only these placeholders"),
        ("https://panel.example.org/done?cc= {code}", "without spaces"),
    ],
)
def test_settings_refuse_a_completion_url_that_is_not_a_plain_https_one(monkeypatch, url, message):
    monkeypatch.setenv("STUDY_LINK_COMPLETION_URL", url)
    with pytest.raises(ImproperlyConfigured, match=message):
        env_https_url("STUDY_LINK_COMPLETION_URL", "", placeholders=PLACEHOLDERS)


@pytest.mark.parametrize(
    "url", ["", SONA_COMPLETION, "http://localhost:8000/done?v={verification}"]
)
def test_settings_accept_https_and_local_http_completion_urls(monkeypatch, url):
    monkeypatch.setenv("STUDY_LINK_COMPLETION_URL", url)
    assert env_https_url("STUDY_LINK_COMPLETION_URL", "", placeholders=PLACEHOLDERS) == url


@pytest.mark.parametrize("name", ["a b", "x" * 41, "p&q", "pid="])
def test_settings_refuse_a_parameter_name_a_url_cannot_carry(monkeypatch, name):
    monkeypatch.setenv("STUDY_LINK_PARTICIPANT_PARAM", name)
    with pytest.raises(ImproperlyConfigured, match="STUDY_LINK_PARTICIPANT_PARAM must be"):
        env_url_parameter("STUDY_LINK_PARTICIPANT_PARAM", "participant")
