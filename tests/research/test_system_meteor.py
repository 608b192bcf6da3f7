"""The METEOR-style score in system scoring: the site's tuned parameters and table, named in
its signature; as a command and as an API call."""

from io import StringIO

import pytest
from django.core.management import call_command
from rest_framework.test import APIClient

from paracrowd_metrics.meteor import Meteor, MeteorParameters, ParaphraseTable
from research.splits import SplitOptions
from scoring.services import meteor_setting_store
from tests.factories import make_description, make_researcher, make_segment
from tests.research.system_jobs import only_system

pytestmark = pytest.mark.django_db

SEED = 5
TUNED = MeteorParameters(alpha=0.5, beta=1.0, gamma=0.2, paraphrase=0.9)


@pytest.fixture
def cluster():
    """The sources of one test-split segment."""
    while True:
        segment = make_segment()
        sources = [f"a guy is cutting tomato {segment.pk}", f"a woman slices tomato {segment.pk}"]
        for text in sources:
            make_description(segment, text)
        if SplitOptions(seed=SEED).side_of_segment(segment) == "test":
            return sources


@pytest.fixture
def table(tmp_path):
    table = ParaphraseTable()
    table.add("is cutting", "slices", 0.5)
    table.save(tmp_path / "table.gz")
    return table, tmp_path / "table.gz"


def score(pairs):
    client = APIClient()
    client.force_authenticate(make_researcher())
    return only_system(client, {"pairs": pairs, "seed": SEED, "per_pair": True})


def test_without_stored_parameters_the_papers_defaults_score_without_a_table(cluster):
    body = score([{"source": cluster[0], "output": "a man slices a tomato"}])
    expected = Meteor().score("a man slices a tomato", cluster[1:])
    assert body["scores"][0]["meteor"] == pytest.approx(expected)
    assert body["meteor"] == pytest.approx(expected)
    assert "para:none|a:0.75,b:0.6,g:0.35" in body["meteor_signature"]


def test_the_stored_parameters_and_table_score_and_are_named(cluster, table):
    table, path = table
    meteor_setting_store(
        parameters=TUNED,
        table_path=str(path),
        table_checksum=table.checksum(),
        ratings=10,
        held_out_correlation=0.5,
    )
    body = score([{"source": cluster[1], "output": f"a guy slices tomato {cluster[0][-3:]}"}])
    expected = Meteor(paraphrases=table, parameters=TUNED).score(
        f"a guy slices tomato {cluster[0][-3:]}", cluster[:1]
    )
    assert body["meteor"] == pytest.approx(expected)
    assert f"para:{table.checksum()}|{TUNED.signature_fields()}" in body["meteor_signature"]


def test_a_table_changed_since_tuning_is_left_out_and_the_signature_says_so(cluster, table):
    table, path = table
    meteor_setting_store(
        parameters=TUNED,
        table_path=str(path),
        table_checksum="0" * 12,
        ratings=3,
        held_out_correlation=None,
    )
    out = StringIO()
    pairs = path.parent / "system.tsv"
    pairs.write_text(f"source\toutput\n{cluster[0]}\ta man slices a tomato\n", encoding="utf-8")
    call_command("score_system", pairs, "--seed", str(SEED), stdout=out)
    text = out.getvalue()
    assert "METEOR-style (mean, against each source's cluster): " in text
    assert "para:none" in text and "changed since tuning" in text
