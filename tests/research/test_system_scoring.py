"""Scoring a researcher's paraphrase system on the test split: BLEU against the source's cluster,
PINC against the source, PINC × sigmoid(BLEU); as a command and as an API call."""

import json
from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.urls import reverse
from rest_framework.test import APIClient

import paracrowd_metrics as metrics
from paracrowd_metrics.meteor import ParaphraseTable
from research.splits import SplitOptions
from tests.factories import make_description, make_researcher, make_segment
from tests.research.system_jobs import only_system, post_and_run

pytestmark = pytest.mark.django_db

SEED = 5


@pytest.fixture
def corpus():
    """Segments of three descriptions, until at least two are in the test split (ids, and so
    the split, differ from run to run); returns (test segments, training segments)."""
    test, train = [], []
    while len(test) < 2 or len(train) < 2:
        segment = make_segment()
        for n in range(3):
            make_description(segment, f"A person does thing {segment.pk} in way {n}.")
        (test if SplitOptions(seed=SEED).side_of_segment(segment) == "test" else train).append(
            segment
        )
    return test, train


def expected(source: str, output: str, references: list[str]) -> tuple[float, float]:
    return metrics.sentence_bleu(output, references), metrics.pinc(source, output)


def test_the_command_scores_outputs_against_the_cluster_and_the_source(tmp_path, corpus):
    test, _ = corpus
    segment = test[0]
    sources = [f"A person does thing {segment.pk} in way {n}." for n in range(3)]
    outputs = [f"Someone does thing {segment.pk} in another way.", sources[1], "Unrelated."]
    pairs = tmp_path / "system.tsv"
    pairs.write_text(
        "source\toutput\n" + "".join(f"{s}\t{o}\n" for s, o in zip(sources, outputs, strict=True)),
        encoding="utf-8",
    )
    out = StringIO()

    call_command(
        "score_system",
        pairs,
        "--seed",
        str(SEED),
        "--centre",
        "30",
        "--slope",
        "0.5",
        "--per-pair",
        tmp_path / "scores.tsv",
        stdout=out,
    )

    scores = [
        expected(source, output, [s for s in sources if s != source])
        for source, output in zip(sources, outputs, strict=True)
    ]
    bleu = metrics.corpus_bleu(outputs, [[s for s in sources if s != source] for source in sources])
    mean_pinc = sum(p for _, p in scores) / 3
    combined = sum(metrics.combined(b, p, centre=30, slope=0.5) for b, p in scores) / 3
    text = out.getvalue()
    assert "Pairs: 3, scored: 3" in text
    assert f"BLEU (corpus, against each source's cluster): {bleu:.2f}" in text
    assert f"PINC (mean, against the source): {mean_pinc:.2f}" in text
    assert f"(mean; centre 30, slope 0.5): {combined:.2f}" in text
    assert "Warning: Small sample: 3 scored pairs. With fewer than 30," in text
    rows = (tmp_path / "scores.tsv").read_text().splitlines()
    assert rows[2].split("\t")[:4] == ["2", str(segment.pk), "en", "2"]
    assert float(rows[2].split("\t")[5]) == 0.0  # the output copies its source: nothing new


def test_sources_outside_the_test_split_are_reported_not_scored(tmp_path, corpus):
    _, train = corpus
    pairs = tmp_path / "system.tsv"
    pairs.write_text(
        f"A person does thing {train[0].pk} in way 0.\tAn output.\nNot in the corpus.\tOutput.\n",
        encoding="utf-8",
    )
    out = StringIO()

    call_command("score_system", pairs, "--seed", str(SEED), stdout=out)

    assert "Pairs: 2, scored: 0" in out.getvalue()
    assert "pair 1: the source's video is not in the test split (by video, seed 5" in out.getvalue()
    assert "pair 2: the source is not a description in the selection" in out.getvalue()


def test_a_sentence_written_for_two_test_segments_needs_its_segment_id(tmp_path, corpus):
    test, _ = corpus
    for segment in test[:2]:
        make_description(segment, "A common sentence.")
    pairs = tmp_path / "system.tsv"
    pairs.write_text(
        f"A common sentence.\tAn output.\nA common sentence.\tAn output.\t{test[1].pk}\n",
        encoding="utf-8",
    )
    out = StringIO()

    call_command("score_system", pairs, "--seed", str(SEED), stdout=out)

    assert "pair 1: the source is in 2 test clusters; give its segment_id" in out.getvalue()
    assert "Pairs: 2, scored: 1" in out.getvalue()


def test_a_malformed_pairs_file_stops_the_command_with_its_line(tmp_path):
    pairs = tmp_path / "system.tsv"
    pairs.write_text("one column only\n", encoding="utf-8")

    with pytest.raises(CommandError, match="system.tsv:1: expected source"):
        call_command("score_system", pairs)


def test_the_api_scores_a_system_the_same_way(corpus):
    test, _ = corpus
    segment = test[0]
    source = f"A person does thing {segment.pk} in way 0."
    references = [f"A person does thing {segment.pk} in way {n}." for n in (1, 2)]
    api = APIClient()
    api.force_authenticate(make_researcher())

    body = only_system(
        api,
        {
            "pairs": [{"source": source, "output": "A person does a thing."}],
            "seed": SEED,
            "per_pair": True,
        },
    )

    bleu, pinc = expected(source, "A person does a thing.", references)
    assert (body["pairs"], body["scored"], body["unscored"]) == (1, 1, [])
    assert body["scores"][0]["bleu"] == pytest.approx(bleu)
    assert body["pinc"] == pytest.approx(pinc)
    assert body["bleu_signature"].startswith("nrefs:var|")
    too_many = [{"source": source, "output": "x"}] * 2001
    response = api.post(reverse("research-api:system-scores"), {"pairs": too_many}, format="json")
    assert response.status_code == 400 and "pairs" in response.json()


def test_a_job_over_the_work_limit_fails_with_the_reason_before_scoring(corpus, settings):
    test, _ = corpus
    segment = test[0]
    source = f"A person does thing {segment.pk} in way 0."
    api = APIClient()
    api.force_authenticate(make_researcher())
    # One pair: (output + source + two references) words, times BLEU's order of 4.
    output = "A person does a thing."
    one_pair = (5 + 8 + 8 + 8) * 4
    settings.SYSTEM_SCORE_WORK_LIMIT = one_pair * 3 - 1

    def post(count):
        pairs = [{"source": source, "output": output}] * count
        return post_and_run(api, {"pairs": pairs, "seed": SEED})

    assert post(2)["result"]["systems"][0]["scored"] == 2
    refused = post(3)
    assert refused["state"] == "failed" and refused["result"] is None
    assert f"{one_pair * 3:,} units of work" in refused["error"]
    assert "score_system" in refused["error"]


def test_the_command_has_no_work_limit(tmp_path, corpus, settings):
    settings.SYSTEM_SCORE_WORK_LIMIT = 1
    test, _ = corpus
    source = f"A person does thing {test[0].pk} in way 0."
    pairs = tmp_path / "system.tsv"
    pairs.write_text(f"source\toutput\n{source}\tA person does a thing.\n", encoding="utf-8")
    out = StringIO()
    call_command("score_system", str(pairs), "--seed", str(SEED), stdout=out)
    assert "scored: 1" in out.getvalue()


def test_paraphrase_carries_the_segment_of_test_jsonl_sources_so_every_one_is_scored(
    tmp_path, corpus
):
    test, _ = corpus
    for segment in test[:2]:
        make_description(segment, "A common sentence.")
    # Lines as the split export's test.jsonl writes them: the same text in two test clusters.
    (tmp_path / "test.jsonl").write_text(
        "".join(
            json.dumps({"segment_id": segment.pk, "language": "en", "source": "A common sentence."})
            + "\n"
            for segment in test[:2]
        ),
        encoding="utf-8",
    )
    table = ParaphraseTable()
    table.add("common", "usual", 0.5)
    table.save(tmp_path / "table.gz")
    outputs = StringIO()
    call_command(
        "paraphrase",
        "--sources",
        str(tmp_path / "test.jsonl"),
        "--table",
        str(tmp_path / "table.gz"),
        "--from-db",
        "--seed",
        str(SEED),
        stdout=outputs,
    )
    (tmp_path / "outputs.tsv").write_text(outputs.getvalue(), encoding="utf-8")
    out = StringIO()

    call_command("score_system", tmp_path / "outputs.tsv", "--seed", str(SEED), stdout=out)

    assert "source\toutput\tsegment_id" in outputs.getvalue().splitlines()
    assert "Pairs: 2, scored: 2" in out.getvalue()
