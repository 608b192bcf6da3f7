"""Signals and reviews through a real Celery worker over Redis."""

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from collector import services
from collector.models import Description
from collector.tasks import auto_accept_descriptions
from crowd import services as crowd
from crowd.models import LedgerEntry, Tier
from review.models import WorkerSignals
from review.tasks import sweep_stale_signals
from scoring.models import ClusterScore, DescriptionScore
from tests.conftest import broker_unreachable, running_worker, wait_for
from tests.factories import make_segment, make_submitted_description, make_worker


def test_a_submission_through_the_site_updates_the_workers_signals(client, live_worker):
    make_segment()
    worker = make_worker()
    client.force_login(worker.user)
    client.post(reverse("crowd:task_next"), {"tier": "1"})
    assignment = worker.assignments.get()
    client.post(
        reverse("collector:describe", args=[assignment.pk]),
        {"text": "A man is plaing a gitar.", "language": "en"},
    )
    wait_for(lambda: WorkerSignals.objects.filter(worker=worker, descriptions=1).exists())
    signals = WorkerSignals.objects.get(worker=worker)
    assert signals.spelling_error_rate == pytest.approx(2 / 6)
    assert "spelling" in signals.flags


def test_a_rejection_leaves_the_cluster_and_raises_the_rejection_rate(live_worker, admin_user):
    segment = make_segment()
    writers = [make_worker() for _ in range(3)]
    for worker, text in zip(writers, ["A man cooks.", "A man is cooking.", "Cats."], strict=True):
        assignment = crowd.assignment_claim(worker=worker, tier=Tier.ONE)
        services.description_submit(
            assignment_id=assignment.pk, worker=worker, text=text, language="en"
        )
    wait_for(lambda: ClusterScore.objects.filter(segment=segment, pending=3).exists())
    # The cluster's scores count accepted work; what awaits review is counted apart.
    services.descriptions_review(
        description_ids=list(
            segment.descriptions.exclude(text="Cats.").values_list("pk", flat=True)
        ),
        status="accepted",
        reviewed_by=admin_user,
        reason="",
    )
    wait_for(lambda: ClusterScore.objects.filter(segment=segment, size=2, pending=1).exists())
    off_topic = Description.objects.get(text="Cats.")
    services.descriptions_review(
        description_ids=[off_topic.pk], status="rejected", reviewed_by=admin_user, reason="No."
    )
    wait_for(lambda: ClusterScore.objects.filter(segment=segment, size=2, pending=0).exists())
    assert not DescriptionScore.objects.filter(description=off_topic).exists()
    wait_for(
        lambda: WorkerSignals.objects.filter(worker=off_topic.worker, rejection_rate=1.0).exists()
    )


def test_signals_left_stale_while_redis_was_down_are_refreshed_by_the_sweep(transactional_db):
    worker = make_worker()
    with broker_unreachable():
        make_submitted_description(worker, "A man is playing a guitar.")
    assert not WorkerSignals.objects.exists()
    with running_worker():
        sweep_stale_signals.delay()
        wait_for(lambda: WorkerSignals.objects.filter(worker=worker).exists())


def test_the_periodic_acceptance_runs_in_celery_and_pays(live_worker):
    worker = make_worker()
    description = make_submitted_description(worker, "A man is playing a guitar.")
    Description.objects.filter(pk=description.pk).update(
        created_at=timezone.now() - timedelta(days=30)
    )
    auto_accept_descriptions.delay()
    wait_for(lambda: LedgerEntry.objects.filter(worker=worker).exists())
    description.refresh_from_db()
    assert description.status == "accepted" and description.reviewed_by is None
