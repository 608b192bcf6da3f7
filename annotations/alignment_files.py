"""Alignment corpora in and out: MSR RTE annotator files, Pharaoh/Moses, NAACL/WPT,
Edinburgh++ JSON and MultiMWA TSV.

An export is a folder: ``source.txt`` and ``target.txt`` (one pair per line, tokens separated
by spaces), ``pairs.txt`` (the pair ids), and for each k, ``alignment-k.pharaoh``,
``alignment-k.naacl``, ``alignment-k.tsv`` (MultiMWA) or the Edinburgh++ pair
``alignment-k.sure.json`` and ``alignment-k.sure+poss.json``, holding every pair's k-th
annotation (empty where a pair has fewer), with ``annotators-k.txt`` naming who made each and
``suggestions-k.txt`` saying ``unchanged`` where that annotation sent back the pre-alignment it
was shown unchanged (an unchanged suggestion: the pre-aligner's links, not the annotator's).
Beside them, the weighted consensus of each pair's annotations (``annotations.consensus``)
in the same format (``consensus.pharaoh``, ...), its links' confidences
(``consensus-confidence.txt``) and the annotators' weights (``annotator-weights.tsv``).
"""

import json
from collections.abc import Callable
from contextlib import AbstractContextManager, ExitStack
from dataclasses import dataclass, field
from operator import attrgetter
from pathlib import Path
from typing import TextIO

from django.db import connection, transaction
from django.db.models import Count, Max, Prefetch

from paracrowd_metrics.alignment import (
    AlignedPair,
    edinburgh_partner,
    format_pharaoh,
    parse_pharaoh,
    read_edinburgh,
    read_msr_annotator,
    read_msr_majority,
    read_multimwa,
    read_pharaoh,
    read_wpt,
    write_naacl,
)
from paracrowd_metrics.alignment.corpora import edinburgh_records, multimwa_line

from .consensus import AnnotatorWeights, confidence_line, weights_rows
from .models import Alignment, SentencePair
from .services import import_identity, imported_pair, pairs_store

# pg_advisory_xact_lock key held while an import compares its alignments with the stored ones.
ALIGNMENT_IMPORT_LOCK = 0x616C69676E  # "align"


@dataclass
class ImportReport:
    pairs: int = 0
    alignments_new: int = 0
    alignments_present: int = 0
    # Ids the files use for more than one pair of sentences (each pair is kept), and what
    # was not stored, each with why: nothing is dropped without saying so.
    reused_ids: list[str] = field(default_factory=list)
    not_stored: list[str] = field(default_factory=list)


def read_annotator_file(path: Path, format: str, source=None, target=None) -> list[AlignedPair]:
    """One annotator's pairs. For Edinburgh++ ``path`` is either file of the pair; the other
    is read too when it is there."""
    if format == "msr":
        # The majority-vote files are JSON; each annotator's own file is text.
        return read_msr_majority(path) if Path(path).suffix == ".json" else read_msr_annotator(path)
    if format == "multimwa":
        return read_multimwa(path)
    if format == "edinburgh":
        path, partner = Path(path), edinburgh_partner(path)
        if path.name.endswith(".sure+poss.json"):
            sure, every = partner, path
            jacana = path.with_name(path.name.removesuffix(".sure+poss.json") + ".json")
            if not sure.exists() and jacana.exists():
                sure = jacana
        else:
            sure, every = path, partner
        if not every.exists() and not sure.name.endswith(".sure.json"):
            # A lone jacana-style x.json carries both sureAlign and possibleAlign.
            sure, every = None, sure
        return read_edinburgh(
            sure if sure is not None and sure.exists() else None,
            every if every.exists() else None,
        )
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
    """Store annotators' alignments of shared sentence pairs; re-running adds nothing.

    A pair is known by its id and its sentences, so a file that uses one id for two different
    sentence pairs keeps both. An annotator's second alignment of the same pair in the files,
    and an alignment that differs from the one already stored for that annotator, are not
    stored and are listed in the report. The comparison with what is stored runs under a lock,
    so two imports at once store each alignment once.
    """
    report = ImportReport()
    pairs: dict[tuple[str, str], SentencePair] = {}
    wanted: dict[tuple[tuple[str, str], str], str] = {}  # (pair, annotator) → links
    sentences_by_id: dict[str, set[str]] = {}
    for annotator, aligned in by_annotator.items():
        for pair in aligned:
            sentence_pair = imported_pair(corpus, pair.pair_id, pair.source, pair.target)
            identity = import_identity(sentence_pair)
            pairs.setdefault(identity, sentence_pair)
            sentences_by_id.setdefault(pair.pair_id, set()).add(identity[1])
            links = format_pharaoh(pair.alignment)
            known = wanted.setdefault((identity, annotator), links)
            if known != links:
                report.not_stored.append(
                    f"pair {pair.pair_id} ({annotator}): aligned again in the files with "
                    "other links; the first alignment is kept"
                )
    report.reused_ids = sorted(
        pid for pid, contents in sentences_by_id.items() if len(contents) > 1
    )
    with transaction.atomic():
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(%s)", [ALIGNMENT_IMPORT_LOCK])
        stored = {
            import_identity(p): p for p in pairs_store(list(pairs.values()), open_hits=open_hits)
        }
        report.pairs = len(stored)
        present = {
            (pair_id, annotator): links
            for pair_id, annotator, links in Alignment.objects.filter(
                pair__in=stored.values(), annotator__in=list(by_annotator)
            ).values_list("pair_id", "annotator", "links")
        }
        rows = []
        for (identity, annotator), links in wanted.items():
            pair = stored[identity]
            if (pair.pk, annotator) not in present:
                # An imported annotation is someone's finished work, as imported descriptions.
                rows.append(
                    Alignment(
                        pair=pair,
                        annotator=annotator,
                        links=links,
                        status=Alignment.Status.ACCEPTED,
                    )
                )
                continue
            report.alignments_present += 1
            if present[pair.pk, annotator] != links:
                report.not_stored.append(
                    f"pair {identity[0].removeprefix(corpus + ':')} ({annotator}): already "
                    "stored with other links; the stored alignment is kept"
                )
        Alignment.objects.bulk_create(rows, batch_size=2000)
    report.alignments_new = len(rows)
    return report


def alignments_export(
    open_file: Callable[[str], AbstractContextManager[TextIO]],
    *,
    format: str,
    alignments=None,
    annotator_name: Callable[[Alignment], str] = attrgetter("annotator_name"),
    chunk_size: int = 2000,
) -> int:
    """Write the annotated pairs and their alignments (every alignment, or those of the
    ``alignments`` queryset) as the files this module describes; returns the pairs written.

    ``open_file(name)`` gives a text file to write ``name`` to (a folder, or an S3 prefix).
    Pairs are read and written a chunk at a time, so memory stays flat at any size.
    ``annotator_name(alignment)`` is what the ``annotators-k.txt`` files call each annotator.
    The consensus leaves out rejected alignments, whether or not they are exported.
    """
    if alignments is None:
        alignments = Alignment.objects.all()
    per_pair = alignments.order_by().values("pair").annotate(n=Count("pk"))
    slots = per_pair.aggregate(most=Max("n"))["most"] or 0
    pairs = (
        SentencePair.objects.filter(pk__in=alignments.values("pair"))
        .order_by("pk")
        .prefetch_related(
            Prefetch(
                "alignments",
                queryset=alignments.select_related("worker__user").order_by("created_at", "pk"),
                to_attr="selected",
            )
        )
    )
    suffixes = EXPORT_SUFFIXES[format]
    names = ["source.txt", "target.txt", "pairs.txt"]
    names += [f"annotators-{k}.txt" for k in range(1, slots + 1)]
    names += [f"suggestions-{k}.txt" for k in range(1, slots + 1)]
    names += [f"alignment-{k}.{suffix}" for k in range(1, slots + 1) for suffix in suffixes]
    names += [f"consensus.{suffix}" for suffix in suffixes]
    names += ["consensus-confidence.txt", "annotator-weights.tsv"]
    weights = AnnotatorWeights.read()
    annotators = {}
    exported_ids: set[str] = set()
    written = 0
    with ExitStack() as stack:
        files = {name: stack.enter_context(open_file(name)) for name in names}
        if format == "edinburgh":
            for name in names:
                if name.endswith(".json"):
                    files[name].write("[")
        for written, pair in enumerate(pairs.iterator(chunk_size=chunk_size), start=1):
            files["source.txt"].write(_line(" ".join(pair.tokens_a)))
            files["target.txt"].write(_line(" ".join(pair.tokens_b)))
            files["pairs.txt"].write(_line(str(pair.pk)))
            pair_id = unique_pair_id(pair.import_key or str(pair.pk), exported_ids)
            for k in range(slots):
                annotation = pair.selected[k] if k < len(pair.selected) else None
                files[f"annotators-{k + 1}.txt"].write(
                    _line(annotator_name(annotation) if annotation else "")
                )
                unchanged = annotation is not None and annotation.unchanged_suggestion
                files[f"suggestions-{k + 1}.txt"].write(_line(UNCHANGED if unchanged else ""))
                links = parse_pharaoh(annotation.links if annotation else "")
                _write_links(files, f"alignment-{k + 1}", format, written, pair, pair_id, links)
            consensus = weights.consensus(pair.selected)
            _write_links(files, "consensus", format, written, pair, pair_id, consensus.alignment)
            files["consensus-confidence.txt"].write(_line(confidence_line(consensus)))
            annotators.update((annotator_name(a), a) for a in pair.selected)
        files["annotator-weights.tsv"].write("annotator\tweight\tagreement_f1\ttrial_f1\n")
        for row in weights_rows(weights, annotators.values(), annotator_name):
            files["annotator-weights.tsv"].write("\t".join(row) + "\n")
        if format == "edinburgh":
            for name in names:
                if name.endswith(".json"):
                    files[name].write("\n]\n")
    return written


# What ``suggestions-k.txt`` says of an unchanged suggestion (an empty line otherwise).
UNCHANGED = "unchanged"

EXPORT_SUFFIXES = {
    "pharaoh": ["pharaoh"],
    "naacl": ["naacl"],
    "multimwa": ["tsv"],
    "edinburgh": ["sure.json", "sure+poss.json"],
}


def unique_pair_id(pair_id: str, exported: set[str]) -> str:
    """``pair_id``, or when an earlier pair of this export had it, ``pair_id#2`` (``#3``, …):
    a corpus that uses one id for several pairs (MultiMWA's arXiv file) is stored as several
    pairs, and an export read back by id must tell them apart. Pairs are written in key
    order, so the same pair gets the same suffix in every export. Adds the id to
    ``exported``."""
    unique, n = pair_id, 1
    while unique in exported:
        n += 1
        unique = f"{pair_id}#{n}"
    exported.add(unique)
    return unique


def _write_links(
    files, stem: str, format: str, number: int, pair: SentencePair, pair_id: str, links
) -> None:
    """One pair's links in ``format``, to the file(s) named ``stem`` ("alignment-k",
    "consensus"); Edinburgh++ and MultiMWA carry the tokens and the pair's id (its import key,
    corpus:id, or its own key, made unique by ``unique_pair_id``) on every record."""
    if format == "naacl":
        files[f"{stem}.naacl"].write(write_naacl({number: links}))
        return
    if format == "pharaoh":
        files[f"{stem}.pharaoh"].write(_line(format_pharaoh(links)))
        return
    aligned = AlignedPair(pair_id, tuple(pair.tokens_a), tuple(pair.tokens_b), links)
    if format == "multimwa":
        files[f"{stem}.tsv"].write(multimwa_line(aligned))
        return
    separator = "\n" if number == 1 else ",\n"
    for suffix, record in zip(
        EXPORT_SUFFIXES["edinburgh"], edinburgh_records(aligned), strict=True
    ):
        files[f"{stem}.{suffix}"].write(separator + json.dumps(record, ensure_ascii=False))


def folder_files(folder: Path) -> Callable[[str], AbstractContextManager[TextIO]]:
    """``open_file`` for ``alignments_export``: files in a local folder, created if needed."""
    folder.mkdir(parents=True, exist_ok=True)
    return lambda name: (folder / name).open("w", encoding="utf-8", newline="\n")


def _line(item) -> str:
    return f"{item}\n"
