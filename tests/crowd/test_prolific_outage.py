"""Prolific failing never slows the site: an arrival's look-up is tried once, and after a few
failures in a row not at all (the circuit breaker is open), each arrival refused at once with
the 503 that asks the participant to come back; after the cool-down one arrival tries again,
and Prolific answering closes the breaker. Against the local stand-in of Prolific's API; the
breaker's clock is the test's."""

from datetime import timedelta

import pytest
from django.urls import reverse

from crowd import platforms
from crowd import services as crowd
from crowd.models import HitType, Tier, WorkSession
from paracrowd.breaker import Breaker
from tests.conftest import UNREACHABLE_CACHE
from tests.factories import make_segment

pytestmark = pytest.mark.django_db

URL = reverse("collector:platform_describe")
FAILURES, COOLDOWN = 5, 30


class Clock:
    def __init__(self):
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock():
    return Clock()


@pytest.fixture
def prolific(prolific_api, settings, clock):
    settings.PLATFORM_PUBLIC_URL = "https://paracrowd.example.org"
    breaker = Breaker(
        f"prolific:{prolific_api.url}", failures=FAILURES, cooldown=COOLDOWN, clock=clock
    )
    platforms.install("prolific", prolific_api.connector(breaker=breaker))
    yield prolific_api
    platforms.install("prolific", None)


@pytest.fixture
def session(prolific):
    """A participant in a published study: (participant, submission, study)."""
    make_segment(targets=(3, 3))
    draft = crowd.campaign_create(
        name="Descriptions",
        platform="prolific",
        kind=HitType.Kind.DESCRIPTION,
        tier=Tier.ONE,
        size=1,
        lifetime=timedelta(days=7),
    )
    study = crowd.campaign_publish(campaign=draft).external_id
    participant, submission = prolific.participant_joins(study)
    return participant, submission, study


def arrive(client, address, session):
    participant, submission, study = session
    query = {"PROLIFIC_PID": participant, "STUDY_ID": study, "SESSION_ID": submission}
    return client.get(URL, query, REMOTE_ADDR=address)


def look_ups(prolific, session) -> int:
    return len(prolific.sent("GET", f"/api/v1/submissions/{session[1]}/"))


def test_prolific_failing_is_asked_once_per_arrival_then_not_at_all(
    prolific, session, client, address
):
    prolific.fail_next("GET", f"/api/v1/submissions/{session[1]}/", status=500, times=100)
    for tried in range(1, FAILURES + 1):
        response = arrive(client, address, session)
        assert response.status_code == 503
        assert "could not reach Prolific" in response.content.decode()
        assert look_ups(prolific, session) == tried  # one request, no retries
    for _ in range(3):
        assert arrive(client, address, session).status_code == 503
    assert look_ups(prolific, session) == FAILURES  # open: Prolific is not asked
    assert not WorkSession.objects.exists()


def test_after_the_cool_down_one_arrival_tries_and_prolific_answering_closes_the_breaker(
    prolific, session, client, address, clock
):
    prolific.fail_next("GET", f"/api/v1/submissions/{session[1]}/", status=502, times=FAILURES)
    for _ in range(FAILURES):
        arrive(client, address, session)
    clock.now += COOLDOWN - 1
    assert arrive(client, address, session).status_code == 503
    assert look_ups(prolific, session) == FAILURES

    clock.now += 1
    response = arrive(client, address, session)
    assert response.status_code == 200 and "Task 1 of" in response.content.decode()
    assert look_ups(prolific, session) == FAILURES + 1
    assert WorkSession.objects.get().arrival_checked_at is not None


def test_a_failed_try_after_the_cool_down_opens_the_breaker_again(
    prolific, session, client, address, clock
):
    prolific.fail_next("GET", f"/api/v1/submissions/{session[1]}/", status=500, times=100)
    for _ in range(FAILURES):
        arrive(client, address, session)
    clock.now += COOLDOWN
    assert arrive(client, address, session).status_code == 503
    assert look_ups(prolific, session) == FAILURES + 1
    assert arrive(client, address, session).status_code == 503
    assert look_ups(prolific, session) == FAILURES + 1  # open again for another cool-down


def test_a_dropped_connection_counts_as_a_failure_too(prolific, session, client, address):
    path = f"/api/v1/submissions/{session[1]}/"
    prolific.fail_next("GET", path, drop=True, times=100)
    for _ in range(FAILURES + 2):
        assert arrive(client, address, session).status_code == 503
    assert look_ups(prolific, session) == FAILURES


def test_with_redis_down_the_breaker_still_opens_in_each_process(
    prolific, session, client, address, settings
):
    settings.CACHES = UNREACHABLE_CACHE
    prolific.fail_next("GET", f"/api/v1/submissions/{session[1]}/", status=500, times=100)
    for _ in range(FAILURES + 3):
        assert arrive(client, address, session).status_code == 503
    assert look_ups(prolific, session) == FAILURES
