"""The Parquet export read back: values byte for byte, missing scores as nulls, and clusters
counted while the rows stream, wherever the reading blocks happen to cut them."""

from collections import Counter
from io import StringIO

import pyarrow.parquet as pq
import pytest
from django.core.management import call_command

from collector.models import Description
from research.destinations import Destination
from research.exports import ExportOptions, corpus_export, parquet
from research.splits import SplitOptions
from scoring.models import DescriptionScore
from tests.factories import make_description, make_segment

pytestmark = pytest.mark.django_db

AWKWARD_TEXTS = [
    'Commas, "quotes", and ""doubled"" quotes',
    "A line break\nand a CRLF\r\nand a lone CR\r",
    "Ünïcödé: 犬がボールを追いかける, ‏כלב רץ‏, e\u0301 combining",
    "Emoji 🐕‍🦺 and 🏃🏽‍♀️ beyond the BMP, a \u2028line separator",
    "NULL",
    "\\N",
    '""',
    " ,\t, ",
]


def export(path, *args) -> None:
    call_command(
        "export_corpus", str(path), "--format", "parquet", "--no-progress", *args, stdout=StringIO()
    )


def read_rows(folder) -> list[dict]:
    rows = []
    for path in sorted((folder / "data").glob("*.parquet")):
        rows += pq.read_table(path).to_pylist()
    return rows


def test_awkward_text_comes_back_byte_for_byte(tmp_path):
    segment = make_segment()
    for text in AWKWARD_TEXTS:
        make_description(segment, text, language="ja")

    export(tmp_path / "parquet", "--test-fraction", "0")

    rows = read_rows(tmp_path / "parquet")
    stored = dict(Description.objects.values_list("pk", "text"))
    assert [row["text"].encode() for row in rows] == [
        stored[row["description_id"]].encode() for row in rows
    ]
    assert sorted(stored.values()) == sorted(AWKWARD_TEXTS)
    assert {row["cluster_size"] for row in rows} == {len(AWKWARD_TEXTS)}


def test_missing_scores_come_back_as_nulls_and_stored_ones_exactly(tmp_path):
    segment = make_segment()
    unscored = make_description(segment, "Not scored yet.")
    alone = make_description(segment, "Scored with nothing to compare.")
    scored = make_description(segment, "Scored.")
    DescriptionScore.objects.create(description=alone, bleu=None, pinc=None, references=0)
    DescriptionScore.objects.create(
        description=scored, bleu=12.345678901234567, pinc=0.1 + 0.2, references=2
    )

    export(tmp_path / "parquet", "--test-fraction", "0")

    rows = {row["description_id"]: row for row in read_rows(tmp_path / "parquet")}
    scores = ("bleu", "pinc", "references")
    assert [rows[unscored.pk][name] for name in scores] == [None, None, None]
    assert [rows[alone.pk][name] for name in scores] == [None, None, 0]
    assert [rows[scored.pk][name] for name in scores] == [12.345678901234567, 0.1 + 0.2, 2]


@pytest.fixture
def clusters():
    """Clusters of many sizes over several videos and two languages, each row long enough that
    a small reading block cuts clusters (and holds less than the largest one)."""
    padding = "and so on, " * 12
    for n in range(12):
        segment = make_segment(youtube_id=f"vid{n % 5:08d}", start=n, end=n + 4)
        for k in range(1 + (7 * n) % 13):
            make_description(segment, f"Sentence {k} of {n}, {padding}.", language="en")
        if n % 3 == 0:
            make_description(segment, f"Satz {n}.", language="de")
    make_description(make_segment(youtube_id="vid_alone1"), "One alone.")


def exported(folder) -> tuple:
    """The report, the rows and the dataset card of an export to ``folder``."""
    report = corpus_export(
        destination=Destination(folder),
        options=ExportOptions(format="parquet", test_fraction=0.4, dev_fraction=0.3, seed=4),
    )
    return report, read_rows(folder), (folder / "README.md").read_text(encoding="utf-8")


def test_clusters_cut_between_reading_blocks_keep_their_size_side_and_counts(
    tmp_path, clusters, monkeypatch
):
    whole_report, whole_rows, whole_card = exported(tmp_path / "whole")
    monkeypatch.setattr(parquet, "PIPE_BUFFER", 512)  # a few rows a block
    cut_report, cut_rows, cut_card = exported(tmp_path / "cut")

    assert cut_rows == whole_rows
    assert cut_card == whole_card
    assert cut_report.public_split_sizes() == whole_report.public_split_sizes()
    # And what the stream counted is what the database holds.
    descriptions = Description.objects.select_related("segment")
    sizes = Counter((d.segment_id, d.language) for d in descriptions)
    assert len(cut_rows) == descriptions.count() == cut_report.descriptions
    assert cut_report.clusters == len(sizes)
    for row in cut_rows:
        assert row["cluster_size"] == sizes[row["segment_id"], row["language"]]
    split = SplitOptions(seed=4, test_fraction=0.4, dev_fraction=0.3)
    segments = {d.segment_id: d.segment for d in descriptions}
    expected = {}
    for (segment_id, _), size in sizes.items():
        side = split.side_of_segment(segments[segment_id])
        expected.setdefault(side, Counter()).update(clusters=1, descriptions=size)
    assert {
        side: {"clusters": s["clusters"], "descriptions": s["descriptions"]}
        for side, s in cut_report.public_split_sizes().items()
    } == {side: dict(counts) for side, counts in sorted(expected.items())}
    assert len(expected) == 3  # this seed puts videos on every side
