"""Password reset: the request does the same work and gives the same answer for an address with
an account and one without (a Celery task looks it up and mails the link), and is limited per
network address and per e-mail address."""

import base64
import json
import re

import pytest
import redis
from django.conf import settings
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from crowd import services
from crowd.services.password_reset import SEND_TASK
from crowd.tasks import send_password_reset
from paracrowd.queues import queue_name
from tests.conftest import TASK_QUEUE, UNREACHABLE_CACHE
from tests.factories import make_worker

pytestmark = pytest.mark.django_db


@pytest.fixture
def queued_resets():
    """The arguments of the reset tasks queued in this run's default queue, read from Redis
    (the messages are taken out again afterwards)."""
    broker = redis.Redis.from_url(settings.CELERY_BROKER_URL)
    queue = queue_name(TASK_QUEUE, "default")
    read = []

    def queued(email):
        found = []
        for raw in broker.lrange(queue, 0, -1):
            message = json.loads(raw)
            args = json.loads(base64.b64decode(message["body"]))[0]
            if message["headers"]["task"] == SEND_TASK and args[0] == email:
                found.append(args)
                read.append(raw)
        return found

    yield queued
    for raw in read:
        broker.lrem(queue, 0, raw)
    broker.close()


@pytest.fixture
def email(address):
    """An e-mail address no other test of this run uses, so its limit starts from zero."""
    return f"someone-{address.replace('.', '-')}@example.org"


def worker_with_email(email):
    worker = make_worker()
    worker.user.email = email
    worker.user.save(update_fields=["email"])
    return worker


def ask_for_reset(client, email, address, **extra):
    return client.post(reverse("password_reset"), {"email": email}, REMOTE_ADDR=address, **extra)


def test_a_known_and_an_unknown_address_get_the_same_answer_and_the_same_task(
    client, address, email, queued_resets, django_capture_on_commit_callbacks
):
    worker_with_email(email)
    unknown = "nobody-" + email
    answers = []
    for asked in (email, unknown):
        with (
            CaptureQueriesContext(connection) as queries,
            django_capture_on_commit_callbacks(execute=True),
        ):
            response = ask_for_reset(client, asked, address)
        answers.append((response.status_code, response["Location"], response.content))
        answers.append(len(queries))
    assert answers[0:2] == answers[2:4]
    assert answers[0][:2] == (302, reverse("password_reset_done"))
    # One task each, carrying the address as typed: the look-up is the task's.
    assert queued_resets(email) == [[email, "testserver", False]]
    assert queued_resets(unknown) == [[unknown, "testserver", False]]


def test_the_task_mails_a_working_link_to_a_known_address(client, email, mailoutbox):
    worker = worker_with_email(email)

    assert send_password_reset(email.upper(), "paracrowd.example.org", True) == 1

    [mail] = mailoutbox
    assert mail.to == [email]
    assert mail.from_email == settings.DEFAULT_FROM_EMAIL
    link = re.search(r"https://paracrowd\.example\.org(/accounts/reset/\S+/)", mail.body)[1]
    response = client.get(link)
    assert response.status_code == 302  # to the form that sets a new password
    assert worker.user.username in mail.body


def test_the_task_mails_nothing_for_an_unknown_address(email, mailoutbox):
    worker_with_email(email)

    assert send_password_reset("nobody-" + email, "paracrowd.example.org", True) == 0
    assert send_password_reset("not an address", "paracrowd.example.org", True) == 0
    assert mailoutbox == []


def test_a_mail_that_cannot_be_sent_raises_so_that_the_task_tries_again(email, settings):
    worker_with_email(email)
    settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    settings.EMAIL_HOST, settings.EMAIL_PORT, settings.EMAIL_TIMEOUT = "127.0.0.1", 1, 1
    settings.EMAIL_USE_TLS = False

    with pytest.raises(OSError):
        services.password_reset_send(email=email, domain="testserver", use_https=True)
    assert issubclass(ConnectionRefusedError, send_password_reset.autoretry_for)


def test_resets_for_one_email_address_are_limited_per_hour_from_any_network(
    client, email, settings, queued_resets, django_capture_on_commit_callbacks
):
    settings.PASSWORD_RESETS_PER_EMAIL_PER_HOUR = 2
    settings.PASSWORD_RESETS_PER_HOUR = 1000  # the networks' own limit out of the way
    # Spellings Django's look-up takes for the same address share one count.
    spellings = [email, email.upper(), f" {email.title()} "]
    with django_capture_on_commit_callbacks(execute=True):
        statuses = [
            ask_for_reset(client, spelt, f"192.0.2.{n}").status_code
            for n, spelt in enumerate(spellings)
        ]
    assert statuses == [302, 302, 429]
    assert len(queued_resets(email)) == len(queued_resets(email.upper())) == 1
    assert queued_resets(spellings[2].strip()) == []


def test_an_address_without_an_account_is_limited_like_one_with(client, email, settings):
    settings.PASSWORD_RESETS_PER_EMAIL_PER_HOUR = 1
    settings.PASSWORD_RESETS_PER_HOUR = 1000
    worker_with_email(email)
    unknown = "nobody-" + email
    statuses = [ask_for_reset(client, asked, "192.0.2.9").status_code for asked in [email] * 2]
    statuses += [ask_for_reset(client, asked, "192.0.2.9").status_code for asked in [unknown] * 2]
    assert statuses == [302, 429, 302, 429]


def test_resets_from_one_network_address_are_limited_per_hour(client, address, email, settings):
    settings.PASSWORD_RESETS_PER_HOUR = 3
    # Malformed addresses count too: the limit is counted before anything else.
    asked = ["not an address", f"a-{email}", f"b-{email}", f"c-{email}"]
    responses = [ask_for_reset(client, each, address) for each in asked]
    assert [response.status_code for response in responses] == [200, 302, 302, 429]
    refused = responses[-1]
    assert int(refused["Retry-After"]) > 0
    assert "Too many password resets" in refused.content.decode()
    assert "<h1>Please wait</h1>" in refused.content.decode()


def test_resets_are_still_limited_while_the_cache_is_unreachable(client, address, email, settings):
    settings.CACHES = UNREACHABLE_CACHE
    settings.PASSWORD_RESETS_PER_EMAIL_PER_HOUR = 2
    statuses = [ask_for_reset(client, email, address).status_code for _ in range(3)]
    assert statuses == [302, 302, 429]
