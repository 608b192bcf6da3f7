"""The video-collection task through its pages: proposing a segment, and what bad input gets."""

import pytest
from django.urls import reverse

from collector import services
from collector.models import SegmentProposal
from crowd import services as crowd
from crowd.models import Assignment, HitType, Tier
from tests.factories import make_proposal, make_segment, make_staff, make_worker
from tests.pages import task_shown

pytestmark = pytest.mark.django_db

VIDEO = "dQw4w9WgXcQ"


@pytest.fixture
def alice(client):
    worker = make_worker(username="alice")
    client.force_login(worker.user)
    return worker


@pytest.fixture
def task(alice):
    return crowd.assignment_claim(worker=alice, tier=Tier.ONE, kind=HitType.Kind.VIDEO_COLLECTION)


def propose(client, assignment, **fields):
    data = {
        "url": f"https://www.youtube.com/watch?v={VIDEO}",
        "start": "0:12",
        "end": "0:18.5",
        "event": "A dog catches a frisbee",
        **fields,
    }
    return client.post(reverse("collector:propose", args=[assignment.pk]), data)


def test_the_dashboard_offers_video_collection_and_opens_the_task(client, alice):
    page = client.get(reverse("collector:dashboard")).content.decode()
    assert "Propose a video segment · Tier 1 · $0.05 each approved" in page
    response = client.post(reverse("crowd:task_next"), {"tier": "1", "kind": "video_collection"})
    assignment = Assignment.objects.get(worker=alice)
    assert task_shown(response) == reverse("collector:propose", args=[assignment.pk])
    page = response.content.decode()
    assert page.count("<h1") == 1 and 'id="segment-rules"' in page
    assert "Mark start" in page and "Mark end" in page and "Preview segment" in page


def test_it_stores_a_proposal_and_counts_it_on_the_dashboard(client, alice, task):
    # Submit and next: a new video-collection task opens.
    assert task_shown(propose(client, task)).startswith("/propose/")
    proposal = SegmentProposal.objects.get()
    assert (proposal.youtube_id, proposal.start, proposal.end) == (VIDEO, 12, 18.5)
    assert (proposal.worker, proposal.tier, proposal.status) == (alice, 1, "pending")
    dashboard = client.get(reverse("collector:dashboard")).content.decode()
    assert '<dd id="count-proposed">1</dd>' in dashboard
    assert '<dd id="count-proposals-pending">1</dd>' in dashboard


@pytest.mark.parametrize(
    "url",
    [
        f"https://youtu.be/{VIDEO}?t=12",
        f"https://www.youtube.com/embed/{VIDEO}",
        f"https://www.youtube.com/shorts/{VIDEO}",
        f"youtube.com/watch?v={VIDEO}&t=1m",
    ],
)
def test_any_common_form_of_link_is_accepted(client, task, url):
    assert task_shown(propose(client, task, url=url))
    assert SegmentProposal.objects.get().youtube_id == VIDEO


@pytest.mark.parametrize(
    "fields, message",
    [
        ({"url": ""}, "Paste the address of a YouTube video."),
        ({"url": "https://vimeo.com/76979871"}, "This is not a YouTube link."),
        ({"url": "https://www.youtube.com/watch?v=dQw4w9"}, "is not a YouTube video id"),
        ({"url": "https://www.youtube.com/@cats"}, "does not point at one video"),
        ({"start": ""}, "Mark or type where the segment starts."),
        ({"start": "twelve"}, "Type the time in seconds (75) or in minutes and seconds (1:15)."),
        ({"start": "0:75"}, "minutes and seconds go up to 59"),
        ({"end": "0:11"}, "The end must come after the start."),
        ({"end": "0:13"}, "This segment is 1 second long; it must be at least 2 seconds."),
        ({"end": "1:00"}, "This segment is 48 seconds long; it can be at most 20 seconds."),
        ({"event": ""}, "Say in a few words what happens in the segment."),
        ({"event": "x" * 201}, "at most 200 characters"),
    ],
)
def test_bad_input_gets_a_clear_message_and_stores_nothing(client, task, fields, message):
    response = propose(client, task, **fields)
    assert response.status_code == 200
    assert message in response.content.decode()
    assert not SegmentProposal.objects.exists()
    task.refresh_from_db()
    assert task.status == Assignment.Status.ASSIGNED


def test_a_segment_already_in_the_corpus_is_refused_on_the_page(client, task):
    make_segment(youtube_id=VIDEO, start=12, end="18.5")
    page = propose(client, task).content.decode()
    assert "This segment (0:12–0:18.5) is already in the corpus." in page
    assert not SegmentProposal.objects.exists()


def test_a_duplicate_or_overlapping_proposal_is_refused_on_the_page(client, task):
    make_proposal(youtube_id=VIDEO, start=10, end=18)
    page = propose(client, task, start="10", end="18").content.decode()
    assert "This segment (0:10–0:18) was already proposed." in page
    page = propose(client, task, start="13", end="19").content.decode()
    assert "overlaps 0:10–0:18 of the same video, already proposed, by 5 seconds" in page
    assert SegmentProposal.objects.count() == 1
    # Exactly half of the shorter segment may be shared.
    assert task_shown(propose(client, task, start="14", end="22"))


def test_the_same_task_submitted_twice_is_stored_once(client, task):
    propose(client, task)
    assert task_shown(propose(client, task))
    assert SegmentProposal.objects.count() == 1


def test_a_submitted_task_reopens_read_only_with_what_was_sent(client, task):
    propose(client, task)
    page = client.get(reverse("collector:propose", args=[task.pk])).content.decode()
    assert "already submitted this segment" in page
    assert "<fieldset disabled>" in page and 'value="0:18.5"' in page


def test_charlie_cannot_open_or_submit_alices_task(client, task):
    charlie = make_worker(username="charlie")
    client.force_login(charlie.user)
    assert client.get(reverse("collector:propose", args=[task.pk])).status_code == 404
    assert propose(client, task).status_code == 404
    assert not SegmentProposal.objects.exists()


def test_a_description_task_is_not_opened_as_a_proposal(client, alice):
    make_segment()
    description = crowd.assignment_claim(worker=alice, tier=Tier.ONE)
    assert client.get(reverse("collector:propose", args=[description.pk])).status_code == 404


def test_the_video_link_check_answers_json(client, alice):
    url = reverse("collector:video_link")
    answer = client.get(url, {"url": f"https://youtu.be/{VIDEO}?t=1m5s"}).json()
    assert answer == {
        "videoId": VIDEO,
        "start": 65.0,
        "url": f"https://www.youtube.com/watch?v={VIDEO}",
    }
    response = client.get(url, {"url": "https://vimeo.com/1"})
    assert response.status_code == 400 and "not a YouTube link" in response.json()["error"]


def test_the_video_link_check_needs_no_login_so_platform_workers_can_use_it(client):
    # It only parses the link: platform workers, who have no login, mark segments with it too.
    response = client.get(reverse("collector:video_link"), {"url": VIDEO})
    assert response.status_code == 200 and response.json()["videoId"] == VIDEO


def test_the_dashboard_counts_approved_and_rejected_segments_and_their_pay(client, alice):
    admin = make_staff()
    approved = make_proposal(worker=alice, start=0, end=6)
    rejected = make_proposal(worker=alice, start=0, end=6, event="<b>Cats</b> & dogs")
    make_proposal(worker=alice, start=0, end=6)
    services.proposal_approve(proposal_id=approved.pk, reviewer=admin)
    services.proposal_reject(
        proposal_id=rejected.pk, reviewer=admin, reasons=["text"], note="Captions <i>burned</i>"
    )
    page = client.get(reverse("collector:dashboard")).content.decode()
    assert '<dd id="count-proposed">3</dd>' in page
    assert '<dd id="count-approved">1</dd>' in page
    assert '<dd id="count-proposals-pending">1</dd>' in page
    assert '<dd id="count-proposals-rejected">1</dd>' in page
    # Earned: the approved segment's $0.05; pending: the other proposal's $0.05.
    assert '<td id="earned-tier1">$0.05</td><td id="pending-tier1">$0.05</td>' in page
    assert "Subtitles or other text on screen; Captions &lt;i&gt;burned&lt;/i&gt;" in page
    assert "&lt;b&gt;Cats&lt;/b&gt; &amp; dogs" in page and "<b>Cats" not in page


def test_a_tier_two_dashboard_lists_every_task_tier_two_first(client):
    make_segment()
    worker = make_worker(tier=Tier.TWO)
    client.force_login(worker.user)
    page = client.get(reverse("collector:dashboard")).content.decode()
    for task in ("Describe a video", "Propose a video segment"):
        assert page.index(f"{task} · Tier 2") < page.index(f"{task} · Tier 1"), task
