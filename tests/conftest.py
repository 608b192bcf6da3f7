import copy
import itertools
import os
import time
from contextlib import contextmanager

import pytest

# Each run has its own test database and its own Celery queue, so two `make test` runs on one
# machine (two checkouts, or a run beside `make run`) neither drop each other's database nor
# take each other's tasks from the shared Redis.
RUN = f"{os.getpid()}"
TASK_QUEUE = f"tests-{RUN}"


def pytest_configure(config):
    from django.conf import settings

    from paracrowd.celery import app
    from paracrowd.queues import celery_queue_settings

    # Settings are read before this file, and the Celery app reads its own copy lazily; set
    # both so that every task sent in this run (with or without a worker) goes to our queues.
    settings.CELERY_QUEUE_PREFIX = TASK_QUEUE
    queues = celery_queue_settings(
        prefix=TASK_QUEUE, kinds=settings.CELERY_QUEUE_KINDS, routes=settings.CELERY_QUEUE_ROUTES
    )
    for name, value in queues.items():
        setattr(settings, f"CELERY_{name.upper()}", value)
        app.conf[name] = value
    # Rate-limit counters of this run only (the cache may be the Redis `make run` uses).
    settings.CACHES["default"]["KEY_PREFIX"] = TASK_QUEUE


@pytest.fixture(scope="session", autouse=True)
def every_task_registered():
    """Every app's tasks registered before any test runs. An in-process worker closes the
    Celery app when it stops, and a tasks module first imported after that registers nothing
    on it: which tasks exist must not depend on which tests ran first."""
    from paracrowd.celery import app

    app.loader.import_default_modules()


@pytest.fixture(scope="session")
def django_db_modify_db_settings(request, django_db_modify_db_settings_parallel_suffix):
    from django.conf import settings

    # --reuse-db keeps a database between runs on purpose; a name per run would leak one each time.
    if request.config.getvalue("reuse_db"):
        return
    for database in settings.DATABASES.values():
        test = database.setdefault("TEST", {})
        test["NAME"] = f"{test.get('NAME') or 'test_' + database['NAME']}_{RUN}"


@pytest.fixture(autouse=True)
def fast_password_hashing(settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


# Every crowd-platform setting at the default paracrowd/settings.py gives it. `make test` exports
# the operator's .env, and a PROLIFIC_API_TOKEN or MTURK_ENABLED there switches connectors on
# (the task pages then refuse work no campaign published): each test starts from these instead,
# and sets what it needs itself. tests/paracrowd/test_platform_settings.py keeps the list whole.
PLATFORM_SETTING_PREFIXES = ("MTURK_", "PROLIFIC_", "PLATFORM_", "STUDY_LINK_")
PLATFORM_SETTINGS = {
    "MTURK_ENABLED": False,
    "MTURK_SANDBOX": True,
    "PROLIFIC_API_TOKEN": "",
    "PROLIFIC_API_URL": "https://api.prolific.com",
    "PROLIFIC_WORKSPACE_ID": "",
    "PROLIFIC_PROJECT_ID": "",
    "PROLIFIC_COMPLETION_URL": "https://app.prolific.com/submissions/complete",
    "PROLIFIC_FEE_PERCENT": 34,
    "PROLIFIC_MIN_HOURLY_CENTS": 800,
    "PROLIFIC_CURRENCY": "USD",
    "PROLIFIC_HOOKS_SECRET": "",
    "PLATFORM_PUBLIC_URL": "http://localhost:8000",
    "PLATFORM_FRAME_ANCESTORS": [],
    "PLATFORM_ARRIVALS_PER_HOUR": 60,
    "PLATFORM_FEE_PERCENT": 20,
    "PLATFORM_FEE_MINIMUM_CENTS": 1,
    "PLATFORM_DEMO": False,
    "PLATFORM_DEMO_SESSION_TASKS": 5,
    "PLATFORM_DEMO_COMPLETION_CODE": "DEMO-COMPLETE",
    "PLATFORM_TASKS_PER_PARTICIPANT": 120,
    "PLATFORM_PAY_MEASURED_MINIMUM": 50,
    "STUDY_LINK_PARTICIPANT_PARAM": "participant",
    "STUDY_LINK_SESSION_PARAM": "session",
    "STUDY_LINK_STUDY_PARAM": "study",
    "STUDY_LINK_COMPLETION_URL": "",
    "STUDY_LINK_SECRET": "",
    "STUDY_LINK_FEE_PERCENT": 0,
    "STUDY_LINK_MIN_HOURLY_CENTS": 800,
    "STUDY_LINK_CURRENCY": "USD",
}


@pytest.fixture(autouse=True)
def platform_settings(settings):
    """The crowd-platform settings at their defaults, whatever the environment holds."""
    for name, value in PLATFORM_SETTINGS.items():
        setattr(settings, name, copy.deepcopy(value))


@pytest.fixture
def platform_demo(settings):
    """Demo mode: platform arrivals are taken without a connector to check them."""
    settings.PLATFORM_DEMO = True
    return settings


@pytest.fixture
def mturk_framing(settings):
    """Mechanical Turk's origins allowed to frame the platform pages, as an operator set them
    while Mechanical Turk was open (PLATFORM_FRAME_ANCESTORS is empty by default)."""
    settings.PLATFORM_FRAME_ANCESTORS = [
        "https://www.mturk.com",
        "https://workersandbox.mturk.com",
        "https://worker.mturk.com",
    ]
    return settings


@pytest.fixture
def address():
    """A network address no other test in this run uses, so rate limits start from zero."""
    return next(_addresses)


_addresses = (f"10.{n // 65536 % 256}.{n // 256 % 256}.{n % 256}" for n in itertools.count(1))


@pytest.fixture
def media_root(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"
    return settings.MEDIA_ROOT


@contextmanager
def running_worker():
    """A real Celery worker, in a thread of this process, consuming this run's queues in Redis."""
    from celery.contrib.testing.worker import start_worker

    from paracrowd.celery import app

    queues = list(app.conf.task_queues)
    assert queues and all(queue.startswith(f"{TASK_QUEUE}.") for queue in queues)
    assert app.amqp.queues.consume_from.keys() == set(queues)
    app.control.purge()  # only this run's queues: the ones the app consumes from
    # Every app's tasks, as a worker started from the command line registers them: a test
    # module that queues work by name has not necessarily imported the module defining it.
    app.loader.import_default_modules()
    with start_worker(
        app,
        pool="solo",
        perform_ping_check=False,
        shutdown_timeout=30,
        queues=queues,
        hostname=f"{TASK_QUEUE}@localhost",
    ) as worker:
        yield worker


# The site's cache pointed at a port where nothing listens: Redis down, for the rate limits.
UNREACHABLE_CACHE = {
    "default": {
        "BACKEND": "paracrowd.cache.RedisCache",
        "LOCATION": "redis://127.0.0.1:1/0",
        "OPTIONS": {"socket_connect_timeout": 0.5, "socket_timeout": 0.5},
    }
}


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


@pytest.fixture
def claim_holder():
    """Another connection to the test database, standing for a live Celery worker: call it
    with a model and a primary key to hold that row's claim (paracrowd.claims) as the worker
    computing it would. The connection is yielded too, to end it as a dying worker would."""
    import psycopg2
    from django.db import connection

    from paracrowd.claims import lock_key

    database = connection.settings_dict
    other = psycopg2.connect(
        dbname=database["NAME"],
        user=database["USER"],
        password=database["PASSWORD"],
        host=database["HOST"],
        port=database["PORT"],
    )
    other.autocommit = True

    def hold(model, pk):
        with other.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_lock(%s, %s)", lock_key(model, pk))
        return other

    yield hold
    other.close()


def wait_for(condition, *, seconds=30.0):
    """Poll until ``condition()`` is true; fail after ``seconds`` (a deadline, not a timing)."""
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError("gave up waiting")
        time.sleep(0.05)


@pytest.fixture
def s3_server(monkeypatch):
    """A real S3 endpoint over HTTP (moto's server mode on 127.0.0.1), with a bucket.

    Yields ``(endpoint_url, client, bucket)``; export_corpus's s3:// URLs go to it."""
    import boto3
    from moto.server import ThreadedMotoServer

    for name, value in {
        "AWS_ACCESS_KEY_ID": "testing",
        "AWS_SECRET_ACCESS_KEY": "testing",
        "AWS_DEFAULT_REGION": "us-east-1",
        "AWS_CONFIG_FILE": "/dev/null",
        "AWS_SHARED_CREDENTIALS_FILE": "/dev/null",
    }.items():
        monkeypatch.setenv(name, value)
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    endpoint = f"http://{host}:{port}"
    client = boto3.client("s3", endpoint_url=endpoint)
    client.create_bucket(Bucket="paracrowd-exports")
    try:
        yield endpoint, client, "paracrowd-exports"
    finally:
        server.stop()
