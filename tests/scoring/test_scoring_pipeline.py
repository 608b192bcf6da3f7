"""Descriptions get their scores from a real Celery worker over Redis, and none is lost when
Redis is down."""

from io import StringIO

import pytest
from django.core.management import call_command
from django.urls import reverse

import paracrowd_metrics as metrics
from collector import services
from collector.models import Description
from crowd import services as crowd
from crowd.models import Tier
from scoring.models import ClusterScore, DescriptionScore
from scoring.services import segments_score, segments_unscored
from scoring.tasks import sweep_unscored
from tests.conftest import broker_unreachable, running_worker, wait_for
from tests.factories import make_segment, make_worker

SENTENCES = [
    "A man is playing a guitar.",
    "A man plays the guitar.",
    "Someone is strumming a guitar.",
]


def describe(segment, text, language="en"):
    worker = make_worker()
    assignment = crowd.assignment_claim(worker=worker, tier=Tier.ONE)
    assert assignment.hit.item.segment == segment
    description, _ = services.description_submit(
        assignment_id=assignment.pk, worker=worker, text=text, language=language
    )
    return description


def accept(*descriptions):
    """Accept submitted descriptions as a reviewer does: only accepted work is scored."""
    services.descriptions_review(
        description_ids=[d.pk for d in descriptions],
        status=Description.Status.ACCEPTED,
        reviewed_by=None,
        reason="",
    )


def test_a_description_submitted_through_the_site_is_scored_by_a_celery_worker(client, live_worker):
    segment = make_segment()
    for text in SENTENCES[:2]:
        describe(segment, text)
    worker = make_worker(username="last")
    client.force_login(worker.user)
    client.post(reverse("crowd:task_next"), {"tier": "1"})
    assignment = worker.assignments.get()
    response = client.post(
        reverse("collector:describe", args=[assignment.pk]),
        {"text": SENTENCES[2], "language": "en"},
    )
    assert response.status_code == 302

    wait_for(lambda: DescriptionScore.objects.filter(references=2).count() == 3)
    newest = DescriptionScore.objects.get(description__worker=worker)
    assert newest.bleu == pytest.approx(
        metrics.sentence_bleu(SENTENCES[2], SENTENCES[:2]), abs=1e-9
    )
    expected_pinc = sum(metrics.pinc(other, SENTENCES[2]) for other in SENTENCES[:2]) / 2
    assert newest.pinc == pytest.approx(expected_pinc, abs=1e-9)
    assert newest.bleu_signature.startswith("nrefs:2|")
    # Scored for its reviewer, but nothing accepted yet: the cluster counts it as pending.
    cluster = ClusterScore.objects.get(segment=segment)
    assert (cluster.size, cluster.pending, cluster.mean_bleu) == (0, 3, None)


def test_a_submission_made_while_redis_is_down_is_kept_and_scored_by_the_sweep(
    client, transactional_db
):
    segment = make_segment()
    describe(segment, SENTENCES[0])  # queued normally; nobody consumes it in this test
    worker = make_worker()
    client.force_login(worker.user)
    with broker_unreachable():
        client.post(reverse("crowd:task_next"), {"tier": "1"})
        assignment = worker.assignments.get()
        response = client.post(
            reverse("collector:describe", args=[assignment.pk]),
            {"text": SENTENCES[1], "language": "en"},
            follow=True,
        )
    assert "Your description was saved" in response.content.decode()
    assert Description.objects.filter(segment=segment).count() == 2
    assert segments_unscored(limit=10) == [segment.pk]

    with running_worker():
        assert sweep_unscored() == 1
        wait_for(lambda: DescriptionScore.objects.filter(references=1).count() == 2)
    assert not segments_unscored(limit=10)


@pytest.mark.django_db
def test_scoring_twice_gives_the_same_scores():
    segment = make_segment()
    for text in SENTENCES:
        describe(segment, text)
    segments_score(segment_ids=[segment.pk])
    first = list(DescriptionScore.objects.order_by("pk").values_list("bleu", "pinc"))
    segments_score(segment_ids=[segment.pk])
    assert list(DescriptionScore.objects.order_by("pk").values_list("bleu", "pinc")) == first


@pytest.mark.django_db
def test_each_language_is_its_own_cluster_with_its_own_tokenizer():
    segment = make_segment()
    accept(
        describe(segment, "A man is playing a guitar."),
        describe(segment, "A man plays the guitar."),
        describe(segment, "一个男人在弹吉他。", language="zh-hans"),
        describe(segment, "一个人在弹吉他。", language="zh-hans"),
    )
    segments_score(segment_ids=[segment.pk])
    chinese = ClusterScore.objects.get(segment=segment, language="zh-hans")
    assert chinese.size == 2 and "tok:char" in chinese.bleu_signature
    assert ClusterScore.objects.get(segment=segment, language="en").size == 2
    zh_score = DescriptionScore.objects.get(description__text="一个男人在弹吉他。")
    assert zh_score.bleu == pytest.approx(
        metrics.sentence_bleu(
            "一个男人在弹吉他。", ["一个人在弹吉他。"], tokenize="char", max_order=18
        ),
        abs=1e-9,
    )


@pytest.mark.django_db
def test_a_rejected_description_leaves_its_cluster():
    segment = make_segment()
    kept = [describe(segment, text) for text in SENTENCES]
    accept(*kept)
    segments_score(segment_ids=[segment.pk])
    Description.objects.filter(pk=kept[0].pk).update(status=Description.Status.REJECTED)
    segments_score(segment_ids=[segment.pk])
    assert ClusterScore.objects.get(segment=segment).size == 2
    assert not DescriptionScore.objects.filter(description=kept[0]).exists()


def test_score_corpus_fans_out_to_the_celery_workers(live_worker):
    for _ in range(3):
        segment = make_segment()  # each filled before the next exists, so describe() gets it
        for text in SENTENCES[:2]:
            describe(segment, text)
    wait_for(lambda: DescriptionScore.objects.filter(references=1).count() == 6)
    DescriptionScore.objects.all().delete()
    ClusterScore.objects.all().delete()
    out = StringIO()
    call_command("score_corpus", "--no-progress", stdout=out)
    assert "Fanning out to 1 Celery worker(s)." in out.getvalue()
    assert ClusterScore.objects.count() == 3 and DescriptionScore.objects.count() == 6


@pytest.mark.django_db
def test_score_corpus_scores_here_when_asked():
    segment = make_segment()
    for text in SENTENCES:
        describe(segment, text)
    out = StringIO()
    call_command("score_corpus", "--local", "--no-progress", stdout=out)
    assert "Scored 1 segment in" in out.getvalue()
    assert DescriptionScore.objects.filter(references=2).count() == 3


@pytest.mark.django_db
def test_a_cluster_scored_before_a_rejection_whose_rescore_was_lost_is_found_stale():
    segment = make_segment()
    rejected, *accepted = [describe(segment, text) for text in SENTENCES]
    accept(*accepted)
    other = make_segment()  # scored and left alone
    describe(other, SENTENCES[0])
    segments_score(segment_ids=[segment.pk, other.pk])
    assert not services_stale()

    with broker_unreachable():  # the rescore the rejection queues is lost
        services.descriptions_review(
            description_ids=[rejected.pk],
            status=Description.Status.REJECTED,
            reviewed_by=None,
            reason="Not about the video.",
        )
    assert services_stale() == [segment.pk]
    segments_score(segment_ids=[segment.pk])
    assert not services_stale()
    assert ClusterScore.objects.get(segment=segment).size == 2


def test_the_sweep_requeues_stale_clusters_and_a_worker_rescores_them(transactional_db):
    segment = make_segment()
    first, *accepted = [describe(segment, text) for text in SENTENCES]
    accept(*accepted)
    segments_score(segment_ids=[segment.pk])
    with broker_unreachable():
        services.descriptions_review(
            description_ids=[first.pk],
            status=Description.Status.REJECTED,
            reviewed_by=None,
            reason="Not about the video.",
        )
    with running_worker():
        assert sweep_unscored() == 1
        wait_for(lambda: ClusterScore.objects.get(segment=segment).size == 2)
    assert not DescriptionScore.objects.filter(description=first).exists()


def services_stale():
    from scoring.services import segments_stale

    return segments_stale(limit=100)
