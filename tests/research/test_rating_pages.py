"""The ratings pages, the CSV and the API: who may see them, what they show, and escaping."""

import csv
import io

import pytest
from django.urls import reverse
from rest_framework.test import APIClient

from research.models import RatingBatch, SystemScoreJob
from research.ratings import rated_items
from research.ratings.selectors import batch_summary
from research.services import researcher_token_reset
from tests.factories import make_description, make_researcher, make_segment, make_staff, make_worker
from tests.pages import table_column, task_shown
from tests.research.ratings import PAIRS, make_batch, rate_next

pytestmark = pytest.mark.django_db

FORMULA = '=HYPERLINK("http://x")'


@pytest.fixture
def rated():
    """A batch of two items, both rated by two judges; a third judge's rating rejected."""
    batch = make_batch(
        pairs=[("<i>A man</i> plays.", FORMULA), ("A dog runs.", "A dog is running.")]
    )
    first, second = make_worker(), make_worker()
    rate_next(first, (4, 1, 1)), rate_next(first, (3, 2, 2))
    rate_next(second, (4, 2, 1)), rate_next(second, (2, 2, 3))
    return batch


def test_the_summary_gives_progress_means_and_agreement(rated):
    summary = batch_summary(rated)
    assert (summary.items, summary.needed, summary.rated) == (2, 4, 4)
    assert summary.means == {"semantic": 3.25, "dissimilarity": 1.75, "overall": 1.75}
    # Semantic: items (4, 4) and (3, 2): pairs in both orders, x = 4 4 3 2, y = 4 4 2 3;
    # deviations from 3.25 give Σdxdy = 1.75 and Σdx² = Σdy² = 2.75: r = 7/11.
    assert summary.agreement["semantic"].pearson == pytest.approx(7 / 11)
    assert summary.agreement["semantic"].items == 2


def test_rated_items_yield_each_item_with_its_judges(rated):
    items = list(rated_items(rated))
    assert [len(item.ratings) for item in items] == [2, 2]
    first = items[0]
    assert (first.source, first.candidate, first.system) == (
        "<i>A man</i> plays.",
        FORMULA,
        "sys-a",
    )
    assert [(r.semantic, r.dissimilarity, r.overall) for r in first.ratings] == [
        (4, 1, 1),
        (4, 2, 1),
    ]
    assert all(r.judge.startswith("local-") for r in first.ratings)
    assert list(rated_items()) == items


@pytest.mark.parametrize("name", ["research:rating_batches", "research:ratings_csv"])
def test_the_ratings_pages_are_for_researchers_and_staff(client, rated, name):
    url = reverse(name)
    assert client.get(url).status_code == 302  # to log in
    client.force_login(make_worker().user)
    assert client.get(url).status_code == 403
    client.force_login(make_researcher())
    assert client.get(url).status_code == 200
    client.force_login(make_staff())
    assert client.get(url).status_code == 200


def test_the_batch_page_shows_progress_agreement_and_escapes_what_was_typed(client, rated):
    client.force_login(make_staff())
    page = client.get(reverse("research:rating_batch", args=[rated.pk])).content.decode()
    assert page.count("<h1>") == 1
    assert "Rated: <strong>4</strong> of 4 ratings" in page
    assert "Krippendorff α (ordinal)" in page and "0.636" in page
    # Nothing waits for review once everything has been decided; staff see the queue.
    assert 'id="review-queue"' in page
    assert "&lt;i&gt;A man&lt;/i&gt;" in page and "<i>A man</i>" not in page


def test_both_tables_of_the_batch_page_name_a_judge_as_the_exports_do(client):
    batch = make_batch(pairs=PAIRS[:1])
    first, second = make_worker(username="demo-writer-ana"), make_worker()
    rate_next(first), rate_next(second)
    client.force_login(make_staff())
    page = client.get(reverse("research:rating_batch", args=[batch.pk])).content.decode()
    labels = {f"local-{first.pk}", f"local-{second.pk}"}
    assert set(table_column(page, "judge-reliability", "Judge")) == labels
    assert set(table_column(page, "review-queue", "Judge")) == labels
    assert {row[5] for row in csv.reader(io.StringIO(_csv(client, batch)))} >= labels
    assert "demo-writer-ana" not in page


def _csv(client, batch) -> str:
    response = client.get(reverse("research:rating_batch_csv", args=[batch.pk]))
    return b"".join(response.streaming_content).decode()


def test_a_researcher_sees_the_batch_but_not_the_review_queue(client, rated):
    client.force_login(make_researcher())
    page = client.get(reverse("research:rating_batch", args=[rated.pk])).content.decode()
    assert "Rated: <strong>4</strong>" in page and 'id="review-queue"' not in page


def test_the_csv_has_one_row_per_rating_and_formulas_are_escaped(client, rated):
    client.force_login(make_researcher())
    response = client.get(reverse("research:rating_batch_csv", args=[rated.pk]))
    rows = list(csv.reader(io.StringIO(b"".join(response.streaming_content).decode())))
    assert rows[0] == [
        "batch",
        "item",
        "source",
        "candidate",
        "cluster",
        "judge",
        "semantic",
        "dissimilarity",
        "overall",
        "status",
    ]
    assert len(rows) == 5
    assert rows[1][3] == "'" + FORMULA
    assert rows[1][5].startswith("local-") and rows[1][6:] == ["4", "1", "1", "pending"]


def test_a_researcher_makes_a_batch_from_an_upload_on_the_page(client):
    segment = make_segment()
    make_description(segment, "A man plays a guitar.")
    client.force_login(make_researcher())
    upload = io.BytesIO(
        f"source,candidate,cluster\nA man plays.,A guy plays.,{segment.pk}\n".encode()
    )
    upload.name = "items.csv"
    response = client.post(
        reverse("research:rating_batches"),
        {"name": "pilot", "origin": "upload", "language": "en", "judges": "2", "file": upload},
    )
    batch = RatingBatch.objects.get()
    assert response["Location"] == reverse("research:rating_batch", args=[batch.pk])
    assert batch.items.get().segment == segment


def test_a_bad_upload_on_the_page_is_refused_at_its_field_naming_the_line(client):
    client.force_login(make_researcher())
    upload = io.BytesIO(b"source,candidate,cluster\nA man plays.,A guy plays.,424242\n")
    upload.name = "items.csv"
    response = client.post(
        reverse("research:rating_batches"),
        {"name": "pilot", "origin": "upload", "language": "en", "judges": "2", "file": upload},
    )
    assert response.status_code == 400
    assert "items.csv:2: cluster 424242 does not exist" in response.content.decode()
    assert not RatingBatch.objects.exists()


@pytest.fixture
def api():
    client = APIClient()
    token = researcher_token_reset(user=make_researcher())
    client.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
    return client


def test_the_api_lists_ratings_of_a_batch_with_paging(api, rated):
    other = make_batch(name="other")
    rate_next(make_worker())
    response = api.get(reverse("research-api:ratings"), {"batch": rated.pk})
    body = response.json()
    assert response.status_code == 200 and len(body["results"]) == 4
    assert {row["batch"] for row in body["results"]} == {rated.pk}
    assert body["results"][0]["candidate"] == FORMULA  # JSON carries the text as it is
    assert "next" in body
    everything = api.get(reverse("research-api:ratings")).json()["results"]
    assert len(everything) == 5 and other.pk in {row["batch"] for row in everything}
    assert api.get(reverse("research-api:ratings"), {"batch": "x"}).status_code == 400


def test_the_api_lists_batches_with_their_progress(api, rated):
    (row,) = api.get(reverse("research-api:rating-batches")).json()["results"]
    assert (row["name"], row["items"], row["ratings"], row["judges"]) == ("pilot", 2, 4, 2)


def test_the_ratings_api_refuses_workers_and_strangers(rated):
    stranger = APIClient()
    assert stranger.get(reverse("research-api:ratings")).status_code == 401
    stranger.force_authenticate(make_worker().user)
    assert stranger.get(reverse("research-api:ratings")).status_code == 403


def test_the_ratings_endpoints_are_in_the_openapi_schema(api):
    schema = api.get(reverse("research-api:schema"), HTTP_ACCEPT="application/json")
    text = schema.content.decode()
    assert "/api/ratings/" in text and "/api/rating-batches/" in text


def test_a_researcher_rates_one_of_their_systems_but_not_anothers(client):
    segment = make_segment()
    make_description(segment, "A man plays a guitar.")
    researcher, other = make_researcher(), make_researcher()
    pairs = [["A man plays a guitar.", "A guy plays guitar.", None]]
    mine, theirs = (
        SystemScoreJob.objects.create(
            requested_by=owner,
            systems=[{"name": "moses", "pairs": pairs}],
            parameters={},
            state="done",
        )
        for owner in (researcher, other)
    )
    client.force_login(researcher)
    fields = {"name": "moses", "origin": "system", "language": "en", "judges": "2"}
    refused = client.post(
        reverse("research:rating_batches"), {**fields, "job_system": f"{theirs.pk}:moses"}
    )
    assert refused.status_code == 400 and not RatingBatch.objects.exists()
    client.post(reverse("research:rating_batches"), {**fields, "job_system": f"{mine.pk}:moses"})
    batch = RatingBatch.objects.get()
    assert (batch.origin, batch.system, batch.items.get().segment) == ("system", "moses", segment)


def test_the_video_is_shown_only_when_the_batch_asks_for_it(client):
    segment = make_segment()
    make_description(segment, "A man plays a guitar.")
    worker = make_worker()
    client.force_login(worker.user)
    for show_video in (False, True):
        batch = make_batch(pairs=[("A man plays a guitar.", "A guy plays.")], show_video=show_video)
        batch.items.update(segment=segment)
        started = client.post(reverse("crowd:task_next"), {"kind": "rating", "tier": "1"})
        assert ('id="player"' in started.content.decode()) is show_video
        client.post(task_shown(started), {"semantic": 4, "dissimilarity": 2, "overall": 2})


def test_rating_tasks_behind_a_qualification_are_closed_to_workers_without_it(client):
    from crowd.models import HitType

    make_batch()
    HitType.objects.filter(kind="rating").update(qualification_required=True)
    client.force_login(make_worker().user)
    dashboard = client.get(reverse("collector:dashboard")).content.decode()
    assert "Rate paraphrases" not in dashboard and 'id="rating-locked"' in dashboard
    response = client.post(reverse("crowd:task_next"), {"kind": "rating", "tier": "1"}, follow=True)
    assert "need a qualification you do not hold" in response.content.decode()


# The session is read from the cache (paracrowd.sessions), so it costs no query here.
BATCH_PAGE_QUERIES = 7  # and two for the consensus: the ratings, the items shown


@pytest.mark.parametrize("judges", [1, 3])
def test_the_batch_page_takes_the_same_queries_however_many_ratings(
    client, django_assert_num_queries, judges
):
    batch = make_batch(judges=judges)
    for _ in range(judges):
        worker = make_worker()
        while rate_next(worker):
            pass
    client.force_login(make_staff())
    with django_assert_num_queries(BATCH_PAGE_QUERIES):
        response = client.get(reverse("research:rating_batch", args=[batch.pk]))
    assert response.status_code == 200
    assert f"Rated: <strong>{3 * judges}</strong>" in response.content.decode()
