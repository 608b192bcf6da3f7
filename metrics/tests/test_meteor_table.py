"""Paraphrase tables in METEOR 1.5's file format."""

import gzip
import zlib

import pytest

from paracrowd_metrics.meteor import ParaphraseTable, TableFormatError, merge_tables
from paracrowd_metrics.meteor.table import header_comment

METEOR_TEXT = "0.5\nis cutting\nslices\n0.0432876\nguy\nman\n"


def small_table():
    table = ParaphraseTable()
    table.add("is cutting", "slices", 0.5)
    table.add("guy", "man", 0.0432876)
    table.add("guy", "person", 0.25)
    return table


def test_a_saved_table_loads_back_equal(tmp_path):
    table = small_table()
    table.save(tmp_path / "table.gz")
    loaded = ParaphraseTable.load(tmp_path / "table.gz")
    assert loaded == table
    assert len(loaded) == 3
    assert loaded.checksum() == table.checksum()


def test_saving_the_same_table_twice_gives_the_same_bytes(tmp_path):
    small_table().save(tmp_path / "one.gz")
    small_table().save(tmp_path / "two.gz")
    assert (tmp_path / "one.gz").read_bytes() == (tmp_path / "two.gz").read_bytes()


def test_the_file_is_gzip_text_of_three_lines_per_entry(tmp_path):
    small_table().save(tmp_path / "table.gz")
    lines = gzip.decompress((tmp_path / "table.gz").read_bytes()).decode().splitlines()
    assert lines == [
        "0.25",
        "guy",
        "person",
        "0.0432876",
        "guy",
        "man",
        "0.5",
        "is cutting",
        "slices",
    ]


def test_a_table_written_by_meteor_is_read(tmp_path):
    (tmp_path / "meteor.gz").write_bytes(gzip.compress(METEOR_TEXT.encode()))
    (tmp_path / "plain.txt").write_text(METEOR_TEXT)
    for name in ("meteor.gz", "plain.txt"):
        table = ParaphraseTable.load(tmp_path / name)
        assert table.paraphrases("is cutting") == {("slices",): 0.5}
        assert table.max_length == 2


@pytest.mark.parametrize(
    "text, message",
    [
        ("high\nguy\nman\n", "table:1: expected a probability, found 'high'"),
        ("0.5\nguy\nman\n1.5\na\nb\n", "table:4: probability 1.5 is not in"),
        ("0.5\n\nman\n", "table:2: empty phrase"),
        ("0.5\nguy\nman\n0.2\nboy\n", "table:4: the last entry has 2 of its 3 lines"),
    ],
)
def test_a_malformed_line_is_named_in_the_error(text, message):
    with pytest.raises(TableFormatError) as error:
        ParaphraseTable.parse(text.splitlines(keepends=True), name="table")
    assert message in str(error.value)


def test_a_file_that_is_not_a_table_is_refused_clearly(tmp_path):
    (tmp_path / "bad.gz").write_bytes(b"\x1f\x8b" + b"not really gzip")
    with pytest.raises(TableFormatError, match="not a readable paraphrase table"):
        ParaphraseTable.load(tmp_path / "bad.gz")


def test_a_phrase_never_paraphrases_itself():
    table = ParaphraseTable()
    table.add("man", "man", 0.9)
    assert len(table) == 0


def test_merging_weighs_each_table_by_its_corpus_size():
    first, second = ParaphraseTable(), ParaphraseTable()
    first.add("guy", "man", 0.6)
    second.add("guy", "man", 0.2)
    second.add("boy", "kid", 0.5)
    merged = merge_tables([(first, 300), (second, 100)])
    assert merged.paraphrases("guy")[("man",)] == pytest.approx((300 * 0.6 + 100 * 0.2) / 400)
    assert merged.paraphrases("boy")[("kid",)] == pytest.approx(100 * 0.5 / 400)


def test_a_threshold_keeps_the_entries_at_or_above_it():
    assert len(small_table().above(0.25)) == 2


def test_a_comment_rides_in_the_gzip_header_and_every_gzip_reader_skips_it(tmp_path):
    table = ParaphraseTable()
    table.add("guy", "man", 0.5)
    path = tmp_path / "table.gz"
    table.save(path, comment='where it came from: {"splits": ["train"]}')

    assert header_comment(path) == 'where it came from: {"splits": ["train"]}'
    assert gzip.decompress(path.read_bytes()).decode() == table.text()
    # zlib's own gzip reader checks the header, the CRC and the length.
    assert zlib.decompress(path.read_bytes(), wbits=31) == table.text().encode()
    assert ParaphraseTable.load(path) == table


def test_a_table_without_a_comment_or_uncompressed_has_none(tmp_path):
    table = ParaphraseTable()
    table.add("guy", "man", 0.5)
    table.save(tmp_path / "bare.gz")
    (tmp_path / "plain.txt").write_text(table.text())
    (tmp_path / "cut.gz").write_bytes(b"\x1f\x8b\x08\x10\x00\x00\x00\x00\x02\xffno end")
    assert header_comment(tmp_path / "bare.gz") == ""
    assert header_comment(tmp_path / "plain.txt") == ""
    assert header_comment(tmp_path / "cut.gz") == ""


def test_a_comment_holding_a_nul_is_refused(tmp_path):
    with pytest.raises(ValueError, match="no NUL"):
        ParaphraseTable().save(tmp_path / "t.gz", comment="a\x00b")
