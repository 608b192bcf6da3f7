"""The dashboard and next task never lose a task the worker opened: every open task of every
kind is listed with its time left, and next task gives the held one back."""

from datetime import UTC, datetime, timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from collector import services
from crowd import services as crowd
from crowd.models import Assignment, HitType, Tier
from crowd.templatetags.deadlines import deadline_text
from tests.factories import make_paraphrase_source, make_segment, make_worker
from tests.pages import task_shown

pytestmark = pytest.mark.django_db


def next_task(client, tier, kind="description"):
    return client.post(reverse("crowd:task_next"), {"tier": str(tier), "kind": kind})


def test_the_dashboard_lists_every_open_task_of_every_kind_with_its_time_left(client):
    make_segment()
    make_paraphrase_source()
    worker = make_worker()
    describing = crowd.assignment_claim(worker=worker, tier=Tier.ONE)
    paraphrasing = crowd.assignment_claim(
        worker=worker, tier=Tier.ONE, kind=HitType.Kind.PARAPHRASE
    )
    client.force_login(worker.user)

    page = client.get(reverse("collector:dashboard")).content.decode()

    assert "Continue where you left off" in page
    assert f'href="{reverse("collector:describe", args=[describing.pk])}"' in page
    assert f'href="{reverse("collector:paraphrase", args=[paraphrasing.pk])}"' in page
    assert page.count(" min left (due ") == 2
    assert 'id="nothing-to-describe"' not in page


def test_next_task_gives_back_the_task_held_in_the_other_tier(client):
    # Before: the Tier-1 segment was described and the Tier-2 task held, so the dashboard's
    # Tier-1 button answered that no segments were left although a task was waiting. (A
    # segment is described once per worker whatever the tier: the held task is another's.)
    make_segment()
    segment = make_segment()
    worker = make_worker(tier=Tier.TWO)
    done = crowd.assignment_claim(worker=worker, tier=Tier.ONE)
    services.description_submit(
        assignment_id=done.pk, worker=worker, text="A cat naps.", language="en"
    )
    held = crowd.assignment_claim(worker=worker, tier=Tier.TWO)
    assert held.hit.item.segment == segment
    client.force_login(worker.user)

    response = next_task(client, Tier.ONE)

    assert task_shown(response) == reverse("collector:describe", args=[held.pk])


def test_next_task_offers_an_expired_task_again_as_the_same_assignment(client):
    make_segment()
    worker = make_worker()
    first = crowd.assignment_claim(worker=worker, tier=Tier.ONE)
    Assignment.objects.filter(pk=first.pk).update(expires_at=timezone.now() - timedelta(hours=1))
    crowd.assignments_expire()
    client.force_login(worker.user)

    dashboard = client.get(reverse("collector:dashboard")).content.decode()
    assert "Describe a video · Tier 1" in dashboard and "Continue where" not in dashboard
    response = next_task(client, Tier.ONE)

    assert task_shown(response) == reverse("collector:describe", args=[first.pk])
    first.refresh_from_db()
    assert first.status == Assignment.Status.ASSIGNED and first.expires_at > timezone.now()


@pytest.mark.parametrize("stop", [False, True], ids=["submit and next", "back to my work"])
def test_a_paraphrase_submitted_goes_on_to_the_next_sentence_or_back(client, stop):
    make_paraphrase_source("A man is slicing a tomato.")
    make_paraphrase_source("A dog runs on the beach.")
    worker = make_worker()
    client.force_login(worker.user)
    page = task_shown(next_task(client, Tier.ONE, kind="paraphrase"))

    form = {"text": "Someone cuts a tomato into slices.", "language": "en"}
    if stop:
        form["then"] = "dashboard"
    response = client.post(page, form)

    if stop:
        assert response["Location"] == reverse("collector:dashboard")
    else:
        following = task_shown(response)
        assert following.startswith("/paraphrase/") and following != page


def test_every_deadline_reads_the_same_way():
    due = datetime(2026, 11, 26, 14, 56, tzinfo=UTC)
    assert deadline_text(due, now=due - timedelta(minutes=12, seconds=30)) == (
        "12 min left (due 14:56 UTC)"
    )
    assert deadline_text(due, now=due - timedelta(seconds=20)) == (
        "under a minute left (due 14:56 UTC)"
    )
    assert deadline_text(due, "you may still submit", now=due + timedelta(seconds=1)) == (
        "time is up (was due 14:56 UTC): you may still submit"
    )
