"""How each description was typed, exported as its metadata in every format that carries
descriptions one by one (msvd-csv, jsonl, parquet, the API), after the format's own columns."""

import csv
import json
from io import StringIO

import pyarrow.parquet as pq
import pytest
from django.core.management import call_command
from django.urls import reverse
from rest_framework.test import APIClient

from collector.models import Description
from collector.provenance import TypingRecord
from research.exports.parquet import SCHEMA
from research.services import researcher_token_reset
from tests.factories import make_description, make_researcher, make_segment

pytestmark = pytest.mark.django_db

PASTED = "A man is playing a guitar on a stage."
UNRECORDED = "Someone strums a guitar."
TYPED = "A guitarist is playing."
RECORD = TypingRecord(
    key_presses=2,
    pastes=1,
    pasted_characters=len(PASTED),
    first_key_ms=8_000,
    writing_ms=0,
    focus_losses=1,
    background_ms=0,
    input_method_characters=0,
    prompt_copies=1,
    pastes_after_copy=1,
    inserted_without_keys=0,
    untrusted_events=0,
    webdriver=0,
    left_after_copy=1,
    key_intervals=1,
    key_interval_variation=0,
)
FIGURES = {
    "key_presses": 2,
    "pastes": 1,
    "pasted_characters": len(PASTED),
    "first_key_ms": 8000,
    "writing_ms": 0,
    "focus_losses": 1,
    "background_ms": 0,
    "input_method_characters": 0,
    "prompt_copies": 1,
    "pastes_after_copy": 1,
    "inserted_without_keys": 0,
    "untrusted_events": 0,
    "webdriver": 0,
    "left_after_copy": 1,
    "key_intervals": 1,
    "key_interval_variation": 0,
}


@pytest.fixture
def corpus():
    segment = make_segment()
    make_description(segment, PASTED, **Description.typing_values(RECORD, PASTED))
    make_description(segment, UNRECORDED)  # imported, or sent with scripts off
    typed = TypingRecord(len(TYPED), 0, 0, 3_000, 4_000, 0, 0)
    make_description(segment, TYPED, **Description.typing_values(typed, TYPED))
    return segment


def export(output, export_format):
    call_command(
        "export_corpus", str(output), "--format", export_format, "--no-progress", stdout=StringIO()
    )


def test_the_msvd_csv_appends_how_each_description_was_typed(tmp_path, corpus):
    export(tmp_path / "corpus.csv", "msvd-csv")
    with (tmp_path / "corpus.csv").open(newline="", encoding="utf-8") as file:
        rows = {row["Description"]: row for row in csv.DictReader(file)}
    assert list(rows[PASTED])[:8] == [
        "VideoID",
        "Start",
        "End",
        "WorkerID",
        "Source",
        "AnnotationTime",
        "Language",
        "Description",
    ]
    typing = {
        key: value for key, value in rows[PASTED].items() if key not in list(rows[PASTED])[:8]
    }
    assert typing == {
        "Typing": "pasted+copy_then_paste+left_after_copy",
        "KeyPresses": "2",
        "Pastes": "1",
        "PastedCharacters": str(len(PASTED)),
        "FirstKeyMs": "8000",
        "TypingMs": "0",
        "FocusLosses": "1",
        "BackgroundMs": "0",
        "InputMethodCharacters": "0",
        "PromptCopies": "1",
        "PastesAfterCopy": "1",
        "InsertedWithoutKeys": "0",
        "UntrustedEvents": "0",
        "Webdriver": "0",
        "LeftAfterCopy": "1",
        "KeyIntervals": "1",
        "KeyIntervalVariation": "0",
    }
    assert rows[UNRECORDED]["Typing"] == "unknown" and rows[UNRECORDED]["KeyPresses"] == ""
    assert rows[TYPED]["Typing"] == "clean" and rows[TYPED]["KeyPresses"] == str(len(TYPED))


def test_jsonl_gives_each_description_its_typing_object(tmp_path, corpus):
    export(tmp_path / "clusters.jsonl", "jsonl")
    (cluster,) = [json.loads(line) for line in (tmp_path / "clusters.jsonl").open()]
    typing = {d["text"]: d["typing"] for d in cluster["descriptions"]}
    assert typing[PASTED] == {"signals": "pasted+copy_then_paste+left_after_copy", **FIGURES}
    assert typing[UNRECORDED] == {"signals": "unknown", **dict.fromkeys(FIGURES)}
    assert typing[TYPED]["signals"] == "clean"


def test_the_splits_test_file_gives_each_source_how_it_was_typed(tmp_path, corpus):
    call_command(
        "export_corpus",
        str(tmp_path / "split"),
        "--format",
        "split",
        "--test-fraction",
        "0.999999",  # every video in test
        "--no-progress",
        stdout=StringIO(),
    )
    lines = (tmp_path / "split" / "test.jsonl").read_text(encoding="utf-8").splitlines()
    typing = {record["source"]: record["typing"] for record in map(json.loads, lines)}
    assert typing[PASTED] == {"signals": "pasted+copy_then_paste+left_after_copy", **FIGURES}
    assert typing[UNRECORDED]["signals"] == "unknown"


def test_parquet_appends_typing_columns_after_the_existing_ones(tmp_path, corpus):
    export(tmp_path / "parquet", "parquet")
    rows = {
        row["text"]: row
        for path in (tmp_path / "parquet" / "data").glob("*.parquet")
        for row in pq.read_table(path).to_pylist()
    }
    assert SCHEMA.names.index("cluster_size") < SCHEMA.names.index("typing")
    appended = ["typing", *(f"typing_{name}" for name in FIGURES)]
    assert SCHEMA.names[-len(appended) :] == appended
    assert rows[PASTED]["cluster_size"] == 3
    assert rows[TYPED]["typing"] == "clean"
    assert rows[PASTED]["typing"] == "pasted+copy_then_paste+left_after_copy"
    assert {name: rows[PASTED][f"typing_{name}"] for name in FIGURES} == FIGURES
    assert rows[UNRECORDED]["typing"] == "unknown"
    assert rows[UNRECORDED]["typing_key_presses"] is None
    card = (tmp_path / "parquet" / "README.md").read_text()
    assert "| `typing` | string | how the text came into its box" in card


def test_the_api_gives_each_description_its_typing_object(corpus):
    api = APIClient()
    token = researcher_token_reset(user=make_researcher()).key
    api.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    body = api.get(reverse("research-api:clusters")).json()
    typing = {d["text"]: d["typing"] for d in body["results"][0]["descriptions"]}
    assert typing[PASTED] == {"signals": "pasted+copy_then_paste+left_after_copy", **FIGURES}
    assert typing[UNRECORDED]["signals"] == "unknown"
