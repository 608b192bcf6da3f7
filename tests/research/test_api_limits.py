"""The research API answers floods with 429 and a Retry-After, whoever sends them."""

import pytest
from django.urls import reverse
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from tests.conftest import UNREACHABLE_CACHE
from tests.factories import make_researcher

pytestmark = pytest.mark.django_db


def test_guessing_tokens_runs_into_429_with_retry_after(address, settings):
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {
            **settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"],
            "bad_token": "5/hour",
        },
    }
    client = APIClient(REMOTE_ADDR=address)
    statuses = []
    for n in range(8):
        client.credentials(HTTP_AUTHORIZATION=f"Token guess{n:036d}")
        statuses.append(client.get(reverse("research-api:statistics")))
    assert [r.status_code for r in statuses] == [401] * 5 + [429] * 3
    assert int(statuses[-1]["Retry-After"]) > 0


def test_a_researcher_flooding_the_api_is_slowed_down_with_retry_after(address, settings):
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {
            **settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"],
            "user": "3/minute",
        },
    }
    token = Token.objects.create(user=make_researcher())
    client = APIClient(REMOTE_ADDR=address)
    client.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
    statuses = [client.get(reverse("research-api:statistics")).status_code for _ in range(4)]
    assert statuses == [200, 200, 200, 429]
    assert int(client.get(reverse("research-api:statistics"))["Retry-After"]) > 0


def test_limits_still_count_while_the_cache_is_unreachable(address, settings):
    settings.CACHES = UNREACHABLE_CACHE
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {
            **settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"],
            "user": "3/minute",
        },
    }
    token = Token.objects.create(user=make_researcher())
    client = APIClient(REMOTE_ADDR=address)
    client.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
    statuses = [client.get(reverse("research-api:statistics")).status_code for _ in range(4)]
    assert statuses == [200, 200, 200, 429]


def test_guessing_tokens_is_still_limited_while_the_cache_is_unreachable(address, settings):
    settings.CACHES = UNREACHABLE_CACHE
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {
            **settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"],
            "bad_token": "5/hour",
        },
    }
    client = APIClient(REMOTE_ADDR=address)
    statuses = []
    for n in range(7):
        client.credentials(HTTP_AUTHORIZATION=f"Token guess{n:036d}")
        statuses.append(client.get(reverse("research-api:statistics")).status_code)
    assert statuses == [401] * 5 + [429] * 2
