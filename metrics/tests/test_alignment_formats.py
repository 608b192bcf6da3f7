from pathlib import Path

import pytest
from hypothesis import given, settings

from paracrowd_metrics.alignment import (
    Alignment,
    format_pharaoh,
    parse_pharaoh,
    read_msr_annotator,
    read_msr_majority,
    read_naacl,
    read_pharaoh,
    read_wpt,
    write_naacl,
    write_pharaoh,
)
from test_alignment_strategies import alignments

# The public alignment corpora sit beside the checkout (../shared/data), not in it.
DATA = Path(__file__).resolve().parents[2] / ".." / "shared" / "data"
MSR = DATA / "msr-rte06-align"
WPT = DATA / "wpt03-hansards-en-fr"
needs_msr = pytest.mark.skipif(not MSR.is_dir(), reason="shared MSR RTE data not present")
needs_wpt = pytest.mark.skipif(not WPT.is_dir(), reason="shared WPT-03 data not present")


def test_pharaoh_marks_possible_links_with_p():
    alignment = parse_pharaoh("0-0 1-2 3p4")

    assert alignment.sure == {(0, 0), (1, 2)}
    assert alignment.possible == {(0, 0), (1, 2), (3, 4)}


def test_pharaoh_writes_links_in_order():
    alignment = Alignment(sure={(3, 1), (0, 0)}, possible={(1, 2)})

    assert format_pharaoh(alignment) == "0-0 1p2 3-1"


def test_pharaoh_rejects_what_is_not_a_link():
    with pytest.raises(ValueError, match="not a Pharaoh link"):
        parse_pharaoh("0-0 1x2")


def test_an_empty_pharaoh_line_is_an_empty_alignment():
    assert parse_pharaoh("\n") == Alignment()


@settings(max_examples=150)
@given(alignments())
def test_pharaoh_round_trips(case):
    alignment, _, _ = case

    assert read_pharaoh(write_pharaoh([alignment]).splitlines()) == [alignment]


@settings(max_examples=150)
@given(alignments(), alignments())
def test_naacl_round_trips(first, second):
    written = write_naacl({1: first[0], 7: second[0]})
    read = read_naacl(written.splitlines())

    assert {number: read.get(number, Alignment()) for number in (1, 7)} == {
        1: first[0],
        7: second[0],
    }


def test_naacl_is_one_based_and_drops_null_links():
    read = read_naacl(["1 1 1 S", "1 2 3 P", "1 0 2 S", "2 3 1"])

    assert read[1] == Alignment(sure={(0, 0)}, possible={(1, 2)})
    # A missing S|P column means sure.
    assert read[2] == Alignment(sure={(2, 0)})


def test_naacl_can_be_read_zero_based():
    assert read_naacl(["4 0 2 P"], one_based=False) == {4: Alignment(possible={(0, 2)})}


def test_naacl_rejects_an_unknown_link_type():
    with pytest.raises(ValueError, match="S or P"):
        read_naacl(["1 1 1 X"])


def test_wpt_corpus_joins_links_to_tokens(tmp_path):
    (tmp_path / "c.naacl").write_text("1 1 2 S\n1 2 1 P\n")
    (tmp_path / "c.en").write_text("the house\nyes\n")
    (tmp_path / "c.fr").write_text("maison la\noui\n")

    first, second = read_wpt(tmp_path / "c.naacl", tmp_path / "c.en", tmp_path / "c.fr")

    assert first.source == ("the", "house")
    assert first.alignment == Alignment(sure={(0, 1)}, possible={(1, 0)})
    assert second.pair_id == "2"
    assert second.alignment == Alignment()


@needs_wpt
def test_the_wpt03_test_set_reads_with_the_documented_counts():
    pairs = read_wpt(WPT / "test.en-fr.naacl", WPT / "test.en-fr.en", WPT / "test.en-fr.fr")

    assert len(pairs) == 447
    assert sum(len(pair.alignment.sure) for pair in pairs) == 4038
    assert sum(len(pair.alignment.possible_only) for pair in pairs) == 13400


@needs_msr
def test_msr_annotator_files_read_with_the_documented_counts():
    pairs = read_msr_annotator(MSR / "orig" / "RTE2_test_B.align.txt")

    assert len(pairs) == 800
    assert sum(len(pair.alignment.sure) for pair in pairs) == 5719
    assert sum(len(pair.alignment.possible_only) for pair in pairs) == 2257
    first = pairs[0]
    assert first.pair_id == "1"
    assert first.target == ("Shukla", "is", "related", "to", "Mangla", ".")
    # "Shukla ({ 9 8 / / })": 1-based T positions 9 and 8, both sure.
    assert {(7, 0), (8, 0)} <= first.alignment.sure


@needs_msr
def test_msr_annotator_reader_strips_byte_order_marks_and_reads_possible_links():
    first = read_msr_annotator(MSR / "orig" / "RTE2_dev_A.align.txt")[0]

    assert first.source[0] == "ECB"
    assert first.target[0] == "Regina"
    # "Regina ({ 4 p1 p2 / / })"
    assert (3, 0) in first.alignment.sure
    assert first.alignment.possible_only >= {(0, 0), (1, 0)}


@needs_msr
def test_msr_annotator_reader_keeps_the_last_link_of_an_unterminated_line():
    last = read_msr_annotator(MSR / "orig" / "RTE2_dev_C.align.txt")[-1]

    assert last.target[-1] == "."
    assert (22, len(last.target) - 1) in last.alignment.sure


@needs_msr
def test_msr_majority_vote_sure_links_exclude_the_possible_ones():
    pairs = read_msr_majority(MSR / "converted" / "RTE2_dev_M.align.sure+poss.json")

    assert len(pairs) == 800
    second = pairs[1]
    assert second.pair_id == "2"
    assert (52, 3) in second.alignment.possible_only
    assert (32, 0) in second.alignment.sure


def test_msr_annotator_reader_refuses_text_words_aligned_to_null(tmp_path):
    path = tmp_path / "pairs_A.align.txt"
    path.write_text("# sentence pair 1\nA dog .\nNULL ({ 1 / / }) dog ({ 2 / / }) . ({ 3 / / })\n")

    with pytest.raises(ValueError, match="text words aligned to NULL"):
        read_msr_annotator(path)
