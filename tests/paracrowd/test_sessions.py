"""Sessions: recorded in the database, read from a copy in Redis; logging out ends them
everywhere, and an unreachable Redis signs nobody out."""

import pytest
import redis
from django.conf import settings
from django.core.cache import cache
from django.test import Client
from django.urls import reverse

from paracrowd.sessions import SessionStore
from tests.factories import make_worker

pytestmark = pytest.mark.django_db

UNREACHABLE = "redis://127.0.0.1:1/0"


@pytest.fixture
def cache_unreachable(settings):
    """The cache (and so the sessions' copies) pointed at a port where nothing listens."""
    settings.CACHES = {
        "default": {**settings.CACHES["default"], "LOCATION": UNREACHABLE},
    }


def log_in(client, worker):
    response = client.post(
        reverse("login"), {"username": worker.user.username, "password": "correct horse battery"}
    )
    assert response.status_code == 302, response
    return client.cookies[settings.SESSION_COOKIE_NAME].value


def dashboard_status(session_key) -> int:
    """What another browser holding ``session_key`` gets from the dashboard."""
    other = Client()
    other.cookies[settings.SESSION_COOKIE_NAME] = session_key
    return other.get(reverse("collector:dashboard")).status_code


def test_a_session_is_recorded_in_the_database_and_copied_to_the_cache(client):
    key = log_in(client, make_worker())
    assert SessionStore().exists(key)
    assert cache.get(SessionStore.cache_key_prefix + key)["_auth_user_id"]


def test_logging_out_ends_the_session_for_every_copy_of_its_cookie(client):
    key = log_in(client, make_worker())
    assert dashboard_status(key) == 200
    client.post(reverse("logout"))
    assert cache.get(SessionStore.cache_key_prefix + key) is None
    assert dashboard_status(key) == 302  # to the log-in page


def test_a_session_whose_copy_expired_is_read_from_the_database_again(client):
    key = log_in(client, make_worker())
    cache.delete(SessionStore.cache_key_prefix + key)
    assert dashboard_status(key) == 200
    assert cache.get(SessionStore.cache_key_prefix + key) is not None


def test_a_copy_lives_at_most_session_cache_seconds(client, settings):
    settings.SESSION_CACHE_SECONDS = 60
    key = log_in(client, make_worker())
    server = redis.Redis.from_url(settings.CACHES["default"]["LOCATION"])
    seconds = server.ttl(cache.make_key(SessionStore.cache_key_prefix + key))
    server.close()
    assert 0 < seconds <= 60


def test_workers_stay_signed_in_while_the_cache_is_unreachable(client, settings):
    key = log_in(client, make_worker())
    settings.CACHES = {"default": {**settings.CACHES["default"], "LOCATION": UNREACHABLE}}
    assert dashboard_status(key) == 200


def test_logging_in_and_out_work_while_the_cache_is_unreachable(client, cache_unreachable):
    key = log_in(client, make_worker())
    assert dashboard_status(key) == 200
    assert client.post(reverse("logout")).status_code == 302
    assert dashboard_status(key) == 302
