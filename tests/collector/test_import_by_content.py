"""import_corpus keys descriptions by content (segment, text, and worker where the file names
one), never by file name: an export imports back as nothing new, a known name with new
sentences adds them, repeated sentences keep their count, and two imports at once add once."""

import json
import threading
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command
from django.db import connection

from collector.corpus_formats import read_corpus
from collector.corpus_import import corpus_import
from collector.models import Description, Segment
from tests.factories import make_segment, make_worker

DATA = Path(__file__).parents[1] / "data"
JSON_FILE = DATA / "msvd_json_tiny.json"
CSV_FILE = DATA / "msvd_csv_tiny.csv"


def run(path, corpus_format="msvd-json") -> str:
    out = StringIO()
    call_command("import_corpus", str(path), "--format", corpus_format, stdout=out)
    return out.getvalue()


def write_json(path: Path, clusters: dict) -> Path:
    path.write_text(json.dumps(clusters), encoding="utf-8")
    return path


@pytest.mark.django_db
def test_reimporting_the_products_own_msvd_json_export_adds_nothing(tmp_path):
    run(JSON_FILE)
    run(CSV_FILE, "msvd-csv")
    stored = Description.objects.count()
    export = tmp_path / "corpus.json"
    call_command(
        "export_corpus", str(export), "--format", "msvd-json", "--no-progress", stdout=StringIO()
    )
    exported = sum(len(texts) for texts in json.loads(export.read_text()).values())
    assert exported > 0

    output = run(export)

    assert f"Descriptions: 0 added, {exported} already present" in output
    assert "Rows refused: 0" in output
    assert Description.objects.count() == stored


@pytest.mark.django_db
def test_reimporting_an_msvd_csv_export_of_the_sites_own_workers_adds_nothing(tmp_path):
    segment = make_segment()
    for text in ["A man cooks.", "A man cooks.", "Someone is cooking."]:
        Description.objects.create(
            segment=segment,
            worker=make_worker(),
            tier=1,
            text=text,
            language="en",
            status=Description.Status.ACCEPTED,
        )
    run(CSV_FILE, "msvd-csv")
    stored = Description.objects.count()
    export = tmp_path / "corpus.csv"
    call_command(
        "export_corpus", str(export), "--format", "msvd-csv", "--no-progress", stdout=StringIO()
    )

    output = run(export, "msvd-csv")

    assert "Descriptions: 0 added" in output and "Workers: " not in output
    assert Description.objects.count() == stored


@pytest.mark.django_db
def test_a_file_under_a_known_name_with_new_descriptions_adds_them(tmp_path):
    run(JSON_FILE)
    before = Description.objects.count()
    known_name = write_json(
        tmp_path / JSON_FILE.name,
        {"abcDEF12345_4_10": ["a man slices a tomato", "a cook dices a red tomato"]},
    )

    output = run(known_name)

    assert "Descriptions: 1 added, 1 already present" in output
    assert Description.objects.count() == before + 1
    assert Description.objects.filter(text="a cook dices a red tomato").count() == 1


@pytest.mark.django_db
def test_a_sentence_written_twice_for_a_segment_keeps_its_count(tmp_path):
    twice = write_json(tmp_path / "a.json", {"abcDEF12345_4_10": ["a man cooks"] * 2})
    thrice = write_json(tmp_path / "b.json", {"abcDEF12345_4_10": ["a man cooks"] * 3})

    assert "Descriptions: 2 added, 0 already present" in run(twice)
    assert "Descriptions: 0 added, 2 already present" in run(twice)
    assert "Descriptions: 1 added, 2 already present" in run(thrice)
    assert Description.objects.filter(text="a man cooks").count() == 3


@pytest.mark.django_db
def test_where_the_file_names_workers_the_same_text_by_another_worker_is_added(tmp_path):
    header = "VideoID,Start,End,WorkerID,Source,AnnotationTime,Language,Description\n"
    first = tmp_path / "first.csv"
    first.write_text(header + "abcDEF12345,4,10,w1,clean,20,English,A man cooks.\n")
    second = tmp_path / "second.csv"
    second.write_text(
        header
        + "abcDEF12345,4,10,w1,clean,20,English,A man cooks.\n"
        + "abcDEF12345,4,10,w2,clean,20,English,A man cooks.\n"
    )
    run(first, "msvd-csv")

    output = run(second, "msvd-csv")

    assert "Descriptions: 1 added, 1 already present" in output
    workers = Description.objects.values_list("worker__external_id", flat=True)
    assert sorted(workers) == ["w1", "w2"]


@pytest.mark.django_db
def test_refused_lines_are_counted_and_listed_with_line_and_reason():
    output = run(JSON_FILE)

    assert "Rows refused: 5" in output
    assert "msvd_json_tiny.json:9: the description is empty" in output


@pytest.mark.django_db(transaction=True)
def test_two_imports_of_one_file_at_once_add_each_description_once():
    barrier = threading.Barrier(2)
    reports, errors = [], []

    def load():
        try:
            records = list(read_corpus(JSON_FILE, "msvd-json"))
            barrier.wait()
            reports.append(corpus_import(records=records, batch_size=2))
        except Exception as error:  # surfaced by the assertion below
            errors.append(error)
        finally:
            connection.close()

    threads = [threading.Thread(target=load) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert errors == []
    assert sorted(report.descriptions_added for report in reports) == [0, 6]
    assert sorted(report.descriptions_present for report in reports) == [0, 6]
    assert Description.objects.count() == 6
    assert Segment.objects.count() == 3
