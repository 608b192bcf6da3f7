"""Spreadsheet formulas and input that is not text never get into the corpus or its exports."""

import csv
from io import StringIO

import pytest
from django.core.management import call_command
from django.urls import reverse

from collector.corpus_formats import read_corpus
from collector.corpus_import import corpus_import
from collector.models import Description
from crowd import services as crowd
from crowd.models import Tier
from tests.factories import make_description, make_segment, make_worker

pytestmark = pytest.mark.django_db

FORMULAS = ['=HYPERLINK("http://evil.example","click")', "@SUM(A1:A9)", "+1 dog runs.", "-2+3"]


@pytest.fixture
def task(client):
    worker = make_worker()
    client.force_login(worker.user)
    make_segment()
    return crowd.assignment_claim(worker=worker, tier=Tier.ONE)


@pytest.mark.parametrize("text", [*FORMULAS, "  =1+1 a man runs.", "\t=cmd"])
def test_a_description_starting_like_a_formula_is_refused_as_not_a_sentence(client, task, text):
    response = client.post(
        reverse("collector:describe", args=[task.pk]), {"text": text, "language": "en"}
    )
    assert response.status_code == 200
    assert "Start your sentence with a word" in response.content.decode()
    assert not Description.objects.exists()


def test_a_description_may_hold_those_marks_inside_it(client, task):
    text = "A man adds 2+2 = 4 on a board @ school - slowly."
    client.post(reverse("collector:describe", args=[task.pk]), {"text": text, "language": "en"})
    assert Description.objects.get().text == text


def test_import_skips_descriptions_starting_like_a_formula_and_says_why(tmp_path):
    corpus = tmp_path / "formulas.csv"
    corpus.write_text(
        "VideoID,Start,End,WorkerID,Source,AnnotationTime,Language,Description\n"
        'abcdefghijk,1,5,w1,clean,10,English,"=HYPERLINK(""http://evil.example"")"\n'
        "abcdefghijk,1,5,w2,clean,10,English,A man runs.\n",
        encoding="utf-8",
    )
    report = corpus_import(records=read_corpus(corpus, "msvd-csv"))
    assert [row.line for row in report.refused] == [2]
    assert "formula" in report.refused[0].reason
    assert list(Description.objects.values_list("text", flat=True)) == ["A man runs."]


def test_exports_for_spreadsheets_escape_formulas_stored_before_the_rule(tmp_path):
    segment = make_segment()
    for text in FORMULAS:
        make_description(segment, text)
    out = StringIO()
    call_command(
        "export_corpus",
        str(tmp_path / "c.csv"),
        "--format",
        "msvd-csv",
        "--no-progress",
        stdout=out,
    )
    call_command(
        "export_corpus", str(tmp_path / "p.tsv"), "--format", "pairs", "--no-progress", stdout=out
    )
    call_command(
        "export_corpus", str(tmp_path / "c.jsonl"), "--format", "jsonl", "--no-progress", stdout=out
    )

    with (tmp_path / "c.csv").open(encoding="utf-8", newline="") as file:
        cells = [cell for row in csv.reader(file) for cell in row]
    tsv = (tmp_path / "p.tsv").read_text(encoding="utf-8")
    cells += [cell for line in tsv.splitlines() for cell in line.split("\t")]
    assert not [cell for cell in cells if cell.startswith(("=", "+", "-", "@"))]
    assert "'=HYPERLINK" in tsv
    # Formats read by programs keep the text exactly as stored.
    assert '"=HYPERLINK(\\"http://evil.example\\",\\"click\\")"' in (
        tmp_path / "c.jsonl"
    ).read_text(encoding="utf-8")


def test_a_form_with_bytes_that_are_not_utf8_is_refused_and_nothing_stored(client, task):
    response = client.post(
        reverse("collector:describe", args=[task.pk]),
        b"text=A+man+runs+%FF%FE+fast.&language=en",
        content_type="application/x-www-form-urlencoded",
    )
    assert response.status_code == 400
    assert "not valid UTF-8" in response.content.decode()
    assert not Description.objects.exists()


@pytest.mark.parametrize("control", ["\x07", "\x1b[31m", "\x7f", "\x85"])
def test_a_form_with_control_characters_is_refused_and_nothing_stored(client, task, control):
    response = client.post(
        reverse("collector:describe", args=[task.pk]),
        {"text": f"A man runs{control} fast.", "language": "en"},
    )
    assert response.status_code == 400
    assert "control characters" in response.content.decode()
    assert not Description.objects.exists()


def test_line_breaks_and_tabs_in_a_comment_are_still_text(client, task):
    client.post(
        reverse("collector:describe", args=[task.pk]),
        {"text": "A man runs.", "language": "en", "comment": "Two\r\nlines\tand a tab."},
    )
    assert Description.objects.get().comment == "Two\r\nlines\tand a tab."
