"""Alignment corpora in and out: imported once, exported and re-imported with the same links."""

from io import StringIO
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

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
