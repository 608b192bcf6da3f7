"""The research API: researchers read the corpus with a token; workers and strangers cannot."""

from datetime import timedelta

import pytest
from django.urls import reverse
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from annotations.models import Alignment, SentencePair
from collector.models import Description
from crowd.models import Tier
from research.api import ByCluster
from research.services import researcher_token_reset
from scoring.services import segments_score
from tests.factories import make_description, make_researcher, make_segment, make_worker

pytestmark = pytest.mark.django_db

GUITAR = ["A man plays a guitar.", "Someone strums a guitar.", "<script>x</script> plays."]


@pytest.fixture
def researcher():
    return make_researcher()


@pytest.fixture
def api(researcher):
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {researcher_token_reset(user=researcher).key}")
    return client


@pytest.fixture
def corpus():
    guitar, cooking = make_segment(), make_segment()
    worker2, worker1 = make_worker(tier=Tier.TWO), make_worker()
    for n, text in enumerate(GUITAR):
        make_description(
            guitar,
            text,
            worker=worker2 if n == 0 else worker1,
            tier=Tier.TWO if n == 0 else Tier.ONE,
            time_spent=timedelta(seconds=20),
        )
    make_description(guitar, "Ein Mann spielt Gitarre.", language="de")
    make_description(cooking, "A woman cooks.")
    make_description(cooking, "Awaiting review.", status=Description.Status.PENDING)
    segments_score(segment_ids=[guitar.pk])
    return {"guitar": guitar, "cooking": cooking, "worker": worker1}


def url(name, *args):
    return reverse(f"research-api:{name}", args=args)


def test_a_worker_is_refused_and_a_stranger_must_authenticate(client, corpus):
    worker = corpus["worker"]
    client.force_login(worker.user)
    for name in ("root", "clusters", "segments", "alignments", "statistics", "exports", "schema"):
        assert client.get(url(name)).status_code == 403, name
    assert client.post(url("system-scores"), {}, content_type="application/json").status_code == 403
    assert APIClient().get(url("clusters")).status_code == 401
    token = Token.objects.create(user=worker.user)
    stranger = APIClient()
    stranger.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
    assert stranger.get(url("clusters")).status_code == 403


def test_staff_may_read_the_api_with_their_session(client, admin_user, corpus):
    client.force_login(admin_user)
    assert client.get(url("clusters")).status_code == 200


def test_the_root_lists_every_address_and_each_answers(api):
    links = api.get(url("root")).json()

    assert links["clusters"] == "http://testserver" + url("clusters")
    assert "schema" in links and "docs" in links
    for name, address in links.items():
        assert api.get(address).status_code == 200, name


def test_corpus_endpoints_only_read(api, corpus):
    for name in ("clusters", "segments", "alignments", "statistics"):
        assert api.post(url(name), {}, format="json").status_code == 405, name
        assert api.delete(url(name)).status_code == 405, name


def test_clusters_come_with_their_segment_descriptions_and_scores(api, corpus):
    body = api.get(url("clusters"), {"language": "en"}).json()

    guitar = next(c for c in body["results"] if c["segment"]["id"] == corpus["guitar"].pk)
    assert guitar["language"] == "en" and guitar["size"] == 3
    assert guitar["scores"]["size"] == 3
    assert [d["text"] for d in guitar["descriptions"]] == GUITAR
    first = guitar["descriptions"][0]
    assert first["tier"] == 2 and first["time_spent"] == 20.0
    assert first["worker"].startswith("local-") and first["scores"]["references"] == 2
    # JSON, never HTML: what a worker typed comes back as they typed it.
    assert GUITAR[2] in [d["text"] for d in guitar["descriptions"]]
    assert body["next"] is None


def test_cluster_scores_count_accepted_descriptions_and_pending_work_apart(api, corpus):
    guitar = corpus["guitar"]
    pasted = make_description(guitar, "Pasted from a website.", status=Description.Status.PENDING)
    segments_score(segment_ids=[guitar.pk])

    for status in ("accepted", "all"):
        body = api.get(url("clusters"), {"language": "en", "status": status}).json()
        cluster = next(c for c in body["results"] if c["segment"]["id"] == guitar.pk)
        assert cluster["scores"]["size"] == 3 and cluster["scores"]["pending"] == 1, status
        first = cluster["descriptions"][0]
        assert first["scores"]["references"] == 2
    # Asked for, the pending description comes with the cluster, outside its scores.
    assert cluster["size"] == 4
    (waiting,) = [d for d in cluster["descriptions"] if d["id"] == pasted.pk]
    assert waiting["status"] == "pending" and waiting["scores"]["references"] == 3


def test_cluster_pages_follow_the_cursor_without_repeats(api, corpus, monkeypatch):
    monkeypatch.setattr(ByCluster, "page_size", 1)
    seen, link = [], url("clusters")
    while link:
        body = api.get(link).json()
        seen += [(c["segment"]["id"], c["language"]) for c in body["results"]]
        link = body["next"]
    guitar, cooking = corpus["guitar"].pk, corpus["cooking"].pk
    assert seen == [(guitar, "de"), (guitar, "en"), (cooking, "en")]


def test_filters_are_the_export_filters_and_bad_values_say_which(api, corpus):
    def texts(**params):
        body = api.get(url("clusters"), params).json()
        return {d["text"] for c in body["results"] for d in c["descriptions"]}

    assert texts(status="pending") == {"Awaiting review."}
    assert texts(tier="2") == {GUITAR[0]}
    assert texts(language="de") == {"Ein Mann spielt Gitarre."}
    assert texts(min_cluster_size=3) == set(GUITAR)
    assert texts(until="2001-01-01") == set()
    response = api.get(url("clusters"), {"since": "yesterday"})
    assert response.status_code == 400 and "since" in response.json()
    response = api.get(url("clusters"), {"since": "2024-02-01", "until": "2024-01-01"})
    assert response.status_code == 400 and "until" in response.json()


def test_segments_list_their_cluster_sizes(api, corpus):
    body = api.get(url("segments")).json()

    guitar = next(s for s in body["results"] if s["id"] == corpus["guitar"].pk)
    assert guitar["video"] == corpus["guitar"].youtube_id
    assert guitar["clusters"] == [{"language": "de", "size": 1}, {"language": "en", "size": 3}]
    detail = api.get(url("segment", corpus["cooking"].pk), {"status": "all"}).json()
    assert detail["clusters"] == [{"language": "en", "size": 2}]
    assert api.get(url("segment", 10**12)).status_code == 404


def test_statistics_count_as_the_study_does_and_show_pending_work(api, corpus):
    body = api.get(url("statistics")).json()

    assert body["overall"] == {
        "segments": 2,
        "descriptions": 5,
        "mean_per_segment": 2.5,
        "reached_by_95_percent": 1,
    }
    assert body["tier2"]["descriptions"] == 1
    assert body["status_counts"] == {"pending": 1, "accepted": 5, "rejected": 0}
    assert body["languages"][0] == {"language": "en", "descriptions": 4, "segments": 2}


def test_alignments_come_with_their_sentence_pair(api):
    pair = SentencePair.objects.create(
        origin=SentencePair.Origin.IMPORT,
        tokens_a=["a", "b"],
        tokens_b=["b", "a"],
        import_key="t:1",
    )
    Alignment.objects.create(pair=pair, annotator="A", links="0-1 1p0")

    (alignment,) = api.get(url("alignments")).json()["results"]

    assert alignment["annotator"] == "A" and alignment["links"] == "0-1 1p0"
    assert alignment["pair"]["tokens_b"] == ["b", "a"] and alignment["tier"] is None
    assert api.get(url("alignments"), {"tier": "2"}).json()["results"] == []


def test_unknown_addresses_under_the_api_answer_json(api):
    response = api.get("/api/no-such-thing/")
    assert response.status_code == 404 and response.json()["detail"] == "Not found."
    assert api.get("/api/clusters").status_code == 404


def test_segments_and_statistics_keep_to_clusters_of_the_minimum_size(api, corpus):
    segments = api.get(url("segments"), {"min_cluster_size": 3}).json()["results"]
    assert [(s["id"], s["clusters"]) for s in segments] == [
        (corpus["guitar"].pk, [{"language": "en", "size": 3}])
    ]
    detail = api.get(url("segment", corpus["cooking"].pk), {"min_cluster_size": 3}).json()
    assert detail["clusters"] == []

    body = api.get(url("statistics"), {"min_cluster_size": 3}).json()
    assert body["overall"]["segments"] == 1 and body["overall"]["descriptions"] == 3
    assert body["tier2"]["segments"] == 0
    assert body["languages"] == [{"language": "en", "descriptions": 3, "segments": 1}]


@pytest.mark.parametrize("segments", [2, 12])
@pytest.mark.parametrize("params", [{}, {"min_cluster_size": "2", "status": "all"}])
@pytest.mark.parametrize(
    "name, queries", [("segments", 4), ("segment", 4), ("clusters", 5), ("statistics", 6)]
)
def test_a_corpus_endpoint_takes_the_same_number_of_queries_for_a_small_corpus_as_a_large_one(
    api, django_assert_num_queries, segments, params, name, queries
):
    for _ in range(segments):
        segment = make_segment()
        make_description(segment, "A man is playing a guitar.")
        make_description(segment, "A man plays the guitar.")
        make_description(segment, "A man plays the guitar.", language="de")
    address = url(name, segment.pk) if name == "segment" else url(name)
    with django_assert_num_queries(queries):
        assert api.get(address, params).status_code == 200


def test_accepted_direct_paraphrases_come_with_their_sentence_and_pinc(api, client):
    from collector import services
    from tests.factories import make_paraphrase, make_paraphrase_source, make_staff

    source = make_paraphrase_source("A man is slicing a tomato.")
    accepted = make_paraphrase(make_worker(), source, "Someone cuts a tomato into slices.")
    make_paraphrase(make_worker(), source, "A tomato is being sliced.")  # pending
    services.paraphrases_review(
        paraphrase_ids=[accepted.pk], status="accepted", reviewed_by=make_staff(), reason="ok"
    )
    (row,) = api.get(url("direct-paraphrases")).json()["results"]
    assert row["id"] == accepted.pk
    assert (row["source"], row["source_segment"], row["text"], row["tier"]) == (
        "A man is slicing a tomato.",
        None,
        "Someone cuts a tomato into slices.",
        1,
    )
    assert row["worker"] == f"local-{accepted.worker_id}"
    assert api.get(url("direct-paraphrases"), {"language": "fr"}).json()["results"] == []
    # A language holding NUL (which PostgreSQL cannot compare) is refused at the edge.
    assert api.get(url("direct-paraphrases"), {"language": "e\x00n"}).status_code == 400
    client.force_login(accepted.worker.user)
    assert client.get(url("direct-paraphrases")).status_code == 403
