"""Alignment corpora in and out: imported once, exported and re-imported with the same links."""

from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command

from annotations.models import Alignment, SentencePair
from scoring.metrics.alignment import parse_pharaoh

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
