"""The weighted consensus of a rating batch: judges' reliability and items' consensus on the
batch page and as CSV, and who may see them."""

import csv
import io
import re

import pytest
from django.urls import reverse

from crowd import services as crowd
from crowd.models import HitType, Tier
from research.ratings.consensus import batch_consensus
from research.ratings.services import rating_submit
from tests.factories import make_researcher, make_staff, make_worker
from tests.research.ratings import make_batch

pytestmark = pytest.mark.django_db

FORMULA = '=HYPERLINK("http://x")'
# What careful judges say of each item (semantic, dissimilarity, overall).
TRUE = [(4, 1, 1), (3, 2, 2), (2, 3, 3), (1, 4, 4)] * 2


def rate_all(worker, opinion):
    """``worker`` rates every item offered to them, saying ``opinion(true values)``."""
    while assignment := crowd.assignment_claim(
        worker=worker, tier=Tier.ONE, kind=HitType.Kind.RATING
    ):
        item = assignment.hit.item.ratingitem
        values = opinion(TRUE[int(item.candidate.split()[-1])])
        rating_submit(
            assignment_id=assignment.pk,
            worker=worker,
            values=dict(zip(("semantic", "dissimilarity", "overall"), values, strict=True)),
        )


@pytest.fixture
def judged():
    """Eight items, each rated by two careful judges and one who says the opposite."""
    pairs = [("<b>A man</b> plays." if n == 0 else FORMULA, f"candidate {n}") for n in range(8)]
    batch = make_batch(pairs=pairs, judges=3)
    careful = [make_worker(), make_worker()]
    contrary = make_worker()
    for worker in careful:
        rate_all(worker, lambda values: values)
    rate_all(contrary, lambda values: tuple(5 - v for v in values))
    return batch, careful, contrary


def test_the_contrary_judge_is_found_least_reliable_and_outweighed(judged):
    batch, careful, contrary = judged
    consensus = batch_consensus(batch)
    assert [row["judge"] for row in consensus.judges][0] == f"local-{contrary.pk}"
    reliability = {row["judge"]: row["reliability"]["overall"] for row in consensus.judges}
    # (Two items per rating are little evidence: the prior keeps everyone off 0 and 1.)
    assert reliability[f"local-{contrary.pk}"] < 0.5
    assert all(reliability[f"local-{w.pk}"] > 0.6 for w in careful)
    for row in consensus.items:
        truth = TRUE[row.item_id - consensus.items[0].item_id]
        assert row.most_likely == dict(
            zip(("semantic", "dissimilarity", "overall"), truth, strict=True)
        )
        # The plain mean is pulled a third of the way towards the contrary judge.
        assert abs(row.consensus["overall"] - truth[2]) < abs(row.mean["overall"] - truth[2])


def test_a_batch_nobody_rated_has_no_consensus_yet():
    assert batch_consensus(make_batch()) is None


def test_the_batch_page_shows_reliabilities_and_departing_items_escaped(client, judged):
    batch, _, contrary = judged
    client.force_login(make_researcher())
    page = client.get(reverse("research:rating_batch", args=[batch.pk])).content.decode()
    assert 'id="judge-reliability"' in page and 'id="consensus-items"' in page
    table = page.split('id="judge-reliability"')[1].split("</table>")[0]
    # The contrary judge comes first: least reliable.
    assert re.findall(r'<th scope="row">(local-\d+)</th>', table)[0] == f"local-{contrary.pk}"
    assert "&lt;b&gt;A man&lt;/b&gt;" in page and "<b>A man</b>" not in page


def test_the_batch_page_says_when_nobody_has_rated_yet(client):
    batch = make_batch()
    client.force_login(make_researcher())
    page = client.get(reverse("research:rating_batch", args=[batch.pk])).content.decode()
    assert 'id="consensus-heading"' in page and 'id="judge-reliability"' not in page


def test_the_consensus_csv_is_for_researchers_and_staff(client, judged):
    batch, _, _ = judged
    url = reverse("research:rating_batch_consensus_csv", args=[batch.pk])
    assert client.get(url).status_code == 302  # to log in
    client.force_login(make_worker().user)
    assert client.get(url).status_code == 403
    client.force_login(make_staff())
    assert client.get(url).status_code == 200
    assert (
        client.get(reverse("research:rating_batch_consensus_csv", args=[999999])).status_code == 404
    )


def test_the_consensus_csv_has_one_row_per_item_and_formulas_are_escaped(client, judged):
    batch, _, _ = judged
    client.force_login(make_researcher())
    response = client.get(reverse("research:rating_batch_consensus_csv", args=[batch.pk]))
    rows = list(csv.reader(io.StringIO(b"".join(response.streaming_content).decode())))
    assert rows[0][:6] == [
        "item",
        "source",
        "candidate",
        "semantic_mean",
        "semantic_consensus",
        "semantic_most_likely",
    ]
    assert len(rows) == 1 + 8
    assert rows[2][1] == "'" + FORMULA
    # Item 1 is truly 3 / 2 / 2: the mean of 3, 3 and 2 is 2.6667; the consensus is near 3.
    assert rows[2][3] == "2.6667" and float(rows[2][4]) > 2.9 and rows[2][5] == "3"
