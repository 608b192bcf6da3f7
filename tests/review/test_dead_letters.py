"""Tasks that keep failing are listed for staff, can be run again, and leave the list once
they succeed; and Celery hands a dead worker's task on within minutes, not an hour."""

import pytest
from django.urls import reverse

from paracrowd.celery import app
from review.dead_letters import failed_task_record
from review.models import FailedTask
from scoring.models import ClusterScore
from tests.conftest import running_worker, wait_for
from tests.factories import make_description, make_segment, make_staff


def test_a_task_that_fails_for_good_is_recorded_with_its_error_and_counted(transactional_db):
    with running_worker():
        app.send_task("scoring.tasks.score_segments", args=[["not an id"]])
        wait_for(lambda: FailedTask.objects.exists())
        app.send_task("scoring.tasks.score_segments", args=[["not an id"]])
        wait_for(lambda: FailedTask.objects.get().failures == 2)
    failed = FailedTask.objects.get()
    assert failed.task == "scoring.tasks.score_segments"
    assert failed.arguments == [["not an id"]]
    assert "ValueError" in failed.error


def test_staff_see_the_failed_tasks_and_run_them_again_until_they_succeed(client, transactional_db):
    segment = make_segment()
    make_description(segment, "A man runs.")
    make_description(segment, "Someone is running.")
    failed_task_record(
        task="scoring.tasks.score_segments", arguments=[[segment.pk]], error="OperationalError"
    )
    admin = make_staff()
    admin.is_superuser = True
    admin.save()
    client.force_login(admin)
    listing = client.get(reverse("admin:review_failedtask_changelist")).content.decode()
    assert "scoring.tasks.score_segments" in listing and "OperationalError" in listing

    with running_worker():
        client.post(
            reverse("admin:review_failedtask_changelist"),
            {"action": "run_again", "_selected_action": [FailedTask.objects.get().pk]},
        )
        wait_for(lambda: not FailedTask.objects.exists())
    assert ClusterScore.objects.get(segment=segment).size == 2


def test_a_task_left_by_a_dead_worker_is_handed_on_within_minutes_and_retries_wait_less():
    timeout = app.conf.broker_transport_options["visibility_timeout"]
    assert 60 <= timeout <= 600
    for name, task in app.tasks.items():
        if name.startswith(
            ("crowd.", "collector.", "annotations.", "scoring.", "review.", "research.")
        ):
            assert task.acks_late and task.retry_backoff_max < timeout, name


@pytest.mark.django_db
def test_workers_cannot_see_the_failed_tasks(client):
    from tests.factories import make_worker

    client.force_login(make_worker().user)
    response = client.get(reverse("admin:review_failedtask_changelist"))
    assert response.status_code == 302  # to the admin's login
