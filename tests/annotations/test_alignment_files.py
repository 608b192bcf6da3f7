"""Alignment corpora in and out: imported once, exported and re-imported with the same links."""

import json
import threading
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command
from django.db import connection

from annotations.models import Alignment, SentencePair
from paracrowd_metrics.alignment import parse_pharaoh

pytestmark = pytest.mark.django_db

DATA = Path(__file__).parents[1] / "data" / "alignments"
MSR_FILES = [str(DATA / f"pairs_{name}.align.txt") for name in "ABC"]


def command(*args) -> str:
    out = StringIO()
    call_command(*args, stdout=out)
    return out.getvalue()


def test_it_imports_each_annotators_file_once():
    assert "2 sentence pairs; alignments: 5 new" in command("import_alignments", *MSR_FILES)
    assert "0 new, 5 already present" in command("import_alignments", *MSR_FILES)
    assert set(Alignment.objects.values_list("annotator", flat=True)) == {"A", "B", "C"}
    possible = Alignment.objects.get(annotator="A", pair__import_key__endswith=":1").links
    assert parse_pharaoh(possible).possible_only == {(2, 2)}


@pytest.mark.parametrize("format", ["pharaoh", "naacl"])
def test_exported_alignments_reimport_with_the_same_links(tmp_path, format):
    command("import_alignments", *MSR_FILES)
    before = {
        (
            tuple(p.tokens_a),
            tuple(p.tokens_b),
            frozenset(parse_pharaoh(a.links).sure),
            frozenset(parse_pharaoh(a.links).possible),
        )
        for p in SentencePair.objects.all()
        for a in p.alignments.all()
    }
    command("export_alignments", str(tmp_path), "--format", format)
    Alignment.objects.all().delete()
    SentencePair.objects.all().delete()
    files = sorted(str(path) for path in tmp_path.glob(f"alignment-*.{format}"))
    command(
        "import_alignments",
        *files,
        "--format",
        format,
        "--source",
        str(tmp_path / "source.txt"),
        "--target",
        str(tmp_path / "target.txt"),
        "--corpus",
        "round-trip",
    )
    after = {
        (
            tuple(p.tokens_a),
            tuple(p.tokens_b),
            frozenset(parse_pharaoh(a.links).sure),
            frozenset(parse_pharaoh(a.links).possible),
        )
        for p in SentencePair.objects.all()
        for a in p.alignments.all()
        if a.links
    }
    assert after == before


EDINBURGH = [DATA / "edinburgh_A.sure.json", DATA / "edinburgh_A.sure+poss.json"]
MULTIMWA = DATA / "multimwa_B.tsv"


def stored_links() -> dict:
    return {
        (" ".join(pair.tokens_a), a.annotator): (
            parse_pharaoh(a.links).sure,
            parse_pharaoh(a.links).possible_only,
        )
        for pair in SentencePair.objects.all()
        for a in pair.alignments.all()
    }


def test_it_imports_an_edinburgh_pair_of_files_keeping_sure_and_possible_links():
    text = command("import_alignments", *map(str, EDINBURGH), "--format", "edinburgh")

    assert "2 sentence pairs; alignments: 2 new" in text
    links = stored_links()[("police arrested two men", "edinburgh_A")]
    assert links == ({(0, 5), (2, 0), (3, 1)}, {(1, 2), (1, 3)})


def test_it_imports_a_multimwa_file_keeping_sure_and_possible_links():
    text = command("import_alignments", str(MULTIMWA), "--format", "multimwa")

    assert "2 sentence pairs; alignments: 2 new" in text
    links = stored_links()[("two kids play chess", "multimwa_B")]
    assert links == ({(0, 0), (1, 1), (2, 3), (3, 4)}, {(2, 2)})


@pytest.mark.parametrize(
    "format, files, exported",
    [
        ("edinburgh", EDINBURGH, ["alignment-1.sure.json", "alignment-1.sure+poss.json"]),
        ("multimwa", [MULTIMWA], ["alignment-1.tsv"]),
    ],
)
def test_corpora_round_trip_through_the_exporter(tmp_path, format, files, exported):
    command("import_alignments", *map(str, files), "--format", format, "--corpus", "c")
    before = set(stored_links().values())

    command("export_alignments", str(tmp_path), "--format", format)
    assert sorted(path.name for path in tmp_path.glob("alignment-*")) == sorted(exported)
    Alignment.objects.all().delete()
    SentencePair.objects.all().delete()
    command("import_alignments", str(tmp_path / exported[0]), "--format", format)

    assert set(stored_links().values()) == before
    # The annotators-1.txt beside the export names who made each alignment.
    assert set(Alignment.objects.values_list("annotator", flat=True)) == {
        "edinburgh_A" if format == "edinburgh" else "multimwa_B"
    }


@pytest.mark.parametrize(
    "format, content, message",
    [
        ("multimwa", "1\ta b\tN/A\tc d\n", "9 tab-separated columns"),
        ("multimwa", "1\ta\tN/A\tb\tN/A\t1\t1\t0:0\t\n", "not a link"),
        ("edinburgh", "{not json", "not JSON"),
        ("edinburgh", '[{"id": "1", "source": "a"}]', "lacks sureAlign, target"),
    ],
)
def test_a_malformed_corpus_file_is_refused_and_nothing_is_stored(
    tmp_path, format, content, message
):
    path = tmp_path / ("bad.tsv" if format == "multimwa" else "bad.sure.json")
    path.write_text(content)

    with pytest.raises(CommandError, match=message):
        command("import_alignments", str(path), "--format", format)
    assert not SentencePair.objects.exists()


def write_multimwa(path, lines) -> str:
    path.write_text("".join("\t".join(columns) + "\n" for columns in lines), encoding="utf-8")
    return str(path)


# MultiMWA's arXiv test file uses each id for two different sentence pairs.
REUSED_IDS = [
    ["1", "a man cooks", "N/A", "a person cooks", "N/A", "1", "1", "0-0 1-1 2-2", ""],
    ["2", "the dog runs", "N/A", "a dog is running", "N/A", "1", "1", "1-1 2-3", "0-0"],
    ["1", "kids play chess", "N/A", "children play chess", "N/A", "1", "1", "0-0 2-2", "1-1"],
    ["2", "it rains", "N/A", "rain falls", "N/A", "1", "1", "1-0", ""],
]


def test_a_file_that_reuses_ids_for_other_sentences_keeps_every_pair(tmp_path):
    path = write_multimwa(tmp_path / "arxiv_test.tsv", REUSED_IDS)

    text = command("import_alignments", path, "--format", "multimwa")

    assert "4 sentence pairs; alignments: 4 new, 0 already present." in text
    assert "2 pair ids name more than one pair of sentences; each pair is kept apart" in text
    assert SentencePair.objects.count() == 4 and Alignment.objects.count() == 4
    assert "1 pair ids" not in text and "Not stored" not in text
    rerun = command("import_alignments", path, "--format", "multimwa")
    assert "4 sentence pairs; alignments: 0 new, 4 already present." in rerun
    assert SentencePair.objects.count() == 4 and Alignment.objects.count() == 4


def test_an_alignment_that_cannot_be_stored_is_named_never_dropped_silently(tmp_path):
    first = write_multimwa(tmp_path / "a.tsv", REUSED_IDS[:1])
    command("import_alignments", first, "--format", "multimwa", "--corpus", "c")
    changed = [[*REUSED_IDS[0][:7], "0-0", ""], [*REUSED_IDS[1][:7], "1-1", ""]]
    changed.append([*REUSED_IDS[1][:7], "2-3", ""])  # the same pair again, other links
    second = write_multimwa(tmp_path / "a.tsv", changed)

    text = command("import_alignments", second, "--format", "multimwa", "--corpus", "c")

    assert "2 sentence pairs; alignments: 1 new, 1 already present." in text
    assert "Not stored: 2" in text
    assert "pair 2 (a): aligned again in the files with other links" in text
    assert "pair 1 (a): already stored with other links; the stored alignment is kept" in text


@pytest.mark.django_db(transaction=True)
def test_two_imports_of_one_file_at_once_store_each_pair_and_alignment_once(tmp_path):
    path = write_multimwa(tmp_path / "arxiv_test.tsv", REUSED_IDS)
    barrier = threading.Barrier(2)
    outputs, errors = [], []

    def load():
        try:
            barrier.wait()
            outputs.append(command("import_alignments", path, "--format", "multimwa"))
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
    assert sorted("4 new" in output for output in outputs) == [False, True]
    assert SentencePair.objects.count() == 4 and Alignment.objects.count() == 4


def test_an_edinburgh_export_of_reused_ids_reimports_every_pair(tmp_path):
    command(
        "import_alignments",
        write_multimwa(tmp_path / "arxiv.tsv", REUSED_IDS),
        "--format",
        "multimwa",
        "--corpus",
        "arxiv",
    )
    before = set(stored_links().values())
    out = tmp_path / "export"

    command("export_alignments", str(out), "--format", "edinburgh")
    records = json.loads((out / "alignment-1.sure.json").read_text(encoding="utf-8"))
    Alignment.objects.all().delete()
    SentencePair.objects.all().delete()
    text = command("import_alignments", str(out / "alignment-1.sure.json"), "--format", "edinburgh")

    assert [record["id"] for record in records] == ["arxiv:1", "arxiv:2", "arxiv:1#2", "arxiv:2#2"]
    assert "4 sentence pairs; alignments: 4 new, 0 already present." in text
    assert set(stored_links().values()) == before
