"""Reading a ratings CSV: one judge's rating of one candidate paraphrase per line.

Columns: ``source``, ``candidate``, the ratings (``rating``, or ``semantic``, ``dissimilarity``
and ``overall``), and the references: ``references`` joined with " ||| ", or ``cluster``, the
id of a stored segment whose descriptions are the references. Optional: ``judge`` (who rated;
several judges' ratings of one pair are averaged) and ``language`` (which of the segment's
clusters; needed when the segment has descriptions in several languages).
"""

import csv
import io
from pathlib import Path

from collector.selectors import cluster_descriptions
from paracrowd_metrics.ratings import RatingError, RatingRecord, dimensions_of

REFERENCE_SEPARATOR = " ||| "


def read_ratings(path: Path) -> tuple[list[RatingRecord], tuple[str, ...]]:
    """The records of the file at ``path`` and its rating dimensions; RatingError naming the
    file and line of anything malformed."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise RatingError(f"Cannot read {path}: {error}") from None
    return ratings_from_text(text, name=str(path))


def ratings_from_text(text: str, *, name: str) -> tuple[list[RatingRecord], tuple[str, ...]]:
    """As ``read_ratings``, from the file's text; ``name`` names it in messages."""
    if "\x00" in text:
        raise RatingError(f"{name}: not a text file (it holds a NUL character)")
    reader = csv.DictReader(io.StringIO(text.lstrip("\ufeff"), newline=""))
    try:
        records = list(reader)
    except csv.Error as error:
        raise RatingError(f"{name}:{reader.line_num}: {error}") from None
    columns = set(records[0]) if records else set()
    if not records:
        raise RatingError(f"{name}: no ratings (a header line and one line per rating)")
    missing = [c for c in ("source", "candidate") if c not in columns]
    if missing or not ({"references", "cluster"} & columns):
        missing += [] if {"references", "cluster"} & columns else ["references or cluster"]
        raise RatingError(f"{name}: missing columns: {', '.join(missing)}")
    try:
        dimensions = dimensions_of(columns)
    except RatingError as error:
        raise RatingError(f"{name}: {error}") from None
    clusters = {}
    if "cluster" in columns:
        named = {(r.get("cluster") or "").strip() for r in records}
        # Segment ids are database integers: anything longer cannot name one.
        found = cluster_descriptions({int(c) for c in named if c.isdecimal() and len(c) < 19})
        for (segment_id, language), members in found.items():
            clusters.setdefault(str(segment_id), {})[language] = members
    read = []
    for line, row in enumerate(records, start=2):
        where = f"{name}:{line}"
        if None in row or any(row.get(c) is None for c in columns):
            raise RatingError(f"{where}: expected {len(columns)} fields")
        language = (row.get("language") or "").strip()
        references = row.get("references") or ""
        cluster = None
        if references.strip():
            found = references.split(REFERENCE_SEPARATOR)
        else:
            language, found = _cluster(clusters, row.get("cluster") or "", language, where)
            cluster = int(row["cluster"])
        read.append(
            RatingRecord(
                source=row["source"],
                candidate=row["candidate"],
                references=found,
                ratings={d: row[d] for d in dimensions},
                judge=(row.get("judge") or "").strip(),
                language=language,
                where=where,
                cluster=cluster,
            )
        )
    return read, dimensions


def _cluster(clusters, cluster: str, language: str, where: str) -> tuple[str, list[str]]:
    """(language, references) of the stored cluster a line names; ``clusters`` maps each
    segment id (as written) to its clusters by language."""
    cluster = cluster.strip()
    if not cluster:
        raise RatingError(f"{where}: no references and no cluster")
    languages = clusters.get(cluster)
    if not languages:
        raise RatingError(f"{where}: no stored cluster {cluster!r}")
    if language:
        if language not in languages:
            raise RatingError(f"{where}: segment {cluster} has no descriptions in {language}")
    elif len(languages) > 1:
        raise RatingError(
            f"{where}: segment {cluster} has descriptions in {', '.join(sorted(languages))}; "
            "add a language column"
        )
    else:
        (language,) = languages
    return language, [text for _, text in languages[language]]
