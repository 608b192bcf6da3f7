"""When PostgreSQL or Redis goes away: /healthz says so, pages answer 503 with Retry-After, and
connections that died in between are replaced without an error."""

import json
import uuid
from contextlib import contextmanager

import psycopg2
import pytest
from django.core.handlers.wsgi import WSGIHandler
from django.db import connection
from django.test import RequestFactory
from django.urls import reverse

from tests.factories import make_researcher, make_worker


@contextmanager
def database_settings(**changes):
    """The default connection reconnects with ``changes`` (another port, another role)."""
    saved = dict(connection.settings_dict)
    connection.close()
    connection.settings_dict.update(changes)
    try:
        yield
    finally:
        connection.close()
        connection.settings_dict.clear()
        connection.settings_dict.update(saved)


@pytest.mark.django_db
def test_healthz_is_ok_when_database_and_broker_answer(client):
    response = client.get(reverse("healthz"))
    assert response.status_code == 200
    assert response.json() == {"database": "ok", "broker": "ok"}


@pytest.mark.django_db
def test_healthz_reports_a_broker_that_does_not_answer(client, settings):
    settings.CELERY_BROKER_URL = "redis://127.0.0.1:1/0"
    response = client.get(reverse("healthz"))
    assert response.status_code == 503
    assert response.json() == {"database": "ok", "broker": "unavailable"}
    assert int(response["Retry-After"]) > 0


@pytest.mark.django_db(transaction=True)
def test_healthz_reports_a_database_out_of_reach(client):
    with database_settings(PORT="1"):
        response = client.get(reverse("healthz"))
    assert response.status_code == 503
    assert response.json()["database"] == "unavailable"


@pytest.mark.django_db(transaction=True)
def test_a_page_answers_503_with_retry_after_when_the_database_is_out_of_reach(client):
    client.raise_request_exception = False
    client.force_login(make_worker().user)
    with database_settings(PORT="1"):
        response = client.get(reverse("collector:dashboard"))
    assert response.status_code == 503
    assert int(response["Retry-After"]) > 0
    assert "try again" in response.content.decode()


@pytest.mark.django_db(transaction=True)
def test_the_api_answers_json_503_when_the_database_is_out_of_reach(client):
    client.raise_request_exception = False
    client.force_login(make_researcher())
    with database_settings(PORT="1"):
        response = client.get(reverse("research-api:statistics"))
    assert response.status_code == 503
    assert response["Content-Type"] == "application/json"
    assert "try again" in response.json()["detail"]


@pytest.mark.django_db(transaction=True)
def test_a_database_out_of_connections_answers_503_not_500(client):
    # A role allowed no connection at all: PostgreSQL refuses it as it refuses anyone once
    # max_connections is reached ("too many connections"), without exhausting the server.
    role = f"no_room_{uuid.uuid4().hex[:8]}"
    with connection.cursor() as cursor:
        cursor.execute(f'CREATE ROLE "{role}" LOGIN CONNECTION LIMIT 0')
    client.raise_request_exception = False
    client.force_login(make_worker().user)
    try:
        with database_settings(USER=role):
            response = client.get(reverse("collector:dashboard"))
    finally:
        with connection.cursor() as cursor:
            cursor.execute(f'DROP ROLE "{role}"')
    assert response.status_code == 503
    assert int(response["Retry-After"]) > 0


@pytest.mark.django_db(transaction=True)
def test_a_connection_killed_between_requests_is_replaced_without_an_error():
    # Django's own WSGI handler, as gunicorn runs it: it keeps the connection between
    # requests (CONN_MAX_AGE), where the test client would not.
    handler = WSGIHandler()

    def get_healthz():
        answer = {}
        body = handler(
            RequestFactory().get("/healthz").environ,
            lambda status, headers: answer.update(status=status),
        )
        return answer["status"], json.loads(b"".join(body))

    assert get_healthz()[0].startswith("200")
    kept = connection.connection.get_backend_pid()
    killer = psycopg2.connect(**connection.get_connection_params())
    try:
        with killer.cursor() as cursor:
            cursor.execute("SELECT pg_terminate_backend(%s)", [kept])
    finally:
        killer.close()

    status, checks = get_healthz()
    assert (status[:3], checks) == ("200", {"database": "ok", "broker": "ok"})
    assert connection.connection.get_backend_pid() != kept
