"""The platform entrance: every kind of task, opened from Mechanical Turk and from Prolific."""

from datetime import timedelta

import pytest
from django.urls import reverse

from annotations import services as annotations
from annotations.models import Alignment, SentencePair
from collector.models import Description, SegmentProposal
from crowd import platforms
from crowd import services as crowd
from crowd.entrance import PREVIEW_ASSIGNMENT_ID
from crowd.models import Assignment, Campaign, CampaignHit, Hit, HitType, Tier, Worker
from crowd.platforms import entrance_url
from tests.factories import make_segment

# Without a connector, arrivals are taken only in demo mode (see test_sessions for the rest).
pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("platform_demo", "mturk_framing")]

SANDBOX = "https://workersandbox.mturk.com"
DESCRIPTION, COLLECTION, ALIGNMENT = (
    HitType.Kind.DESCRIPTION,
    HitType.Kind.VIDEO_COLLECTION,
    HitType.Kind.ALIGNMENT,
)
URLS = {
    DESCRIPTION: reverse("collector:platform_describe"),
    COLLECTION: reverse("collector:platform_collect"),
    ALIGNMENT: reverse("annotations:platform_align"),
}
WORK = {
    DESCRIPTION: {"text": "A man rides a horse.", "language": "en"},
    COLLECTION: {
        "url": "https://youtu.be/dQw4w9WgXcQ",
        "start": "3",
        "end": "9",
        "event": "A dog catches a ball",
    },
    ALIGNMENT: {"links": "0-0 3-3"},
}
STORED = {DESCRIPTION: Description, COLLECTION: SegmentProposal, ALIGNMENT: Alignment}


def offer(kind):
    """Something to work on for ``kind`` (a video-collection worker brings their own video)."""
    if kind == DESCRIPTION:
        make_segment()
        make_segment()
    elif kind == ALIGNMENT:
        annotations.pairs_store(
            [
                SentencePair(
                    origin=SentencePair.Origin.IMPORT,
                    import_key=f"test:{n}",
                    tokens_a=["A", "man", "plays", "guitar", "."],
                    tokens_b=["A", "guy", "strums", "guitar", "."],
                    pre_alignment="0-0 3-3",
                )
                for n in range(2)
            ],
            open_hits=True,
        )


def mturk(worker="A1WORKER", assignment="3ASSIGN", hit="3HIT", **extra):
    return {
        "workerId": worker,
        "assignmentId": assignment,
        "hitId": hit,
        "turkSubmitTo": SANDBOX,
        **extra,
    }


def prolific(worker="5f0c1a2b3c4d5e6f7a8b9c0d", session="sess01", study="study01", **extra):
    return {"PROLIFIC_PID": worker, "SESSION_ID": session, "STUDY_ID": study, **extra}


def token_from(response) -> str:
    page = response.content.decode()
    return page.split('name="token" value="', 1)[1].split('"', 1)[0]


def submit(client, kind, arrival_page, **extra):
    fields = {"token": token_from(arrival_page), **WORK[kind], **extra}
    return client.post(URLS[kind], fields)


@pytest.fixture
def connected():
    """A platform connector configured: arrivals must come through published campaigns."""
    platforms.install("mturk", object())
    platforms.install("prolific", object())
    yield
    platforms.install("mturk", None)
    platforms.install("prolific", None)


def campaign_for(kind, *, platform="mturk", tier=Tier.ONE, state=Campaign.State.PUBLISHED):
    """A campaign published as ``3HIT`` (one HIT per local HIT on MTurk) or ``study01``."""
    campaign = Campaign.objects.create(
        name="test",
        platform=platform,
        hit_type=HitType.objects.for_kind(kind),
        tier=tier,
        state=state,
        reward_cents=10,
        fee_cents=2,
        lifetime=timedelta(days=1),
        external_id="study01" if platform == "prolific" else "3TYPE",
        completion_code="C0DE42" if platform == "prolific" else "",
    )
    hits = list(Hit.objects.filter(hit_type__kind=kind, tier=tier).order_by("-id")) or [None]
    for n, hit in enumerate(hits):
        CampaignHit.objects.create(
            campaign=campaign,
            hit=hit,
            max_assignments=1,
            external_hit_id=f"3HIT{n}" if n else "3HIT",
        )
    return campaign


def test_each_kind_has_a_public_entrance_address(settings):
    settings.PLATFORM_PUBLIC_URL = "https://paracrowd.example"
    assert entrance_url(DESCRIPTION) == "https://paracrowd.example/external/describe/"
    assert entrance_url(COLLECTION) == "https://paracrowd.example/external/collect/"
    assert entrance_url(ALIGNMENT) == "https://paracrowd.example/external/align/"


@pytest.mark.parametrize("kind", [DESCRIPTION, COLLECTION, ALIGNMENT])
def test_a_preview_shows_the_task_and_stores_nothing(client, kind):
    offer(kind)
    response = client.get(URLS[kind], {"assignmentId": PREVIEW_ASSIGNMENT_ID, "hitId": "3HIT"})
    page = response.content.decode()
    assert response.status_code == 200
    assert "This is a preview" in page and page.count("<h1>") == 1
    # Inside the platform's frame: no site header offering to log in or sign up.
    assert "site-header" not in page and "Sign up" not in page
    assert SANDBOX in response["Content-Security-Policy"]
    assert not Assignment.objects.exists() and not Worker.objects.exists()


@pytest.mark.parametrize("kind", [DESCRIPTION, COLLECTION, ALIGNMENT])
def test_a_mechanical_turk_worker_does_each_kind_and_is_sent_back_to_submit(client, kind):
    offer(kind)
    arrival = client.get(URLS[kind], mturk())
    assert arrival.status_code == 200
    assert "X-Frame-Options" not in arrival and SANDBOX in arrival["Content-Security-Policy"]
    done = submit(client, kind, arrival, turkSubmitTo=SANDBOX)
    page = done.content.decode()
    assignment = Assignment.objects.get()
    assert (assignment.external_assignment_id, assignment.external_hit_id) == ("3ASSIGN", "3HIT")
    assert assignment.worker.platform == Worker.Platform.MTURK
    assert assignment.status == Assignment.Status.SUBMITTED
    assert STORED[kind].objects.get().assignment == assignment
    assert f'action="{SANDBOX}/mturk/externalSubmit"' in page
    assert 'name="assignmentId" value="3ASSIGN"' in page
    assert "js/platform-submit.js" in page and page.count("<h1>") == 1


@pytest.mark.parametrize("kind", [DESCRIPTION, COLLECTION, ALIGNMENT])
def test_a_prolific_worker_does_each_kind_in_a_session_and_finishes_it(client, settings, kind):
    settings.PLATFORM_DEMO_SESSION_TASKS = 1
    offer(kind)
    arrival = client.get(URLS[kind], prolific())
    assert arrival.status_code == 200
    assert "Task 1 of 1" in arrival.content.decode()
    done = submit(client, kind, arrival)
    assignment = Assignment.objects.get()
    assert (assignment.session.external_id, assignment.session.listing_id) == ("sess01", "study01")
    assert assignment.worker.platform == Worker.Platform.PROLIFIC
    assert STORED[kind].objects.get().assignment == assignment
    # Without a campaign the session ends with the demo's own completion code, saying so.
    page = done.content.decode()
    assert "your session is complete" in page and "Demo mode" in page


@pytest.mark.parametrize("kind", [DESCRIPTION, COLLECTION, ALIGNMENT])
def test_reloads_before_and_after_submitting_never_give_a_second_task(client, kind):
    offer(kind)
    first, again = client.get(URLS[kind], mturk()), client.get(URLS[kind], mturk())
    assert token_from(first).split(":")[0] == token_from(again).split(":")[0]  # signed apart
    submit(client, kind, again, turkSubmitTo=SANDBOX)
    submit(client, kind, again, turkSubmitTo=SANDBOX)
    after = client.get(URLS[kind], mturk())
    page = after.content.decode()
    assert after.status_code == 200
    assert "You already submitted this task" in page
    assert 'name="assignmentId" value="3ASSIGN"' in page
    assert Assignment.objects.count() == 1 and STORED[kind].objects.count() == 1


@pytest.mark.parametrize("kind", [DESCRIPTION, COLLECTION, ALIGNMENT])
def test_the_same_assignment_under_another_worker_is_refused(client, kind):
    offer(kind)
    client.get(URLS[kind], mturk(worker="A1WORKER"))
    response = client.get(URLS[kind], mturk(worker="A2INTRUDER"))
    assert response.status_code == 403
    assert "another worker" in response.content.decode()
    assert list(Worker.objects.values_list("external_id", flat=True)) == ["A1WORKER"]
    assert Assignment.objects.count() == 1


@pytest.mark.parametrize(
    ("params", "named"),
    [
        (mturk(worker="A" * 300), "workerId"),
        (mturk(assignment="3" * 100), "assignmentId"),
        (mturk(worker="A1WORKER\x00"), "workerId"),
        (mturk(hit="3 HIT"), "hitId"),
        (prolific(worker="P" * 300), "PROLIFIC_PID"),
        (prolific(session="S" * 100), "SESSION_ID"),
        (prolific(study="study\x00"), "STUDY_ID"),
    ],
)
@pytest.mark.parametrize("kind", [DESCRIPTION, COLLECTION, ALIGNMENT])
def test_a_malformed_id_is_refused_by_name_and_nothing_is_stored(client, kind, params, named):
    offer(kind)
    response = client.get(URLS[kind], params)
    page = response.content.decode()
    assert response.status_code == 400
    assert f"parameter {named}" in page and page.count("<h1>") == 1
    if not any("\x00" in value for value in params.values()):
        assert "letters, digits, - or _" in page and "Please return" in page
    # A NUL never reaches the arrival: the site's edge refuses it, naming the parameter.
    assert not Worker.objects.exists() and not Assignment.objects.exists()


def test_an_mturk_arrival_without_a_submit_address_is_refused_by_name(client):
    offer(DESCRIPTION)
    response = client.get(URLS[DESCRIPTION], mturk(turkSubmitTo=""))
    assert response.status_code == 400 and "turkSubmitTo" in response.content.decode()
    assert not Worker.objects.exists()


@pytest.mark.parametrize("kind", [DESCRIPTION, COLLECTION, ALIGNMENT])
def test_unseen_workers_beyond_the_hourly_allowance_are_refused(client, settings, kind):
    settings.PLATFORM_ARRIVALS_PER_HOUR = 1
    offer(kind)
    client.get(URLS[kind], mturk(worker="A1", assignment="3A1"))
    refused = client.get(URLS[kind], prolific(worker="P2", session="S2"))
    assert refused.status_code == 429
    assert "Too many new workers" in refused.content.decode()
    assert list(Worker.objects.values_list("external_id", flat=True)) == ["A1"]
    assert Assignment.objects.count() == 1


def test_behind_a_trusted_proxy_new_workers_count_against_the_clients_address(client, settings):
    settings.PLATFORM_ARRIVALS_PER_HOUR = 1
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "NUM_PROXIES": 1}
    offer(DESCRIPTION)
    offer(DESCRIPTION)
    proxy = {"REMOTE_ADDR": "10.0.0.1"}
    first = client.get(
        URLS[DESCRIPTION],
        mturk(worker="A1", assignment="3A1"),
        HTTP_X_FORWARDED_FOR="192.0.2.7",
        **proxy,
    )
    other = client.get(
        URLS[DESCRIPTION],
        mturk(worker="A2", assignment="3A2"),
        HTTP_X_FORWARDED_FOR="192.0.2.8",
        **proxy,
    )
    again = client.get(
        URLS[DESCRIPTION],
        mturk(worker="A3", assignment="3A3"),
        HTTP_X_FORWARDED_FOR="192.0.2.7",
        **proxy,
    )
    assert (first.status_code, other.status_code, again.status_code) == (200, 200, 429)


@pytest.mark.parametrize("kind", [DESCRIPTION, COLLECTION, ALIGNMENT])
@pytest.mark.parametrize("params", [mturk(hit="3UNKNOWN"), prolific(study="unknown")])
def test_with_a_connector_work_no_campaign_published_is_refused(client, connected, kind, params):
    offer(kind)
    campaign_for(kind)
    response = client.get(URLS[kind], params)
    page = response.content.decode()
    assert response.status_code == 403
    assert "was not published by this site — please return it" in page
    assert not Worker.objects.exists() and not Assignment.objects.exists()


def test_with_a_connector_a_draft_campaign_is_refused(client, connected):
    offer(DESCRIPTION)
    campaign_for(DESCRIPTION, state=Campaign.State.DRAFT)
    assert client.get(URLS[DESCRIPTION], mturk()).status_code == 403
    assert not Assignment.objects.exists()


def test_with_a_connector_a_campaign_of_another_kind_is_refused(client, connected):
    offer(ALIGNMENT)
    campaign_for(ALIGNMENT)
    response = client.get(URLS[DESCRIPTION], mturk())
    assert response.status_code == 403
    assert "another kind of task" in response.content.decode()
    assert not Assignment.objects.exists()


@pytest.mark.parametrize("state", [Campaign.State.PUBLISHED, Campaign.State.EXPIRED])
@pytest.mark.parametrize("kind", [DESCRIPTION, COLLECTION, ALIGNMENT])
def test_with_a_connector_a_published_hit_gives_the_campaigns_hit(client, connected, kind, state):
    offer(kind)
    campaign = campaign_for(kind, state=state)
    response = client.get(URLS[kind], mturk(tier="2"))  # the campaign's tier wins
    assert response.status_code == 200
    assignment = Assignment.objects.get()
    assert assignment.campaign == campaign and assignment.hit.tier == Tier.ONE
    if kind != COLLECTION:
        assert assignment.hit == campaign.postings.get(external_hit_id="3HIT").hit


def test_a_tier_two_campaign_refuses_a_tier_one_worker_with_what_to_do(client, connected):
    offer(DESCRIPTION)
    campaign_for(DESCRIPTION, tier=Tier.TWO)
    response = client.get(URLS[DESCRIPTION], mturk(tier="1"))
    page = response.content.decode()
    assert response.status_code == 403
    assert "Tier-2 qualification" in page and "Please return the HIT." in page
    assert page.count("<h1>") == 1 and "css/site.css" in page
    assert not Worker.objects.exists() and not Assignment.objects.exists()


def test_a_tier_two_campaign_gives_a_qualified_worker_a_tier_two_hit(client, connected):
    offer(DESCRIPTION)
    campaign = campaign_for(DESCRIPTION, tier=Tier.TWO)
    worker = crowd.worker_from_platform(platform="mturk", external_id="A1WORKER")
    crowd.qualification_grant(worker=worker, tier=Tier.TWO, granted_by=None, reason="test")
    assert client.get(URLS[DESCRIPTION], mturk()).status_code == 200
    assignment = Assignment.objects.get()
    assert assignment.hit.tier == Tier.TWO and assignment.campaign == campaign


def test_a_worker_typing_markup_sees_it_as_text_when_the_task_comes_back(client):
    offer(DESCRIPTION)
    arrival = client.get(URLS[DESCRIPTION], mturk())
    typed = "<b>Bold</b> see www.example.com"
    response = submit(client, DESCRIPTION, arrival, text=typed, turkSubmitTo=SANDBOX)
    page = response.content.decode()
    assert "&lt;b&gt;Bold&lt;/b&gt;" in page and "<b>Bold</b>" not in page
    assert not Description.objects.exists()  # a link is refused, so the task comes back


@pytest.mark.usefixtures("platform_settings")
def test_without_framing_origins_a_platform_page_may_not_be_framed(client, settings):
    settings.PLATFORM_FRAME_ANCESTORS = []
    offer(DESCRIPTION)
    response = client.get(URLS[DESCRIPTION], {"assignmentId": PREVIEW_ASSIGNMENT_ID})
    policy = response["Content-Security-Policy"]
    assert "frame-ancestors 'none'" in policy and "mturk.com" not in policy
    assert response["X-Frame-Options"] == "DENY"
    # The participant is still sent back to Prolific when done.
    assert "form-action 'self' https://app.prolific.com" in policy
