"""Exports that PostgreSQL formats and writes (COPY): the same bytes the Python writers wrote,
for every awkward value, and nothing a spreadsheet would run."""

from datetime import timedelta
from io import StringIO

import pyarrow.parquet as pq
import pytest
from django.core.management import call_command
from django.db import transaction
from django.db.models import F
from hypothesis import given, settings
from hypothesis import strategies as st
from psycopg2.errors import DivisionByZero

from collector.models import Description
from crowd.models import Tier, Worker
from paracrowd.spreadsheets import spreadsheet_cell, spreadsheet_cell_sql
from research.exports import parquet
from research.exports.database_copy import query_sql
from research.exports.text import TYPING_CSV_COLUMNS, tsv_field, tsv_field_sql
from research.selection import CorpusFilter
from tests.factories import make_description, make_segment, make_worker

pytestmark = pytest.mark.django_db


def export(path, export_format, *args) -> bytes:
    call_command(
        "export_corpus",
        str(path),
        "--format",
        export_format,
        "--no-progress",
        *args,
        stdout=StringIO(),
    )
    return path.read_bytes() if path.is_file() else b""


def imported_worker(external_id: str) -> Worker:
    worker = make_worker()
    Worker.objects.filter(pk=worker.pk).update(
        platform=Worker.Platform.IMPORT, external_id=external_id
    )
    return worker


@pytest.fixture
def awkward():
    """Descriptions whose every cell needs care: quotes, commas, line breaks, backslashes,
    formulas, missing values, exact times."""
    segment = make_segment(start="3.25", end="10.10")
    other = make_segment(start=0, end=9)
    local = make_worker(tier=Tier.TWO)
    rows = [
        (
            segment,
            'A dog, a "very" good one,\njumps.',
            local,
            Tier.TWO,
            "en",
            timedelta(seconds=12, microseconds=345678),
        ),
        (
            segment,
            '=HYPERLINK("http://evil.example")',
            imported_worker("=cmd|' /C calc'!A0"),
            Tier.ONE,
            "en",
            timedelta(seconds=5, microseconds=100000),
        ),
        (segment, "  +1 spaces first", imported_worker('a,b "c"'), None, "en", None),
        (
            segment,
            "\tA tab first;\r\nthen CRLF\rand CR",
            None,
            Tier.ONE,
            "en",
            timedelta(days=1, seconds=3),
        ),
        (
            segment,
            "A back\\slash, \\N and \\. and a \x0bvertical tab",
            local,
            Tier.TWO,
            "en",
            timedelta(0),
        ),
        (segment, "-minus first", local, Tier.TWO, "zh", timedelta(microseconds=1)),
        (segment, "Ein Hund.", local, Tier.ONE, "=de", timedelta(seconds=7)),
        (other, "@at first", None, None, "xx,yy", timedelta(seconds=1, microseconds=500)),
        (other, "A plain line.", local, Tier.ONE, "xx,yy", timedelta(seconds=30)),
    ]
    for seg, text, worker, tier, language, time_spent in rows:
        make_description(
            seg, text, worker=worker, tier=tier, language=language, time_spent=time_spent
        )
    return {"segment": segment, "other": other, "local": local}


def test_the_msvd_csv_writes_every_awkward_value_as_pythons_csv_writer_did(tmp_path, awkward):
    body = export(tmp_path / "corpus.csv", "msvd-csv").decode()

    video = awkward["segment"].youtube_id
    other = awkward["other"].youtube_id
    local = f"local-{awkward['local'].pk}"
    # How each was typed comes after the MSVD columns: none of these has a record.
    typing = "," + ",".join(TYPING_CSV_COLUMNS)
    unknown = ",unknown" + "," * (len(TYPING_CSV_COLUMNS) - 1) + "\r\n"
    assert body.count(unknown) == 9
    assert body.replace(typing, "", 1).replace(unknown, "\r\n") == (
        "VideoID,Start,End,WorkerID,Source,AnnotationTime,Language,Description\r\n"
        f"{video},3.25,10.1,{local},unverified,7,'=de,Ein Hund.\r\n"
        f"{video},3.25,10.1,{local},clean,12.345678,English,"
        '"A dog, a ""very"" good one,\njumps."\r\n'
        f"{video},3.25,10.1,'=cmd|' /C calc'!A0,unverified,5.1,English,"
        '"\'=HYPERLINK(""http://evil.example"")"\r\n'
        f'{video},3.25,10.1,"a,b ""c""",unverified,,English,\'  +1 spaces first\r\n'
        f'{video},3.25,10.1,,unverified,86403,English,"\'\tA tab first;\r\nthen CRLF\rand CR"\r\n'
        f"{video},3.25,10.1,{local},clean,0,English,"
        '"A back\\slash, \\N and \\. and a \x0bvertical tab"\r\n'
        f"{video},3.25,10.1,{local},clean,0.000001,Chinese,'-minus first\r\n"
        f'{other},0,9,,unverified,1.0005,"xx,yy",\'@at first\r\n'
        f'{other},0,9,{local},unverified,30,"xx,yy",A plain line.\r\n'
    )


def test_all_pairs_come_out_as_the_per_cluster_writer_wrote_them(tmp_path, awkward):
    body = export(tmp_path / "pairs.tsv", "pairs").decode()

    english = [
        'A dog, a "very" good one, jumps.',
        '\'=HYPERLINK("http://evil.example")',
        "'  +1 spaces first",
        " A tab first; then CRLF and CR",
        "A back\\slash, \\N and \\. and a \x0bvertical tab",
    ]
    segment, other = awkward["segment"].pk, awkward["other"].pk
    expected = ["source\tparaphrase\tsegment_id\tlanguage"]
    expected += [
        f"{a}\t{b}\t{segment}\ten"
        for i, a in enumerate(english)
        for j, b in enumerate(english)
        if i != j
    ]
    expected += [
        f"'@at first\tA plain line.\t{other}\txx,yy",
        f"A plain line.\t'@at first\t{other}\txx,yy",
    ]
    assert body == "\n".join(expected) + "\n"


def test_formula_escaping_in_sql_is_the_python_rule(awkward):
    rows = Description.objects.annotate(
        cell=spreadsheet_cell_sql(F("text")), tsv=tsv_field_sql(F("text"))
    ).values_list("text", "cell", "tsv")

    for text, cell, tsv in rows:
        assert (cell, tsv) == (spreadsheet_cell(text), tsv_field(text))


# Text PostgreSQL can store (no NUL), weighted to the characters the rule is about.
CELL_TEXT = st.text(
    alphabet=st.sampled_from(
        [" ", "=", "+", "-", "@", "\t", "\r", "\n", "a", "'", "\\", "é", "\x0b"]
    )
    | st.characters(blacklist_characters="\x00", blacklist_categories=("Cs",)),
    max_size=8,
)


@settings(max_examples=60, deadline=None)
@given(texts=st.lists(CELL_TEXT, min_size=1, max_size=20))
def test_formula_escaping_in_sql_agrees_with_python_on_any_text(texts):
    segment = make_segment()
    for text in texts:
        make_description(segment, text)
    rows = Description.objects.filter(segment=segment).annotate(
        cell=spreadsheet_cell_sql(F("text")), tsv=tsv_field_sql(F("text"))
    )
    for text, cell, tsv in rows.values_list("text", "cell", "tsv"):
        assert (cell, tsv) == (spreadsheet_cell(text), tsv_field(text))


def test_parquet_holds_every_awkward_value_exactly_as_stored(tmp_path, awkward):
    export(tmp_path / "parquet", "parquet", "--test-fraction", "0")

    table = pq.read_table(tmp_path / "parquet" / "data" / "train-00000.parquet")
    rows = {row["description_id"]: row for row in table.to_pylist()}
    for description in Description.objects.select_related("segment"):
        row = rows[description.pk]
        assert row["text"] == description.text
        assert row["language"] == description.language
        assert row["tier"] == description.tier
        assert row["start"] == float(description.segment.start)
        assert row["created_at"] == description.created_at
        if description.time_spent is None:
            assert row["time_spent"] is None
        else:
            assert row["time_spent"] == description.time_spent.total_seconds()
    # Formats read by programs keep every value as stored, a formula-like one too.
    assert {row["worker"] for row in rows.values()} >= {"", "=cmd|' /C calc'!A0"}
    assert [row["cluster_size"] for row in table.to_pylist()][:3] == [1, 5, 5]


def test_an_empty_parquet_export_is_an_empty_train_table(tmp_path):
    export(tmp_path / "parquet", "parquet")

    assert pq.read_table(tmp_path / "parquet" / "data" / "train-00000.parquet").num_rows == 0


def test_a_database_error_while_streaming_parquet_is_the_error_raised(awkward):
    rows = CorpusFilter().rows(parquet.FIELDS, **parquet.EXPRESSIONS)
    failing = query_sql(rows).replace("SELECT", "SELECT 1 / 0 AS broken,", 1)

    # Raised from COPY's thread, rather than Arrow's complaint about the CSV that stopped short.
    with pytest.raises(DivisionByZero), transaction.atomic():
        list(parquet._copy_batches(failing))
    assert Description.objects.count() == 9  # and the connection still works
