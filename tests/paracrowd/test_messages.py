"""Every flow that ends in a message says it once."""

import re
from collections import Counter

import pytest
from django.urls import reverse

from crowd.models import Tier
from tests.factories import make_proposal, make_researcher, make_segment, make_staff, make_worker

pytestmark = pytest.mark.django_db


def said_twice(response) -> list[str]:
    shown = re.findall(r'<li class="message[^"]*">(.*?)</li>', response.content.decode())
    assert shown, "the flow ended without a message"
    return [text for text, n in Counter(shown).items() if n > 1]


def test_no_message_is_shown_twice(client):
    worker = make_worker(username="wendy")
    make_segment(), make_segment()
    client.force_login(worker.user)
    client.post(reverse("crowd:task_next"), {"tier": Tier.ONE})
    assignment = worker.assignments.get()
    describe = reverse("collector:describe", args=[assignment.pk])
    twice = said_twice(
        client.post(describe, {"text": "A man runs.", "language": "en"}, follow=True)
    )
    client.post(reverse("crowd:task_next"), {"tier": Tier.ONE})
    skipped = worker.assignments.order_by("-pk").first()
    twice += said_twice(client.post(reverse("crowd:skip", args=[skipped.pk]), follow=True))

    staff = make_staff()
    client.force_login(staff)
    description = worker.descriptions.get()
    proposal = make_proposal()
    for url, data in [
        (reverse("review:standing", args=[worker.pk]), {"action": "promote", "reason": "Good."}),
        (
            reverse("review:bonus", args=[worker.pk]),
            {"amount": "0.25", "reason": "Thanks.", "token": "t"},
        ),
        (reverse("review:descriptions"), {"decision": "accepted", "description": [description.pk]}),
        (
            reverse("segment_review:proposal", args=[proposal.pk]),
            {"decision": "approve", "note": ""},
        ),
    ]:
        twice += said_twice(client.post(url, data, follow=True))

    client.force_login(make_researcher())
    for url, data in [
        (
            reverse("research:export_start"),
            {"format": "msvd-csv", "pairs_per_sentence": "all", "seed": 1, "test_fraction": 0.1},
        ),
        (reverse("research:token_reset"), {}),
    ]:
        twice += said_twice(client.post(url, data, follow=True))
    assert not twice
