"""Agreement recomputed in the background as alignments arrive, shown to staff."""

import pytest
from django.urls import reverse

from annotations import services
from annotations.models import AgreementReport, AlignerModel, Alignment, SentencePair
from annotations.tasks import refresh_agreement
from crowd import services as crowd
from crowd.models import HitType, Tier
from tests.conftest import wait_for
from tests.factories import make_researcher, make_worker

LINKS = ["0-0 1-1 2-2 3-3", "0-0 1-1 2p2 3-3", "0-0 1-1 3-3"]


def make_pair(n: int) -> SentencePair:
    (pair,) = services.pairs_store(
        [
            SentencePair(
                origin=SentencePair.Origin.IMPORT,
                import_key=f"test:{n}",
                tokens_a=["A", "man", "plays", "guitar", "<b>"],
                tokens_b=["A", "guy", "strums", "guitar", "."],
                pre_alignment="0-0 3-3",
            )
        ],
        open_hits=True,
    )
    return pair


def annotate(pair, links):
    worker = make_worker()
    assignment = crowd.assignment_claim(worker=worker, tier=Tier.ONE, kind=HitType.Kind.ALIGNMENT)
    assert assignment.hit.item.sentencepair == pair
    services.alignment_submit(assignment_id=assignment.pk, worker=worker, links=links)


def test_a_second_annotation_brings_the_agreement_table_up_to_date(live_worker):
    pair = make_pair(1)
    annotate(pair, LINKS[0])
    annotate(pair, LINKS[1])
    wait_for(lambda: (r := AgreementReport.objects.filter(pk=1).first()) and r.table)
    report = AgreementReport.objects.get()
    assert report.table["corpus"]["items"] == 1
    assert len(report.table["pairwise"]) == 1


@pytest.mark.django_db
def test_a_refresh_with_nothing_new_changes_nothing():
    pair = make_pair(2)
    annotate(pair, LINKS[0])
    annotate(pair, LINKS[2])
    assert refresh_agreement()
    computed = AgreementReport.objects.get().computed_at
    assert refresh_agreement()
    assert AgreementReport.objects.get().computed_at == computed


@pytest.mark.django_db
def test_staff_see_the_table_and_a_pair_side_by_side(client, admin_user):
    pair = make_pair(3)
    annotate(pair, LINKS[0])
    annotate(pair, LINKS[1])
    refresh_agreement()
    client.force_login(admin_user)
    page = client.get(reverse("annotations:agreement")).content.decode()
    assert "Pairs of annotators" in page and "<svg" in page
    assert "Fleiss' κ over link items (Brockett 2007)" in page and "both agree" in page
    assert "By corpus" in page and '<th scope="row">test</th>' in page
    assert "P sure" in page and "R poss" in page
    # Every table scrolls in its own box with its row names kept in sight (site.css).
    assert page.count("<table") == page.count(
        '<div class="table-scroll"><table class="sticky-first">'
    )
    side = client.get(reverse("annotations:pair", args=[pair.pk])).content.decode()
    assert "Pre-alignment" in side and "&lt;b&gt;" in side and "<b>" not in side
    assert side.count("<h1") == 1


@pytest.mark.django_db
def test_the_agreement_page_says_when_there_is_nothing_to_compare(client, admin_user):
    client.force_login(admin_user)
    page = client.get(reverse("annotations:agreement")).content.decode()
    assert "No sentence pair has two annotations yet" in page


@pytest.mark.django_db
def test_workers_cannot_see_agreement_pages_and_researchers_only_the_table(client):
    pair = make_pair(4)
    client.force_login(make_worker().user)
    assert client.get(reverse("annotations:agreement")).status_code == 403
    assert client.get(reverse("annotations:pair", args=[pair.pk])).status_code == 403

    client.force_login(make_researcher())
    assert client.get(reverse("annotations:agreement")).status_code == 200
    # Adjudicating a pair's annotations stays with staff.
    assert client.get(reverse("annotations:pair", args=[pair.pk])).status_code == 403


@pytest.mark.django_db
def test_staff_see_the_pre_aligner_against_the_annotators_for_pre_aligned_pairs(client, admin_user):
    pair = make_pair(5)
    annotate(pair, LINKS[0])
    annotate(pair, LINKS[1])
    refresh_agreement()
    assert AgreementReport.objects.get().table["aligner"] == []  # no aligner gave "0-0 3-3"

    model = AlignerModel.objects.create(parameters={}, training_pairs=5000)
    SentencePair.objects.filter(pk=pair.pk).update(aligner=model)
    Alignment.objects.create(pair=pair, annotator="imported", links=LINKS[2])
    refresh_agreement()

    rows = AgreementReport.objects.get().table["aligner"]
    assert [row["items"] for row in rows] == [1, 1, 1, 1]  # three annotators and the majority
    assert rows[-1]["label"] == "pre-aligner vs majority"
    client.force_login(admin_user)
    page = client.get(reverse("annotations:agreement")).content.decode()
    assert "The pre-aligner against the annotators" in page and "pre-aligner vs" in page
