"""Alignment corpora in and out: MSR RTE annotator files, Pharaoh/Moses and NAACL/WPT.

An export is a folder: ``source.txt`` and ``target.txt`` (one pair per line, tokens separated
by spaces), ``pairs.txt`` (the pair ids), and for each k, ``alignment-k.pharaoh`` or
``alignment-k.naacl`` holding every pair's k-th annotation (an empty line or no line where a
pair has fewer) with ``annotators-k.txt`` naming who made each.
"""

from dataclasses import dataclass
from pathlib import Path

from django.db import transaction

from scoring.metrics.alignment import (
    AlignedPair,
    format_pharaoh,
    parse_pharaoh,
    read_msr_annotator,
    read_pharaoh,
    read_wpt,
    write_naacl,
)

from .models import Alignment, SentencePair
from .services import pairs_store


@dataclass
class ImportReport:
    pairs: int = 0
    alignments_new: int = 0
    alignments_present: int = 0


def read_annotator_file(path: Path, format: str, source=None, target=None) -> list[AlignedPair]:
    if format == "msr":
        return read_msr_annotator(path)
    if not (source and target):
        raise ValueError(f"--format {format} needs --source and --target token files")
    if format == "naacl":
        return read_wpt(path, source, target)
    sources = Path(source).read_text(encoding="utf-8").splitlines()
    targets = Path(target).read_text(encoding="utf-8").splitlines()
    alignments = read_pharaoh(Path(path).read_text(encoding="utf-8").splitlines())
    if not len(sources) == len(targets) == len(alignments):
        raise ValueError(f"{path}: line counts of links, sources and targets differ")
    return [
        AlignedPair(str(n), tuple(s.split()), tuple(t.split()), a)
        for n, (s, t, a) in enumerate(zip(sources, targets, alignments, strict=True), 1)
    ]


def alignments_import(
    by_annotator: dict[str, list[AlignedPair]], *, corpus: str, open_hits: bool = False
) -> ImportReport:
    """Store annotators' alignments of shared sentence pairs; re-running adds nothing."""
    report = ImportReport()
    pairs = {}
    for aligned in by_annotator.values():
        for pair in aligned:
            pairs.setdefault(
                pair.pair_id,
                SentencePair(
                    origin=SentencePair.Origin.IMPORT,
                    import_key=f"{corpus}:{pair.pair_id}",
                    tokens_a=list(pair.source),
                    tokens_b=list(pair.target),
                ),
            )
    with transaction.atomic():
        stored = {p.import_key: p for p in pairs_store(list(pairs.values()), open_hits=open_hits)}
        report.pairs = len(stored)
        rows = [
            Alignment(
                pair=stored[f"{corpus}:{pair.pair_id}"],
                annotator=annotator,
                links=format_pharaoh(pair.alignment),
            )
            for annotator, aligned in by_annotator.items()
            for pair in aligned
        ]
        before = Alignment.objects.filter(pair__in=stored.values()).count()
        Alignment.objects.bulk_create(rows, ignore_conflicts=True, batch_size=2000)
        after = Alignment.objects.filter(pair__in=stored.values()).count()
    report.alignments_new = after - before
    report.alignments_present = len(rows) - report.alignments_new
    return report


def alignments_export(folder: Path, *, format: str, pairs=None) -> int:
    """Write the annotated pairs (all by default) to ``folder``; returns the pairs written."""
    folder.mkdir(parents=True, exist_ok=True)
    if pairs is None:
        pairs = SentencePair.objects.filter(alignments__isnull=False).distinct()
    pairs = list(pairs.order_by("pk").prefetch_related("alignments__worker__user"))
    slots = max((pair.alignments.count() for pair in pairs), default=0)
    (folder / "source.txt").write_text(_lines(" ".join(p.tokens_a) for p in pairs), "utf-8")
    (folder / "target.txt").write_text(_lines(" ".join(p.tokens_b) for p in pairs), "utf-8")
    (folder / "pairs.txt").write_text(_lines(str(p.pk) for p in pairs), "utf-8")
    for k in range(slots):
        annotations = [_kth(pair, k) for pair in pairs]
        names = [a.annotator_name if a else "" for a in annotations]
        (folder / f"annotators-{k + 1}.txt").write_text(_lines(names), "utf-8")
        links = [parse_pharaoh(a.links) if a else parse_pharaoh("") for a in annotations]
        if format == "naacl":
            text = write_naacl(dict(enumerate(links, start=1)))
        else:
            text = _lines(format_pharaoh(a) for a in links)
        (folder / f"alignment-{k + 1}.{format}").write_text(text, "utf-8")
    return len(pairs)


def _kth(pair, k):
    ordered = sorted(pair.alignments.all(), key=lambda a: (a.created_at, a.pk))
    return ordered[k] if k < len(ordered) else None


def _lines(items) -> str:
    return "".join(f"{item}\n" for item in items)
