"""The file forms of two public monolingual alignment corpora.

- Edinburgh++ (the Cohn et al. 2008 corpus as redistributed with the jacana aligner): a JSON
  array of ``{"id", "name", "source", "target", "sureAlign", "possibleAlign", "score"}``
  records, released as two files: ``*.sure.json`` with the sure links in ``sureAlign`` and
  ``*.sure+poss.json`` with every link in ``sureAlign`` and the possible-only ones in
  ``possibleAlign``. Links are ``i-j``, 0-based, ``i`` in ``source``; tokens are separated by
  spaces. The MSR RTE majority files use the same record form.
- MultiMWA (Lan et al. 2021): one pair per tab-separated line, ``id, sentence 1, N/A,
  sentence 2, N/A, label, label, sure links, possible-only links`` (more columns may follow),
  links ``i-j`` 0-based with ``i`` in sentence 1.

Reading keeps both tiers; writing gives back files these readers read to the same pairs.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from pathlib import Path

from .links import AlignedPair, Alignment, Link

PathLike = str | os.PathLike[str]


def _links(text: str, where: str) -> set[Link]:
    found = set()
    for item in text.split():
        i, dash, j = item.partition("-")
        if not (dash and i.isdecimal() and j.isdecimal()):
            raise ValueError(f"{where}: not a link 'i-j': {item!r}")
        found.add((int(i), int(j)))
    return found


def _format_links(links: Iterable[Link]) -> str:
    return " ".join(f"{i}-{j}" for i, j in sorted(links))


def _records(path: PathLike) -> dict[str, dict]:
    text = Path(path).read_text(encoding="utf-8").replace("\ufeff", "")
    try:
        records = json.loads(text)
    except json.JSONDecodeError as error:
        raise ValueError(f"{path}: not JSON ({error.msg}, line {error.lineno})") from None
    if not isinstance(records, list):
        raise ValueError(f"{path}: expected a JSON array of pairs")
    by_id = {}
    for number, record in enumerate(records, 1):
        missing = {"source", "target", "sureAlign"} - set(
            record if isinstance(record, dict) else ()
        )
        if missing:
            raise ValueError(f"{path}: record {number} lacks {', '.join(sorted(missing))}")
        by_id[str(record.get("id", number))] = record
    return by_id


def edinburgh_partner(path: PathLike) -> Path:
    """The other file of an Edinburgh++ pair: ``x.sure.json`` ↔ ``x.sure+poss.json``; jacana's
    MT-reference files are ``x.json`` (sure links, possible ones beside them) and
    ``x.sure+poss.json``, so a plain ``x.json`` is paired with ``x.sure+poss.json``."""
    path = Path(path)
    if path.name.endswith(".sure+poss.json"):
        return path.with_name(path.name.removesuffix(".sure+poss.json") + ".sure.json")
    if path.name.endswith(".sure.json"):
        return path.with_name(path.name.removesuffix(".sure.json") + ".sure+poss.json")
    if path.name.endswith(".json"):
        return path.with_name(path.name.removesuffix(".json") + ".sure+poss.json")
    raise ValueError(f"{path}: an Edinburgh++ file ends in .sure.json, .sure+poss.json or .json")


def read_edinburgh(
    sure_path: PathLike | None, sure_possible_path: PathLike | None
) -> list[AlignedPair]:
    """Read an Edinburgh++ pair of files (either may be None, not both).

    Sure links come from the sure file; every link from the sure+poss file. With only the
    sure+poss file, sure links are its ``sureAlign`` less its ``possibleAlign``; with only the
    sure file, there are no possible links.
    """
    if sure_path is None and sure_possible_path is None:
        raise ValueError("an Edinburgh++ corpus needs its .sure.json or .sure+poss.json file")
    sure_records = _records(sure_path) if sure_path else None
    every_records = _records(sure_possible_path) if sure_possible_path else None
    ids = list((sure_records or every_records).keys())
    if sure_records and every_records and set(sure_records) != set(every_records):
        raise ValueError(f"{sure_path} and {sure_possible_path} hold different pair ids")
    pairs = []
    for pair_id in ids:
        first = (sure_records or every_records)[pair_id]
        source, target = tuple(first["source"].split()), tuple(first["target"].split())
        where = f"pair {pair_id}"
        if every_records:
            record = every_records[pair_id]
            if (tuple(record["source"].split()), tuple(record["target"].split())) != (
                source,
                target,
            ):
                raise ValueError(f"{where}: the two files tokenise the sentences differently")
            possible_only = _links(record.get("possibleAlign", ""), where)
            every = _links(record["sureAlign"], where) | possible_only
        if sure_records:
            sure = _links(sure_records[pair_id]["sureAlign"], where)
        else:
            sure = every - possible_only
        if not every_records:
            every = sure
        pairs.append(AlignedPair(pair_id, source, target, Alignment(sure=sure, possible=every)))
    return pairs


def _edinburgh_record(pair: AlignedPair, sure_align: Iterable[Link], possible: Iterable[Link]):
    return {
        "id": pair.pair_id,
        "name": pair.pair_id,
        "source": " ".join(pair.source),
        "target": " ".join(pair.target),
        "sureAlign": _format_links(sure_align),
        "possibleAlign": _format_links(possible),
        "score": "0.0",
    }


def edinburgh_records(pair: AlignedPair) -> tuple[dict, dict]:
    """One pair's record in the sure file and in the sure+poss file."""
    alignment = pair.alignment
    return (
        _edinburgh_record(pair, alignment.sure, ()),
        _edinburgh_record(pair, alignment.possible, alignment.possible_only),
    )


def write_edinburgh(pairs: Iterable[AlignedPair]) -> tuple[str, str]:
    """The texts of the ``.sure.json`` and ``.sure+poss.json`` files for these pairs."""
    records = [edinburgh_records(pair) for pair in pairs]
    return tuple(
        json.dumps([tier[k] for tier in records], ensure_ascii=False, indent=1) + "\n"
        for k in (0, 1)
    )


def read_multimwa(path: PathLike) -> list[AlignedPair]:
    """Read a MultiMWA TSV file (see the module docs)."""
    pairs = []
    text = Path(path).read_text(encoding="utf-8").replace("\ufeff", "")
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        columns = line.split("\t")
        if len(columns) < 9:
            raise ValueError(f"{path}, line {number}: expected 9 tab-separated columns")
        where = f"{path}, line {number}"
        sure = _links(columns[7], where)
        possible = _links(columns[8], where)
        pairs.append(
            AlignedPair(
                columns[0],
                tuple(columns[1].split()),
                tuple(columns[3].split()),
                Alignment(sure=sure, possible=possible),
            )
        )
    return pairs


def multimwa_line(pair: AlignedPair) -> str:
    """One pair as a MultiMWA line, newline-terminated."""
    alignment = pair.alignment
    columns = [
        pair.pair_id,
        " ".join(pair.source),
        "N/A",
        " ".join(pair.target),
        "N/A",
        "1",
        "1",
        _format_links(alignment.sure),
        _format_links(alignment.possible_only),
    ]
    return "\t".join(columns) + "\n"


def write_multimwa(pairs: Iterable[AlignedPair]) -> str:
    """MultiMWA TSV text for these pairs."""
    return "".join(multimwa_line(pair) for pair in pairs)
