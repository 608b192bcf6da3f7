"""Staff pages: the review queue of proposed segments, and cutting segments from uploaded videos."""

from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import reverse

from collector.models import Segment, SegmentProposal, VideoFile
from tests.factories import make_proposal, make_segment, make_staff, make_worker

pytestmark = pytest.mark.django_db

CLIP = Path(__file__).resolve().parents[2] / "demo" / "clip.webm"


@pytest.fixture
def admin(client):
    staff = make_staff(username="ada")
    client.force_login(staff)
    return staff


@pytest.fixture
def proposal():
    return make_proposal(youtube_id="dQw4w9WgXcQ", start=12, end=18, event="A dog <jumps>")


def decide(client, proposal, decision, **fields):
    data = {"decision": decision, **fields}
    return client.post(reverse("segment_review:proposal", args=[proposal.pk]), data)


def test_the_queue_lists_pending_proposals_oldest_first(client, admin):
    first = make_proposal(event="First one")
    second = make_proposal(event="Second one")
    page = client.get(reverse("segment_review:queue")).content.decode()
    assert page.index("First one") < page.index("Second one")
    assert "Pending review (2)" in page and "Rejected (0)" in page
    assert reverse("segment_review:proposal", args=[first.pk]) in page
    assert reverse("segment_review:proposal", args=[second.pk]) in page


def test_approving_creates_the_segment_and_goes_to_the_next_proposal(client, admin, proposal):
    following = make_proposal()
    response = decide(client, proposal, "approve")
    assert response["Location"] == reverse("segment_review:proposal", args=[following.pk])
    proposal.refresh_from_db()
    assert (proposal.status, proposal.reviewed_by, proposal.pay_cents) == ("accepted", admin, 5)
    segment = proposal.segment
    assert (segment.youtube_id, segment.start, segment.end) == ("dQw4w9WgXcQ", 12, 18)
    assert segment.hits.count() == 2


def test_the_last_decision_goes_back_to_the_queue(client, admin, proposal):
    response = decide(client, proposal, "reject", reasons=["text", "inappropriate"])
    assert response["Location"] == reverse("segment_review:queue")
    proposal.refresh_from_db()
    assert proposal.status == "rejected" and proposal.reasons == ["inappropriate", "text"]


def test_rejected_proposals_stay_listed_with_their_reasons(client, admin, proposal):
    decide(client, proposal, "reject", reasons=["language"], note="Needs <the> dialogue")
    page = client.get(reverse("segment_review:queue"), {"status": "rejected"}).content.decode()
    assert "Rejected (1)" in page and "by ada" in page
    assert "Needs a particular language or culture to understand" in page
    assert "Needs &lt;the&gt; dialogue" in page


def test_a_rejection_without_a_reason_is_refused(client, admin, proposal):
    page = decide(client, proposal, "reject", note="  ").content.decode()
    assert "Tick at least one reason or write one." in page
    assert SegmentProposal.objects.get().status == "pending"


def test_approving_with_reasons_ticked_is_refused(client, admin, proposal):
    page = decide(client, proposal, "approve", reasons=["text"]).content.decode()
    assert "You ticked reasons for rejecting." in page
    assert SegmentProposal.objects.get().status == "pending"


def test_a_decided_proposal_shows_the_decision_and_no_form(client, admin, proposal):
    decide(client, proposal, "approve", note="Lovely")
    page = client.get(reverse("segment_review:proposal", args=[proposal.pk])).content.decode()
    assert "Accepted by ada" in page and "Lovely" in page and "$0.05" in page
    assert 'value="approve"' not in page
    assert "A dog &lt;jumps&gt;" in page and "A dog <jumps>" not in page


def test_a_worker_cannot_see_the_queue_or_decide(client, proposal):
    client.force_login(make_worker().user)
    for url in [
        reverse("segment_review:queue"),
        reverse("segment_review:proposal", args=[proposal.pk]),
    ]:
        response = client.get(url)
        assert response.status_code == 403
    decide(client, proposal, "approve")
    assert SegmentProposal.objects.get().status == "pending"


def test_anonymous_visitors_cannot_review(client, proposal):
    assert decide(client, proposal, "approve").status_code == 302
    assert SegmentProposal.objects.get().status == "pending"


def test_a_decision_needs_the_csrf_token(admin, proposal):
    client = Client(enforce_csrf_checks=True)
    client.force_login(admin)
    assert decide(client, proposal, "approve").status_code == 403
    assert SegmentProposal.objects.get().status == "pending"


def test_a_decision_is_a_post(client, admin, proposal):
    client.get(reverse("segment_review:proposal", args=[proposal.pk]), {"decision": "approve"})
    assert SegmentProposal.objects.get().status == "pending"


@pytest.fixture
def uploaded(client, admin, media_root):
    with CLIP.open("rb") as clip:
        response = client.post(
            reverse("segment_review:videos"),
            {"title": "Demo <clip>", "file": SimpleUploadedFile("clip.webm", clip.read())},
        )
    video = VideoFile.objects.get()
    assert response["Location"] == reverse("segment_review:video", args=[video.pk])
    return video


def test_an_uploaded_video_is_kept_in_the_media_storage(uploaded, media_root):
    assert uploaded.file.name.startswith("videos/clip")
    assert (media_root / uploaded.file.name).read_bytes() == CLIP.read_bytes()


def test_only_video_files_are_accepted(client, admin, media_root):
    response = client.post(
        reverse("segment_review:videos"),
        {"title": "Notes", "file": SimpleUploadedFile("notes.txt", b"hello")},
    )
    assert "File extension “txt” is not allowed." in response.content.decode()
    assert not VideoFile.objects.exists()


def test_cutting_adds_a_segment_of_the_file_offered_for_description(client, uploaded):
    url = reverse("segment_review:video", args=[uploaded.pk])
    page = client.get(url).content.decode()
    assert "Mark start" in page and uploaded.file.url in page and page.count("<h1") == 1
    response = client.post(url, {"start": "0:02", "end": "8", "title": ""})
    assert response["Location"] == url
    segment = Segment.objects.get()
    assert (segment.source, segment.video_file.name) == ("file", uploaded.file.name)
    assert (segment.start, segment.end, segment.title) == (2, 8, "Demo <clip>")
    assert segment.hits.count() == 2
    page = client.get(url).content.decode()
    assert "0:02–0:08" in page and "Demo &lt;clip&gt;" in page


def test_cuts_of_one_file_follow_the_length_and_overlap_rules(client, uploaded):
    url = reverse("segment_review:video", args=[uploaded.pk])
    client.post(url, {"start": "2", "end": "8"})
    page = client.post(url, {"start": "3", "end": "9"}).content.decode()
    assert "overlaps 0:02–0:08 of the same video, in the corpus, by 5 seconds" in page
    page = client.post(url, {"start": "9", "end": "9.5"}).content.decode()
    assert "This segment is 0.5 seconds long; it must be at least 2 seconds." in page
    assert Segment.objects.count() == 1
    # The same times in another file, or of a YouTube video, are no conflict.
    make_segment(youtube_id="dQw4w9WgXcQ", start=3, end=9)
    other = VideoFile.objects.create(file=uploaded.file.name.replace("clip", "other"), title="x")
    assert client.post(
        reverse("segment_review:video", args=[other.pk]), {"start": "3", "end": "9"}
    )["Location"] == reverse("segment_review:video", args=[other.pk])


def test_worker_cannot_upload_or_cut(client, uploaded):
    client.force_login(make_worker().user)
    with CLIP.open("rb") as clip:
        client.post(
            reverse("segment_review:videos"),
            {"title": "Mine", "file": SimpleUploadedFile("clip.webm", clip.read())},
        )
    client.post(reverse("segment_review:video", args=[uploaded.pk]), {"start": "2", "end": "8"})
    assert VideoFile.objects.count() == 1 and not Segment.objects.exists()


def test_every_staff_page_has_exactly_one_h1(client, uploaded, proposal):
    for url in [
        reverse("segment_review:queue"),
        reverse("segment_review:queue") + "?status=accepted",
        reverse("segment_review:proposal", args=[proposal.pk]),
        reverse("segment_review:videos"),
        reverse("segment_review:video", args=[uploaded.pk]),
    ]:
        assert client.get(url).content.decode().count("<h1") == 1, url


def test_the_admin_lists_proposals_read_only_and_links_to_the_review(client, admin, proposal):
    admin.is_superuser = True
    admin.save()
    page = client.get(reverse("admin:collector_segmentproposal_changelist")).content.decode()
    assert reverse("segment_review:proposal", args=[proposal.pk]) in page
    assert "A dog &lt;jumps&gt;" in page
    change = reverse("admin:collector_segmentproposal_change", args=[proposal.pk])
    client.post(change, {"status": "approved"})
    assert SegmentProposal.objects.get().status == "pending"
    assert client.get(reverse("admin:collector_videofile_changelist")).status_code == 200
