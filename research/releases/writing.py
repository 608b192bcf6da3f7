"""Writing one release: its files (reusing the exports' writers), which descriptions it holds,
what changed since the release before, the dataset card and the manifest.

Everything runs inside the caller's transaction (one snapshot of the corpus), so the files,
the counts and the recorded descriptions agree.
"""

import json
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import PurePosixPath

from django.conf import settings
from django.db import connection
from django.db.models import Count, Exists, OuterRef

from collector.models import Segment
from research.exports import FORMATS, corpus_export
from research.exports.base import Progress
from research.exports.database_copy import copy_rows
from research.exports.parquet import dataset_card
from research.models import ReleaseDescription
from research.selection import CorpusFilter
from research.splits import SPLITS
from scoring.models import ClusterScore, DescriptionScore

from .options import ReleaseOptions
from .recording import RecordingDestination

CHANGES_FILE = "changes.tsv"
MANIFEST_FILE = "manifest.json"
# The formats whose files carry stored scores, and which scores.
SCORED_FORMATS = {"description": ("parquet", "jsonl"), "cluster": ("jsonl",)}


@dataclass(frozen=True)
class SplitFilter(CorpusFilter):
    """The filter's descriptions on one side of the split: those of ``segment_ids``."""

    segment_ids: tuple[int, ...] = ()

    # Overrides the one query every selection (and the status counts) starts from.
    def _unfiltered_by_status(self):
        return super()._unfiltered_by_status().filter(segment_id__in=self.segment_ids)


@dataclass
class SplitCount:
    """One split's descriptions, segments and languages (the dataset card's figures)."""

    rows: int = 0
    segment_ids: list[int] = field(default_factory=list)
    languages: Counter = field(default_factory=Counter)

    def selection(self, corpus_filter: CorpusFilter) -> SplitFilter:
        """``corpus_filter``'s descriptions in this split."""
        return SplitFilter(**vars(corpus_filter), segment_ids=tuple(self.segment_ids))


def split_counts(options: ReleaseOptions) -> dict[str, SplitCount]:
    """The selected descriptions by side of the split (drawn by video, as every export does),
    in the order of SPLITS; one query, grouped by cluster."""
    selected = options.filter.descriptions()
    segments = Segment.objects.filter(pk__in=selected.values("segment_id")).only(
        "source", "youtube_id", "video_file"
    )
    side_of = {segment.pk: options.split.side_of_segment(segment) for segment in segments}
    counts = defaultdict(SplitCount)
    clusters = selected.values("segment_id", "language").annotate(n=Count("pk")).order_by()
    for cluster in clusters:
        count = counts[side_of[cluster["segment_id"]]]
        count.rows += cluster["n"]
        count.languages[cluster["language"]] += cluster["n"]
    for segment_id, side in sorted(side_of.items()):
        counts[side].segment_ids.append(segment_id)
    return {side: counts[side] for side in SPLITS if side in counts}


def release_write(*, release, destination: RecordingDestination, previous) -> dict:
    """Write ``release`` (a Release row, numbered, not yet done) to the empty ``destination``
    and record the descriptions it holds; returns its manifest. ``previous``: the release the
    changes are counted against (None for the first)."""
    options = ReleaseOptions.from_dict(release.parameters)
    sides = split_counts(options)
    about = {}  # file relative to the folder → what it holds
    left_out = {}
    parquet = corpus_export(destination=destination, options=options.export("parquet"))
    parquet_names = {}
    for where, rows in parquet.files.items():
        name = destination.relative(where)
        if name.endswith(".parquet"):
            side = PurePosixPath(name).stem.split("-")[0]
            parquet_names[side] = name
            about[name] = {"format": "parquet", "split": side, "rows": rows}
    left_out["parquet"] = dict(parquet.left_out)
    for name in options.formats[1:]:
        reasons = Counter()
        suffix = PurePosixPath(FORMATS[name].file_name).suffix
        for side, count in sides.items():
            file = f"{name}/{side}{suffix}"
            report = corpus_export(
                destination=destination.inside(file),
                options=options.export(name, count.selection(options.filter)),
            )
            about[file] = {
                "format": name,
                "split": side,
                "rows": report.files[destination.path(file)],
            }
            reasons.update(report.left_out)
        left_out[name] = dict(reasons)
    _record_descriptions(release, options, sides)
    changes = _changes(release, previous, destination)
    if changes["file"]:
        about[CHANGES_FILE] = {"format": "changes", "split": None, "rows": changes["rows"]}
    with destination.open("README.md") as card:
        card.write(
            dataset_card(
                options.export("parquet"),
                parquet_names,
                {side: sides.get(side, SplitCount()) for side in parquet_names},
                sizes={
                    side: destination.written[destination.path(name)][0]
                    for side, name in parquet_names.items()
                },
                metadata=[f"license: {json.dumps(settings.RELEASE_LICENSE)}"],
                sections=_card_sections(release, options, previous, changes),
            )
        )
    about["README.md"] = {"format": "card", "split": None, "rows": None}
    files = []
    for where, (size, sha256) in destination.written.items():
        name = destination.relative(where)
        files.append({"path": name, **about[name], "bytes": size, "sha256": sha256})
    manifest = {
        "release": release.number,
        "created_at": release.created_at.isoformat(),
        "created_by": release.created_by.get_username() if release.created_by else None,
        "licence": settings.RELEASE_LICENSE,
        "citation": settings.RELEASE_CITATION,
        "formats": list(options.formats),
        "filter": options.filter.as_dict(),
        "filter_text": options.filter.describe(),
        "split": {
            "by": "video",
            "seed": options.seed,
            "test_fraction": options.test_fraction,
            "dev_fraction": options.dev_fraction,
        },
        "counts": {
            "descriptions": parquet.descriptions,
            "clusters": parquet.clusters,
            "splits": parquet.public_split_sizes(),
        },
        "left_out": left_out,
        "scores": _scores(options),
        "changes": {key: changes[key] for key in ("since", "file", "splits")},
        "files": sorted(files, key=lambda file: file["path"]),
    }
    with destination.open(MANIFEST_FILE) as file:
        json.dump(manifest, file, ensure_ascii=False, indent=2)
        file.write("\n")
    return manifest


def _record_descriptions(release, options: ReleaseOptions, sides: dict[str, SplitCount]) -> None:
    """Keep which descriptions the release holds, and where: INSERT … SELECT, one per side,
    so that nothing passes through Python."""
    table = ReleaseDescription._meta.db_table
    with connection.cursor() as cursor:
        for side, count in sides.items():
            selected = count.selection(options.filter).descriptions().values("id")
            sql, params = selected.query.sql_with_params()
            cursor.execute(
                f"INSERT INTO {table} (release_id, description_id, split) "  # noqa: S608
                f"SELECT %s, selected.id, %s FROM ({sql}) AS selected",
                [release.pk, side, *params],
            )


def _changes(release, previous, destination: RecordingDestination) -> dict:
    """Descriptions added to and removed from each split since ``previous``: counted, and
    listed in ``changes.tsv`` (change, split, description id), written by PostgreSQL."""
    if previous is None:
        return {"since": None, "file": None, "splits": {}, "rows": 0}
    table = ReleaseDescription._meta.db_table
    # Rows of release a that release b does not hold in the same split, named ``change``.
    only_in = (
        "SELECT '{change}' AS change, a.split, a.description_id FROM {table} a "
        "WHERE a.release_id = {a} AND NOT EXISTS (SELECT 1 FROM {table} b "
        "WHERE b.release_id = {b} AND b.description_id = a.description_id AND b.split = a.split)"
    )
    ids = {"a": int(release.pk), "b": int(previous.pk)}
    sql = (
        only_in.format(change="added", table=table, **ids)
        + " UNION ALL "
        + only_in.format(change="removed", table=table, a=ids["b"], b=ids["a"])
    )
    splits = {}
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT split, change, count(*) FROM ({sql}) c GROUP BY 1, 2")  # noqa: S608
        for split, change, n in cursor.fetchall():
            splits.setdefault(split, {"added": 0, "removed": 0})[change] = n
    with destination.open(CHANGES_FILE, binary=True) as file:
        file.write(b"change\tsplit\tdescription_id\n")
        copied = copy_rows(f"{sql} ORDER BY 2, 1, 3", file, Progress(), csv=False)
    ordered = {side: splits[side] for side in SPLITS if side in splits}
    return {"since": previous.number, "file": CHANGES_FILE, "splits": ordered, "rows": copied.rows}


def _scores(options: ReleaseOptions) -> list[dict]:
    """Every stored score the release's files carry: per metric and signature, how many
    descriptions (or clusters) have it, with the tokenisation the signature names."""
    selected = options.filter.descriptions()
    sources = {
        "description": DescriptionScore.objects.filter(description__in=selected),
        "cluster": ClusterScore.objects.filter(
            Exists(
                selected.filter(segment_id=OuterRef("segment_id"), language=OuterRef("language"))
            )
        ),
    }
    scores = []
    for level, found in sources.items():
        formats = [name for name in SCORED_FORMATS[level] if name in options.formats]
        if not formats:
            continue
        for metric in ("bleu", "pinc"):
            column = f"{metric}_signature"
            counted = found.values(column).annotate(n=Count("pk")).order_by("-n", column)
            scores += [
                {
                    "score": metric,
                    "of": level,
                    "formats": formats,
                    "signature": row[column],
                    "tokenize": _signature_fields(row[column]).get("tok"),
                    f"{level}s": row["n"],
                }
                for row in counted
            ]
    return scores


def _signature_fields(signature: str) -> dict[str, str]:
    """``nrefs:2|case:mixed|tok:13a|…`` as its fields."""
    return dict(part.split(":", 1) for part in signature.split("|") if ":" in part)


def _card_sections(release, options: ReleaseOptions, previous, changes: dict) -> list[str]:
    lines = [f"## Release {release.number}", ""]
    lines.append(
        f"Made {release.created_at:%Y-%m-%d}. Every file's size and SHA-256, the filter, the "
        "split and the signature of every score are in `manifest.json`; a release never changes."
    )
    others = options.formats[1:]
    if others:
        lines += ["", "Also in this release, one file per split:", ""]
        lines += [f"- `{name}/`: {FORMATS[name].description}" for name in others]
    lines += [""]
    if previous is None:
        lines += ["The first release.", ""]
    else:
        lines += [
            f"### Changes since release {previous.number}",
            "",
            "| split | added | removed |",
            "|---|---|---|",
        ]
        lines += [
            f"| {side} | {n['added']:,} | {n['removed']:,} |"
            for side, n in changes["splits"].items()
        ]
        if not changes["splits"]:
            lines.append("| (none) | 0 | 0 |")
        lines += ["", f"`{CHANGES_FILE}` lists each description added or removed, by id.", ""]
    lines += ["## Licence", "", f"`{settings.RELEASE_LICENSE}`", "", "## Citation", ""]
    citation = settings.RELEASE_CITATION.strip()
    if citation.startswith("@"):
        lines += ["```bibtex", citation, "```"]
    else:
        lines.append(citation or f"ParaCrowd video descriptions, release {release.number}.")
    lines.append("")
    return lines
