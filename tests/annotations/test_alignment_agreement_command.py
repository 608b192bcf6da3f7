"""alignment_agreement prints the agreement table for files, without the database."""

import re
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

DATA = Path(__file__).parents[1] / "data" / "alignments"
MSR_FILES = [str(DATA / f"pairs_{name}.align.txt") for name in "ABC"]
# Brockett's RTE-2 files sit beside the checkout when they are there at all.
RTE2 = Path(__file__).resolve().parents[2] / ".." / "shared" / "data" / "msr-rte06-align" / "orig"


def run(*args) -> str:
    out = StringIO()
    call_command("alignment_agreement", *args, "--samples", "50", stdout=out)
    return out.getvalue()


def test_it_prints_every_section_for_three_annotators():
    text = run(*MSR_FILES)
    assert "2 sentence pairs, 3 annotators" in text
    for heading in [
        "Corpus",
        "Pairs of annotators",
        "Each annotator against the others",
        "By length of the shorter sentence",
        "Fleiss' κ over non-identical links",
    ]:
        assert heading in text
    assert "A – B" in text and "B – C" in text


def test_it_prints_brocketts_kappa_with_the_item_counts_and_pairwise_kappas():
    text = run(*MSR_FILES)

    assert "Brockett's Fleiss' κ over link items (Brockett 2007)" in text
    # C aligned pair 1 only. Its items: six links, "a" of the hypothesis, which C left
    # unlinked, and the NULL token; A marked strums-plays possible where B and C marked it sure.
    assert "8 items in the 1 sentence pairs aligned by all of A, B, C" in text
    assert "a link to NULL counts as no link, as in the published κ" in text
    counts = {
        " ".join(line.split()[:-1]): line.split()[-1] for line in text.splitlines() if line.strip()
    }
    assert counts["all 3 agree"] == "5"
    assert counts["2 of 3 agree"] == "3"
    assert counts["no two agree"] == "0"
    assert "Cohen's κ on the same items (sure, possible or none):" in text and "B – C" in text


def test_it_compares_the_pre_aligner_with_each_annotator_and_the_majority():
    text = run(*MSR_FILES)

    assert "The pre-aligner against the annotators" in text
    for name in ["A", "B", "C", "majority"]:
        assert f"pre-aligner vs {name} " in text


def test_without_a_pre_alignment_there_is_no_aligner_section():
    text = run(*MSR_FILES, "--pre-alignment", "none")

    assert "pre-aligner vs" not in text


def test_the_same_seed_gives_the_same_table():
    assert run(*MSR_FILES, "--seed", "3") == run(*MSR_FILES, "--seed", "3")


def test_it_reads_pharaoh_links_with_token_files(tmp_path):
    (tmp_path / "src.txt").write_text("A man plays a guitar .\nThe dog runs .\n")
    (tmp_path / "tgt.txt").write_text("A guy strums a guitar .\nA dog is running .\n")
    (tmp_path / "x.links").write_text("0-0 1-1 2-2 3-3 4-4 5-5\n0-0 1-1 2p2 2-3 3-4\n")
    (tmp_path / "y.links").write_text("0-0 1-1 2p2 4-4 5-5\n0-0 1-1 2-3 3-4\n")
    text = run(
        str(tmp_path / "x.links"),
        str(tmp_path / "y.links"),
        "--format",
        "pharaoh",
        "--source",
        str(tmp_path / "src.txt"),
        "--target",
        str(tmp_path / "tgt.txt"),
    )
    assert "2 sentence pairs, 2 annotators" in text and "x – y" in text


@pytest.mark.parametrize(
    "args, message",
    [
        ([MSR_FILES[0]], "two or more annotators"),
        ([MSR_FILES[0], MSR_FILES[1], "--format", "pharaoh"], "needs --source and --target"),
        ([MSR_FILES[0], "/nonexistent/file.txt"], "No such file"),
    ],
)
def test_bad_input_gets_a_clear_message(args, message):
    with pytest.raises(CommandError, match=message):
        run(*args)


def test_a_file_with_different_word_counts_is_refused(tmp_path):
    other = tmp_path / "pairs_D.align.txt"
    other.write_text(
        "# sentence pair 1\nA man plays a guitar loudly .\n"
        "NULL ({ / / }) A ({ 1 / / }) guy ({ 2 / / })\n"
    )
    with pytest.raises(CommandError, match="different number of words"):
        run(MSR_FILES[0], str(other))


@pytest.mark.skipif(not RTE2.is_dir(), reason="shared MSR RTE-2 data not present")
def test_on_the_rte2_test_files_it_prints_the_reports_items_and_agreement_counts():
    files = [str(RTE2 / f"RTE2_test_{name}.align.txt") for name in "ABC"]
    out = StringIO()
    call_command(
        "alignment_agreement", *files, "--samples", "1", "--pre-alignment", "none", stdout=out
    )
    text = out.getvalue()

    assert "11438 items in the 800 sentence pairs aligned by all of A, B, C" in text
    counts = {
        " ".join(line.split()[:-1]): line.split()[-1] for line in text.splitlines() if line.strip()
    }
    assert (counts["all 3 agree"], counts["2 of 3 agree"], counts["no two agree"]) == (
        "8089",
        "3326",
        "23",
    )
    assert "Brockett's Fleiss' κ over link items (Brockett 2007): 0.72887" in text


def test_a_pair_id_used_twice_in_a_file_is_two_pairs_not_one_overwritten(tmp_path):
    text = (
        "# sentence pair 1\nA man cooks .\nNULL ({ / / }) A ({ 1 / / }) man ({ 2 / / })\n"
        "# sentence pair 1\nIt rains .\nNULL ({ / / }) rain ({ 2 / / }) falls ({ / / })\n"
    )
    for name in "AB":
        (tmp_path / f"reused_{name}.align.txt").write_text(text)

    out = run(*(str(tmp_path / f"reused_{name}.align.txt") for name in "AB"))

    assert "2 sentence pairs, 2 annotators" in out


def test_it_prints_kappas_to_five_decimals_as_the_published_figures_are():
    text = run(*MSR_FILES)

    brockett = next(line for line in text.splitlines() if line.startswith("Brockett's"))
    assert re.search(r": -?\d\.\d{5}$", brockett)
    pairwise = text.split("Cohen's κ on the same items (sure, possible or none):\n")[1]
    assert re.fullmatch(r"  A – B\s+-?\d\.\d{5}", pairwise.splitlines()[0])
