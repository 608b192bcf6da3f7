"""The weighted consensus of stored alignments: annotators weighted by trial F1 and by the
agreement table, shown for adjudication in the review and exported beside the alignments."""

import json
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command
from django.urls import reverse

from annotations import review, services, trial
from annotations.agreement_store import agreement_recompute
from annotations.consensus import AnnotatorWeights
from annotations.models import Alignment, SentencePair
from crowd import services as crowd
from crowd.models import Hit, HitType, Tier
from paracrowd_metrics.alignment import parse_pharaoh
from tests.factories import make_staff, make_worker

pytestmark = pytest.mark.django_db

TOKENS_A = ["A", "man", "plays", "a", "<guitar>", "."]
TOKENS_B = ["A", "guy", "strums", "a", "<guitar>", "."]
GOOD = "0-0 1-1 2-2 3-3 4-4 5-5"
CARELESS = "0-0 1-2 2-1 3-3 4-4 5-5"
DATA = Path(__file__).parents[1] / "data" / "alignments"
MSR_FILES = [str(DATA / f"pairs_{name}.align.txt") for name in "ABC"]


def store_pair(key, *, open_hits=True):
    (pair,) = services.pairs_store(
        [
            SentencePair(
                origin=SentencePair.Origin.IMPORT,
                import_key=key,
                tokens_a=TOKENS_A,
                tokens_b=TOKENS_B,
            )
        ],
        open_hits=open_hits,
    )
    return pair


def submit(worker, links):
    assignment = crowd.assignment_claim(worker=worker, tier=Tier.ONE, kind=HitType.Kind.ALIGNMENT)
    alignment, _ = services.alignment_submit(
        assignment_id=assignment.pk, worker=worker, links=links
    )
    return alignment


@pytest.fixture
def outvoted():
    """One careful worker and two careless ones align a pair the same careless way; then a
    trial pair is added, which the careful worker aligns right and the others wrong."""
    pair = store_pair("task:1")
    Hit.objects.filter(item_id=pair.item_id).update(max_assignments=3)
    careful, careless = make_worker(), [make_worker(), make_worker()]
    good = submit(careful, GOOD)
    bad = [submit(worker, CARELESS) for worker in careless]
    trial_pair = store_pair("trial:1", open_hits=False)
    trial.trial_pair_mark(pair_id=trial_pair.pk, gold_links=GOOD)
    trial.trial_answer_submit(worker=careful, pair_id=trial_pair.pk, links=GOOD)
    for worker in careless:
        trial.trial_answer_submit(worker=worker, pair_id=trial_pair.pk, links="0-5 5-0")
    return good, bad


def test_a_worker_who_passed_the_trial_outweighs_two_who_failed_it(outvoted):
    good, bad = outvoted
    weights = AnnotatorWeights.read()
    assert weights.evidence(good).trial_f1 == 1.0
    assert weights.evidence(bad[0]).trial_f1 == 0.0
    consensus = weights.consensus([good, *bad])
    assert consensus.alignment == parse_pharaoh(GOOD)
    # 1 against two votes of the least weight, 0.05 each.
    assert consensus.confidence((1, 1)) == pytest.approx(1 / 1.1)
    assert consensus.confidence((1, 2)) == pytest.approx(0.1 / 1.1)
    assert consensus.confidence((0, 0)) == pytest.approx(1.0)


def test_with_nothing_known_of_anyone_the_majority_decides(outvoted):
    good, bad = outvoted
    consensus = AnnotatorWeights({}, {}).consensus([good, *bad])
    assert consensus.alignment == parse_pharaoh(CARELESS)
    assert consensus.confidence((1, 2)) == pytest.approx(2 / 3)


def test_a_rejected_alignment_takes_no_part(outvoted):
    good, bad = outvoted
    Alignment.objects.filter(pk=good.pk).update(status=Alignment.Status.REJECTED)
    good.refresh_from_db()
    consensus = AnnotatorWeights.read().consensus([good, *bad])
    assert consensus.alignment == parse_pharaoh(CARELESS)
    assert set(consensus.weights) == {str(a.pk) for a in bad}


def test_the_agreement_tables_annotators_are_weighted_by_their_f1():
    call_command("import_alignments", *MSR_FILES, stdout=StringIO())
    agreement_recompute()
    weights = AnnotatorWeights.read()
    assert set(weights.agreement) == {"A", "B", "C"}
    pair = SentencePair.objects.order_by("pk").first()
    alignments = list(pair.alignments.all())
    for alignment in alignments:
        assert weights.evidence(alignment).agreement_f1 == weights.agreement[alignment.annotator]
    consensus = weights.consensus(alignments)
    assert consensus.weights == {
        str(a.pk): pytest.approx(max(weights.agreement[a.annotator], 0.05)) for a in alignments
    }


def test_the_review_shows_the_consensus_with_confidence_and_where_each_alignment_differs(
    client, outvoted
):
    good, bad = outvoted
    queue = review.alignment_review_page()[1]
    by_alignment = {item.alignment.pk: item for item in queue}
    row = next(r for r in by_alignment[bad[0].pk].consensus if r.link == "1-2")
    assert (row.verdict, row.marked, row.departs) == ("left out", "sure", True)
    assert row.confidence == pytest.approx(0.1 / 1.1)
    row = next(r for r in by_alignment[good.pk].consensus if r.link == "1-1")
    assert (row.verdict, row.marked, row.departs) == ("sure", "sure", False)

    client.force_login(make_staff())
    page = client.get(reverse("review_pages:alignments")).content.decode()
    assert page.count('class="consensus"') == 3
    assert "<code>1-2</code></th><td>man ↔ strums</td>" in page
    assert "(differs)" in page and "0.91" in page and "0.09" in page
    assert "&lt;guitar&gt; ↔ &lt;guitar&gt;" in page and "<guitar>" not in page


def test_the_review_page_with_its_consensus_is_for_staff_only(client, outvoted):
    url = reverse("review_pages:alignments")
    assert client.get(url).status_code == 302
    client.force_login(make_worker().user)
    response = client.get(url)
    assert response.status_code == 403 and "consensus" not in response.content.decode()


def test_the_export_writes_the_consensus_its_confidences_and_the_weights(tmp_path, outvoted):
    good, bad = outvoted
    call_command("export_alignments", str(tmp_path), stdout=StringIO())
    pairs = (tmp_path / "pairs.txt").read_text().split()
    line = pairs.index(str(good.pair_id))
    consensus = (tmp_path / "consensus.pharaoh").read_text().splitlines()
    assert parse_pharaoh(consensus[line]) == parse_pharaoh(GOOD)
    confidences = (tmp_path / "consensus-confidence.txt").read_text().splitlines()[line]
    assert "0-0:1.000" in confidences.split() and "1x2:0.091" in confidences.split()
    weights = (tmp_path / "annotator-weights.tsv").read_text().splitlines()
    assert weights[0] == "annotator\tweight\tagreement_f1\ttrial_f1"
    rows = {row.split("\t")[0]: row.split("\t")[1:] for row in weights[1:]}
    # Named as the research export and the agreement tables name them, never by username.
    assert rows[good.worker.label] == ["1.000", "", "1.000"]
    assert rows[bad[0].worker.label] == ["0.050", "", "0.000"]
    assert str(good.worker) not in rows
    # The individual alignments are still there, as before.
    assert (tmp_path / "alignment-1.pharaoh").exists()


@pytest.mark.parametrize("alignment_format", ["edinburgh", "multimwa"])
def test_the_research_export_writes_the_consensus_in_the_alignments_format(
    tmp_path, outvoted, alignment_format
):
    good, bad = outvoted
    call_command(
        *("export_corpus", str(tmp_path), "--format", alignment_format, "--no-progress"),
        stdout=StringIO(),
    )
    names = {path.name for path in tmp_path.iterdir()}
    assert {"consensus-confidence.txt", "annotator-weights.tsv"} <= names
    if alignment_format == "edinburgh":
        assert {"consensus.sure.json", "consensus.sure+poss.json"} <= names
        assert json.loads((tmp_path / "consensus.sure.json").read_text())[0]
    else:
        assert "consensus.tsv" in names
    # The research export names workers by their export label, never a username.
    annotators = [row.split("\t")[0] for row in (tmp_path / "annotator-weights.tsv").open()]
    assert f"local-{good.worker_id}" in annotators and str(good.worker) not in annotators


@pytest.mark.parametrize("pairs", [1, 3])
def test_the_review_page_takes_the_same_queries_however_many_pairs_it_shows(
    client, django_assert_num_queries, pairs
):
    for number in range(pairs):
        pair = store_pair(f"task:{number}")
        Hit.objects.filter(item_id=pair.item_id).update(max_assignments=3)
    for _ in range(3):
        worker = make_worker()
        for _ in range(pairs):
            submit(worker, GOOD)
    client.force_login(make_staff())
    # The user, how many alignments wait (for the pages), the page of them, every alignment
    # of their pairs, the agreement table, the trial answers.
    with django_assert_num_queries(6):
        page = client.get(reverse("review_pages:alignments")).content.decode()
    assert page.count('class="consensus"') == 3 * pairs
