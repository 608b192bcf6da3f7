"""Guessing passwords, minting accounts and weak passwords: each runs into a limit."""

import pytest
from axes.models import AccessAttempt
from django.conf import settings
from django.contrib.auth import get_user_model
from django.urls import reverse

from tests.conftest import UNREACHABLE_CACHE
from tests.factories import make_staff, make_worker

pytestmark = pytest.mark.django_db


def log_in(client, address, username, password):
    return client.post(
        reverse("login"), {"username": username, "password": password}, REMOTE_ADDR=address
    )


def test_an_account_is_locked_after_repeated_wrong_passwords_even_for_the_right_one(
    client, address
):
    worker = make_worker()
    name = worker.user.username
    for _ in range(settings.AXES_FAILURE_LIMIT - 1):
        assert log_in(client, address, name, "wrong guess").status_code == 200
    locked = log_in(client, address, name, "wrong guess")
    assert locked.status_code == 429
    assert int(locked["Retry-After"]) == settings.AXES_COOLOFF_TIME.total_seconds()
    right = log_in(client, address, name, "correct horse battery")
    assert right.status_code == 429
    assert "_auth_user_id" not in client.session


def test_each_failed_log_in_says_how_many_attempts_are_left_before_the_lockout(client, address):
    name = make_worker().user.username
    minutes = int(settings.AXES_COOLOFF_TIME.total_seconds() // 60)
    for left in range(settings.AXES_FAILURE_LIMIT - 1, 0, -1):
        page = log_in(client, address, name, "wrong guess").content.decode()
        noun = "attempt" if left == 1 else "attempts"
        assert f"{left} {noun} left before a lockout of {minutes} minutes." in page
    locked = log_in(client, address, name, "wrong guess").content.decode()
    assert f"it is locked for {minutes} minutes" in locked and f"Wait {minutes} minutes" in locked


def test_a_lockout_from_one_address_does_not_lock_the_worker_out_elsewhere(client, address):
    name = make_worker().user.username
    for _ in range(settings.AXES_FAILURE_LIMIT):
        log_in(client, address, name, "wrong guess")
    response = log_in(client, "192.0.2.77", name, "correct horse battery")
    assert response.status_code == 302
    assert client.session["_auth_user_id"]


def test_staff_see_the_lockout_in_the_admin_and_lift_it(client, address):
    name = make_worker().user.username
    for _ in range(settings.AXES_FAILURE_LIMIT):
        log_in(client, address, name, "wrong guess")
    attempt = AccessAttempt.objects.get(username=name)

    admin = make_staff()
    admin.is_superuser = True
    admin.save()
    staff_client = type(client)()
    staff_client.force_login(admin)
    listing = staff_client.get(reverse("admin:axes_accessattempt_changelist"))
    assert name in listing.content.decode()
    staff_client.post(
        reverse("admin:axes_accessattempt_delete", args=[attempt.pk]), {"post": "yes"}
    )

    assert log_in(client, address, name, "correct horse battery").status_code == 302


def test_sign_ups_from_one_address_are_limited_per_hour(client, address, settings):
    settings.SIGNUPS_PER_HOUR = 3
    for n in range(3):
        response = client.post(
            reverse("signup"),
            {"username": f"bulk{n}", "password1": "x", "password2": "y"},
            REMOTE_ADDR=address,
        )
        assert response.status_code == 200
    refused = client.post(
        reverse("signup"),
        {
            "username": "bulk9",
            "password1": "a long safe passphrase",
            "password2": "a long safe passphrase",
        },
        REMOTE_ADDR=address,
    )
    assert refused.status_code == 429
    assert int(refused["Retry-After"]) > 0
    assert "Too many sign-ups" in refused.content.decode()
    assert not get_user_model().objects.filter(username="bulk9").exists()


def test_sign_ups_are_still_limited_while_the_cache_is_unreachable(client, address, settings):
    settings.CACHES = UNREACHABLE_CACHE
    settings.SIGNUPS_PER_HOUR = 3
    statuses = []
    for n in range(5):
        client.logout()
        password = "a long safe passphrase"
        form = {"username": f"outage{n}", "password1": password, "password2": password}
        statuses.append(client.post(reverse("signup"), form, REMOTE_ADDR=address).status_code)
    assert statuses == [302, 302, 302, 429, 429]
    assert get_user_model().objects.filter(username__startswith="outage").count() == 3


@pytest.mark.parametrize(
    "password, complaint",
    [
        ("90817263", "entirely numeric"),
        ("caroline71", "too similar to the username"),
        ("short", "too short"),
        ("password123", "too common"),
    ],
)
def test_sign_up_refuses_weak_passwords(client, address, password, complaint):
    response = client.post(
        reverse("signup"),
        {"username": "caroline7", "password1": password, "password2": password},
        REMOTE_ADDR=address,
    )
    assert complaint in response.content.decode()
    assert not get_user_model().objects.filter(username="caroline7").exists()
