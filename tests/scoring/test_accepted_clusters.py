"""A cluster's scores count its accepted descriptions alone: work awaiting review (pasted text
among it) is counted beside them and shown apart, and a decision rescores the cluster."""

import pytest
from django.urls import reverse

import paracrowd_metrics as metrics
from collector import services
from collector.models import Description
from collector.provenance import TypingRecord
from crowd import services as crowd
from crowd.models import Tier
from scoring.models import ClusterScore, DescriptionScore
from scoring.services import segments_score, segments_stale
from tests.conftest import broker_unreachable, wait_for
from tests.factories import make_description, make_segment, make_worker

ACCEPTED = ["A man is playing a guitar.", "A man plays the guitar."]
PASTED = "A man is playing a guitar on a stage in front of a crowd."
PASTE = TypingRecord(
    key_presses=0,
    pastes=1,
    pasted_characters=len(PASTED),
    first_key_ms=9_000,
    writing_ms=0,
    focus_losses=1,
    background_ms=0,
    input_method_characters=0,
)


def describe(segment, text, typing=None):
    worker = make_worker()
    assignment = crowd.assignment_claim(worker=worker, tier=Tier.ONE)
    assert assignment.hit.item.segment == segment
    description, _ = services.description_submit(
        assignment_id=assignment.pk, worker=worker, text=text, language="en", typing=typing
    )
    return description


def review(description, status, reason=""):
    services.descriptions_review(
        description_ids=[description.pk], status=status, reviewed_by=None, reason=reason
    )


@pytest.fixture
def staff(client, admin_user):
    client.force_login(admin_user)
    return admin_user


@pytest.fixture
def pasted_cluster(db):
    """Two accepted descriptions and a pasted one nobody has reviewed yet."""
    segment = make_segment()
    for text in ACCEPTED:
        review(describe(segment, text), Description.Status.ACCEPTED)
    pasted = describe(segment, PASTED, typing=PASTE)
    assert "pasted" in pasted.typing_signals and pasted.status == Description.Status.PENDING
    segments_score(segment_ids=[segment.pk])
    return segment


def test_a_pasted_description_awaiting_review_is_not_counted_in_the_cluster(pasted_cluster):
    cluster = ClusterScore.objects.get(segment=pasted_cluster)
    alone = metrics.ClusterIndex.build(ACCEPTED, tokenize="13a").cluster_scores()
    assert (cluster.size, cluster.pending) == (2, 1)
    assert cluster.mean_bleu == pytest.approx(alone.mean_bleu, abs=1e-9)
    assert cluster.corpus_bleu == pytest.approx(alone.corpus_bleu, abs=1e-9)
    assert cluster.bleu_signature.startswith("nrefs:1|")
    accepted = DescriptionScore.objects.filter(description__status=Description.Status.ACCEPTED)
    assert sorted(accepted.values_list("references", flat=True)) == [1, 1]


def test_work_awaiting_review_is_still_scored_for_its_reviewer(pasted_cluster):
    pasted = DescriptionScore.objects.get(description__text=PASTED)
    assert pasted.references == 2
    assert pasted.bleu == pytest.approx(metrics.sentence_bleu(PASTED, ACCEPTED), abs=1e-9)


@pytest.mark.django_db
def test_a_cluster_too_small_to_score_keeps_its_row_and_says_what_it_needs(client, staff):
    segment = make_segment()
    review(describe(segment, ACCEPTED[0]), Description.Status.ACCEPTED)
    describe(segment, ACCEPTED[1])
    describe(segment, PASTED, typing=PASTE)
    segments_score(segment_ids=[segment.pk])
    cluster = ClusterScore.objects.get(segment=segment)
    assert (cluster.size, cluster.pending, cluster.mean_bleu, cluster.scored) == (1, 2, None, False)

    page = client.get(reverse("scoring:cluster", args=[segment.pk])).content.decode()
    assert "Needs at least 2 accepted descriptions; 1 accepted, 2 awaiting review." in page


@pytest.mark.django_db
def test_a_cluster_with_nothing_accepted_yet_is_stored_with_its_pending_count():
    segment = make_segment()
    describe(segment, ACCEPTED[0])
    describe(segment, ACCEPTED[1])
    segments_score(segment_ids=[segment.pk])
    cluster = ClusterScore.objects.get(segment=segment)
    assert (cluster.size, cluster.pending, cluster.corpus_bleu) == (0, 2, None)
    assert cluster.bleu_signature.startswith("nrefs:0|")


def test_the_cluster_page_lists_work_awaiting_review_apart(client, staff, pasted_cluster):
    page = client.get(reverse("scoring:cluster", args=[pasted_cluster.pk])).content.decode()
    accepted_section, _, rest = page.partition('id="pending-heading"')
    pending_section = rest.partition("</section>")[0]
    assert all(text in accepted_section for text in ACCEPTED)
    assert PASTED not in accepted_section and PASTED in pending_section
    assert "Awaiting review (1)" in pending_section
    assert "<td>2</td>\n        <td>1</td>" in page  # 2 accepted, 1 awaiting review


@pytest.mark.django_db
def test_accepting_a_description_whose_rescore_was_lost_leaves_its_cluster_stale():
    segment = make_segment()
    review(describe(segment, ACCEPTED[0]), Description.Status.ACCEPTED)
    waiting = describe(segment, ACCEPTED[1])
    segments_score(segment_ids=[segment.pk])
    assert segments_stale(limit=10) == []

    with broker_unreachable():
        review(waiting, Description.Status.ACCEPTED)
    assert segments_stale(limit=10) == [segment.pk]
    segments_score(segment_ids=[segment.pk])
    cluster = ClusterScore.objects.get(segment=segment)
    assert (cluster.size, cluster.pending, cluster.scored) == (2, 0, True)


@pytest.mark.django_db
def test_clusters_scored_before_pending_work_was_kept_out_are_rescored_not_deleted():
    segment = make_segment()
    make_description(segment, ACCEPTED[0])
    make_description(segment, ACCEPTED[1])
    make_description(segment, PASTED, status=Description.Status.PENDING)
    segments_score(segment_ids=[segment.pk])
    # As the migration leaves a row stored by the earlier rule, which counted pending work.
    ClusterScore.objects.filter(segment=segment).update(size=3, pending=None)
    assert segments_stale(limit=10) == [segment.pk]

    segments_score(segment_ids=[segment.pk])
    cluster = ClusterScore.objects.get(segment=segment)
    assert (cluster.size, cluster.pending) == (2, 1)
    assert segments_stale(limit=10) == []


def test_accepting_a_description_rescores_its_cluster_through_a_celery_worker(live_worker):
    segment = make_segment()
    first = describe(segment, ACCEPTED[0])
    second = describe(segment, ACCEPTED[1])
    pasted = describe(segment, PASTED, typing=PASTE)
    wait_for(lambda: ClusterScore.objects.filter(segment=segment, pending=3).exists())

    review(first, Description.Status.ACCEPTED)
    review(second, Description.Status.ACCEPTED)
    wait_for(lambda: ClusterScore.objects.filter(segment=segment, size=2, pending=1).exists())
    expected = metrics.ClusterIndex.build(ACCEPTED, tokenize="13a").cluster_scores()
    cluster = ClusterScore.objects.get(segment=segment)
    assert cluster.mean_bleu == pytest.approx(expected.mean_bleu, abs=1e-9)

    review(pasted, Description.Status.REJECTED, reason="Pasted from elsewhere.")
    wait_for(lambda: ClusterScore.objects.filter(segment=segment, size=2, pending=0).exists())
    assert not DescriptionScore.objects.filter(description=pasted).exists()
