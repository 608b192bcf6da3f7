"""extract_paraphrases: a METEOR paraphrase table learned from the corpus's clusters."""

import json
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from annotations.models import Alignment, SentencePair
from paracrowd_metrics.meteor import ParaphraseTable
from tests.factories import make_description, make_segment

# Every side of the split: these clusters name no video (research.learning).
SMALL_CORPUS = ["--min-count", "1", "--common-frequency", "1", "--no-progress", "--splits", "all"]
CLUSTERS = [
    ("en", ["a guy slices a tomato", "a man slices a tomato", "the guy slices the tomato"]),
    ("en", ["a guy is running", "a man is running", "the man is running"]),
    ("de", ["ein mann läuft"]),
    ("en", ["a guy cooks", "a man cooks", "the man cooks"]),
]


def write_clusters(path, clusters=CLUSTERS):
    with path.open("w", encoding="utf-8") as file:
        for number, (language, texts) in enumerate(clusters):
            # The running clusters share a segment: the German one pivots through it.
            segment = {"id": min(number, 1) if number < 3 else number}
            record = {"segment": segment, "language": language, "descriptions": []}
            record["descriptions"] = [{"text": text, "worker": "w"} for text in texts]
            file.write(json.dumps(record, ensure_ascii=False) + "\n")


def extract(*args) -> str:
    out = StringIO()
    call_command("extract_paraphrases", *args, stdout=out, stderr=StringIO())
    return out.getvalue()


def test_a_table_is_learned_from_a_jsonl_cluster_export(tmp_path):
    write_clusters(tmp_path / "clusters.jsonl")
    output = extract(
        str(tmp_path / "clusters.jsonl"), "--output", str(tmp_path / "table.gz"), *SMALL_CORPUS
    )
    table = ParaphraseTable.load(tmp_path / "table.gz")
    assert ("man",) in table.paraphrases("guy")
    assert "Descriptions: 10 in 3 clusters" in output
    assert "pivot:de: 3 sentence pairs" in output
    assert f"checksum {table.checksum()}" in output


def test_a_malformed_line_is_named_and_no_table_is_written(tmp_path):
    write_clusters(tmp_path / "clusters.jsonl")
    with (tmp_path / "clusters.jsonl").open("a") as file:
        file.write('{"language": "en"}\n')
    with pytest.raises(CommandError, match=r"clusters.jsonl:5: not a cluster record"):
        extract(
            str(tmp_path / "clusters.jsonl"), "--output", str(tmp_path / "table.gz"), *SMALL_CORPUS
        )
    assert list(tmp_path.iterdir()) == [tmp_path / "clusters.jsonl"]


def test_it_needs_exactly_one_source_of_clusters(tmp_path):
    with pytest.raises(CommandError, match="either a CLUSTERS.jsonl file or --from-db"):
        extract("--output", str(tmp_path / "table.gz"))


def test_bad_settings_are_refused_before_any_work(tmp_path):
    write_clusters(tmp_path / "clusters.jsonl")
    with pytest.raises(CommandError, match="threshold must be between 0 and 1"):
        extract(str(tmp_path / "clusters.jsonl"), "--output", "t.gz", "--threshold", "3")


@pytest.mark.django_db
def test_the_stored_corpus_and_its_annotators_teach_the_table_through_an_export(tmp_path):
    for language, texts in CLUSTERS[:2]:
        segment = make_segment()
        for text in texts:
            make_description(segment, text, language=language)
    first, second = (make_description(make_segment(), text) for text in ("a guy", "a fellow"))
    pair = SentencePair.objects.create(
        origin=SentencePair.Origin.CLUSTER,
        description_a=first,
        description_b=second,
        tokens_a=["A", "guy"],
        tokens_b=["a", "fellow"],
    )
    Alignment.objects.create(pair=pair, annotator="A", links="0-0 1-1")

    output = extract("--from-db", "--output", str(tmp_path / "db.gz"), *SMALL_CORPUS)
    table = ParaphraseTable.load(tmp_path / "db.gz")
    assert "annotators: 1 sentence pairs" in output
    assert {("man",), ("fellow",)} <= set(table.paraphrases("guy"))

    call_command(
        "export_corpus",
        str(tmp_path / "c.jsonl.gz"),
        "--format",
        "jsonl",
        "--no-progress",
        stdout=StringIO(),
    )
    extract(str(tmp_path / "c.jsonl.gz"), "--output", str(tmp_path / "file.gz"), *SMALL_CORPUS)
    assert ("man",) in ParaphraseTable.load(tmp_path / "file.gz").paraphrases("guy")
