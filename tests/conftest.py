import time
from contextlib import contextmanager

import pytest


@pytest.fixture(autouse=True)
def fast_password_hashing(settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture
def media_root(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"
    return settings.MEDIA_ROOT


@contextmanager
def running_worker():
    """A real Celery worker, in a thread of this process, consuming from Redis."""
    from celery.contrib.testing.worker import start_worker

    from paracrowd.celery import app

    app.control.purge()
    with start_worker(app, pool="solo", perform_ping_check=False, shutdown_timeout=30) as worker:
        yield worker


@contextmanager
def broker_unreachable():
    """Redis out of reach: the Celery app is pointed at a port where nothing listens."""
    from paracrowd.celery import app

    reachable = app.conf.broker_url
    app.close()  # drop pooled connections to the real broker
    app.conf.broker_url = "redis://127.0.0.1:1/0"
    try:
        yield
    finally:
        app.close()
        app.conf.broker_url = reachable


@pytest.fixture
def live_worker(transactional_db):
    with running_worker() as worker:
        yield worker


def wait_for(condition, *, seconds=30.0):
    """Poll until ``condition()`` is true; fail after ``seconds`` (a deadline, not a timing)."""
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError("gave up waiting")
        time.sleep(0.05)
