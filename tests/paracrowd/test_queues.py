"""Each kind of work has a Celery queue of its own, declared in the settings, under a prefix of
the site's (a run's, a checkout's) own, and every queue is served by bin/run and by
docker-compose.yml."""

import base64
import json
import re
from pathlib import Path

import pytest
import redis
from django.conf import settings

from paracrowd.celery import app, enqueue
from paracrowd.queues import celery_queue_settings, queue_name, queue_names
from tests.conftest import TASK_QUEUE

ROOT = Path(__file__).resolve().parents[2]


def our_tasks() -> list[str]:
    app.loader.import_default_modules()  # every app's tasks module, as a worker loads them
    return sorted(name for name in app.tasks if not name.startswith("celery."))


def routed_queue(task_name: str) -> str:
    return app.amqp.router.route({}, task_name)["queue"].name


def test_every_task_goes_to_a_queue_the_settings_declare():
    declared = set(settings.CELERY_TASK_QUEUES)
    assert len(declared) == len(settings.CELERY_QUEUE_KINDS) >= 4
    tasks = our_tasks()
    assert len(tasks) >= 25
    assert {name: routed_queue(name) for name in tasks if routed_queue(name) not in declared} == {}


def test_each_kind_of_work_has_its_own_queue():
    def kind(task_name):
        return routed_queue(task_name).removeprefix(f"{TASK_QUEUE}.")

    assert kind("crowd.tasks.send_platform_actions") == "platform"
    assert kind("crowd.tasks.sync_campaigns") == "platform"
    assert kind("crowd.tasks.publish_campaign") == "platform"
    assert kind("scoring.tasks.score_segments") == "scoring"
    assert kind("review.tasks.check_gold_answer") == "scoring"
    assert kind("research.tasks.run_release") == "long"
    assert kind("research.tasks.run_export_job") == "long"
    assert kind("annotations.tasks.refresh_agreement") == "long"
    assert kind("crowd.tasks.expire_assignments") == "default"
    assert kind("scoring.tasks.sweep_unscored") == "default"


def test_every_task_a_route_names_exactly_is_a_registered_task():
    tasks = our_tasks()
    exact = [pattern for pattern in settings.CELERY_QUEUE_ROUTES if not set("*?[") & set(pattern)]
    assert exact and [name for name in exact if name not in tasks] == []


def test_two_prefixes_give_two_sites_no_queue_in_common():
    def names(prefix):
        built = celery_queue_settings(
            prefix=prefix,
            kinds=settings.CELERY_QUEUE_KINDS,
            routes=settings.CELERY_QUEUE_ROUTES,
        )
        routed = {route["queue"] for route in built["task_routes"].values()}
        assert routed | {built["task_default_queue"]} <= set(built["task_queues"])
        return set(built["task_queues"])

    first, second = names("checkout-one"), names("checkout-two")
    assert len(first) == len(second) == len(settings.CELERY_QUEUE_KINDS)
    assert not first & second


def test_a_route_to_a_kind_with_no_queue_is_refused_by_name():
    with pytest.raises(ValueError, match="kinds with no queue: urgent"):
        celery_queue_settings(prefix="site", kinds=("default",), routes={"x.tasks.y": "urgent"})


def test_a_kind_the_settings_do_not_declare_gets_a_clear_message():
    assert queue_names(["platform", "long"]) == (f"{TASK_QUEUE}.platform,{TASK_QUEUE}.long")
    assert queue_names([]).split(",") == list(settings.CELERY_TASK_QUEUES)
    with pytest.raises(ValueError, match="No Celery queue of kind urgent; the kinds are default"):
        queue_names(["urgent"])


@pytest.mark.django_db
def test_a_task_sent_in_the_tests_lands_on_this_runs_queue_of_its_kind(
    django_capture_on_commit_callbacks,
):
    broker = redis.Redis.from_url(settings.CELERY_BROKER_URL)
    marker = ["test-queues-marker"]

    def holding(queue):
        return [raw for raw in broker.lrange(queue, 0, -1) if json.dumps(marker) in body(raw)]

    try:
        with django_capture_on_commit_callbacks(execute=True):
            enqueue("research.tasks.run_release", marker)
        assert len(holding(queue_name(TASK_QUEUE, "long"))) == 1
        assert not any(
            holding(queue)
            for queue in settings.CELERY_TASK_QUEUES
            if queue != queue_name(TASK_QUEUE, "long")
        )
        assert not holding("celery")
    finally:
        for raw in holding(queue_name(TASK_QUEUE, "long")):
            broker.lrem(queue_name(TASK_QUEUE, "long"), 1, raw)
        broker.close()


def body(raw: bytes) -> str:
    """A Celery message's arguments, as JSON text."""
    return base64.b64decode(json.loads(raw)["body"]).decode()


def served_kinds(text: str) -> list[set[str]]:
    """The kinds of each `python -m paracrowd.queues KIND…` in a start-up file."""
    return [set(match.split()) for match in re.findall(r"paracrowd\.queues((?: [a-z]+)+)", text)]


@pytest.mark.parametrize("path", ["bin/run", "docker-compose.yml"])
def test_every_queue_is_served_by_a_worker_and_the_platform_queue_by_its_own(path):
    text = (ROOT / path).read_text()
    groups = served_kinds(text)
    assert set().union(*groups) == set(settings.CELERY_QUEUE_KINDS)
    # Platform calls never wait behind long jobs: one worker for each, with nothing else.
    assert {"platform"} in groups and {"long"} in groups
    assert sum(len(group) for group in groups) == len(settings.CELERY_QUEUE_KINDS)
    assert text.count("--beat") + text.count("celery -A paracrowd beat") == 1


def test_score_corpus_finds_a_worker_that_serves_only_the_scoring_queue():
    from celery.contrib.testing.worker import start_worker

    from scoring.management.commands.score_corpus import Command

    hostname = f"{TASK_QUEUE}-scoring@localhost"
    with start_worker(
        app,
        pool="solo",
        perform_ping_check=False,
        queues=[queue_name(TASK_QUEUE, "scoring")],
        hostname=hostname,
    ):
        # A worker just started may miss the first one-second broadcast on a busy machine:
        # ask again (a few times at most) rather than fail by chance.
        found = []
        for _ in range(10):
            found = Command()._workers()
            if found:
                break
        assert found == [hostname]
