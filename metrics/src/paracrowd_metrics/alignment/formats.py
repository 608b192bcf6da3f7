"""Reading and writing alignments in the common file formats.

- Pharaoh/Moses: one sentence pair per line, links ``i-j`` (sure) or ``ipj`` (possible), 0-based.
- NAACL/WPT: one link per line, ``sentence i j [S|P] [confidence]``; the WPT-03 files number
  sentences and words from 1, and position 0 stands for NULL. A missing S|P column means S.
- MSR RTE-2 alignments (Brockett 2007): the per-annotator GIZA++-like ``*.align.txt`` files and
  the majority-vote ``*.json`` files. The RTE text T is the source and the hypothesis H the target.
"""

from __future__ import annotations

import json
import os
import re
from collections import defaultdict
from collections.abc import Iterable, Mapping
from pathlib import Path

from .links import AlignedPair, Alignment, Link

PathLike = str | os.PathLike[str]

_PHARAOH_LINK = re.compile(r"(\d+)([-p])(\d+)")


def parse_pharaoh(line: str) -> Alignment:
    """Read one Pharaoh/Moses line such as ``0-0 1-2 3p4`` (``p`` marks a possible link)."""
    sure: set[Link] = set()
    possible: set[Link] = set()
    for item in line.split():
        match = _PHARAOH_LINK.fullmatch(item)
        if match is None:
            raise ValueError(f"not a Pharaoh link: {item!r}")
        link = (int(match[1]), int(match[3]))
        (sure if match[2] == "-" else possible).add(link)
    return Alignment(sure=sure, possible=possible)


def format_pharaoh(alignment: Alignment) -> str:
    """Write one alignment as a Pharaoh/Moses line, links in (i, j) order."""
    return " ".join(
        f"{i}{'-' if (i, j) in alignment.sure else 'p'}{j}" for i, j in sorted(alignment.possible)
    )


def read_pharaoh(lines: Iterable[str]) -> list[Alignment]:
    """Read a Pharaoh/Moses file (or any iterable of lines): one alignment per line."""
    return [parse_pharaoh(line) for line in lines]


def write_pharaoh(alignments: Iterable[Alignment]) -> str:
    """Pharaoh/Moses text for the alignments, one line each, newline-terminated."""
    return "".join(format_pharaoh(alignment) + "\n" for alignment in alignments)


def read_naacl(lines: Iterable[str], *, one_based: bool = True) -> dict[int, Alignment]:
    """Read NAACL/WPT links, keyed by sentence number (as written in the file).

    With ``one_based`` (the WPT convention) word positions are shifted to 0-based and links to
    NULL (position 0) are dropped, since an ``Alignment`` only holds links between words.
    """
    sure: defaultdict[int, set[Link]] = defaultdict(set)
    possible: defaultdict[int, set[Link]] = defaultdict(set)
    shift = 1 if one_based else 0
    for number, line in enumerate(lines, start=1):
        fields = line.split()
        if not fields:
            continue
        if len(fields) < 3 or len(fields) > 5:
            raise ValueError(f"line {number}: expected 'sentence i j [S|P] [confidence]'")
        sentence, i, j = (int(value) for value in fields[:3])
        kind = fields[3].upper() if len(fields) > 3 else "S"
        if kind not in ("S", "P"):
            raise ValueError(f"line {number}: link type must be S or P, not {fields[3]!r}")
        if one_based and (i == 0 or j == 0):
            sure.setdefault(sentence, set())  # a sentence with only NULL links still exists
            continue
        (sure if kind == "S" else possible)[sentence].add((i - shift, j - shift))
    return {
        sentence: Alignment(sure=sure[sentence], possible=possible[sentence])
        for sentence in sorted(set(sure) | set(possible))
    }


def write_naacl(alignments: Mapping[int, Alignment], *, one_based: bool = True) -> str:
    """NAACL/WPT text for the alignments: ``sentence i j S|P`` lines in sentence, link order."""
    shift = 1 if one_based else 0
    lines = []
    for sentence in sorted(alignments):
        alignment = alignments[sentence]
        for i, j in sorted(alignment.possible):
            kind = "S" if (i, j) in alignment.sure else "P"
            lines.append(f"{sentence} {i + shift} {j + shift} {kind}\n")
    return "".join(lines)


def _read_text(path: PathLike) -> str:
    # Some corpora carry byte-order marks mid-file and glued to tokens, not only at the start.
    return Path(path).read_text(encoding="utf-8").replace("\ufeff", "")


def _token_lines(path: PathLike) -> list[tuple[str, ...]]:
    return [tuple(line.split()) for line in _read_text(path).splitlines()]


def read_wpt(
    naacl_path: PathLike, source_path: PathLike, target_path: PathLike
) -> list[AlignedPair]:
    """Read a WPT-03 style corpus: tokenised source and target files plus NAACL links.

    Sentence ``k`` of the NAACL file is line ``k`` (from 1) of the text files; sentences with no
    link get an empty alignment. Pair ids are the sentence numbers as strings.
    """
    sources = _token_lines(source_path)
    targets = _token_lines(target_path)
    if len(sources) != len(targets):
        raise ValueError(f"{len(sources)} source lines but {len(targets)} target lines")
    alignments = read_naacl(_read_text(naacl_path).splitlines())
    unknown = [sentence for sentence in alignments if not 1 <= sentence <= len(sources)]
    if unknown:
        raise ValueError(f"links for sentences {unknown[:5]} beyond the {len(sources)} lines")
    return [
        AlignedPair(str(number), source, target, alignments.get(number, Alignment()))
        for number, (source, target) in enumerate(zip(sources, targets, strict=True), start=1)
    ]


# A hypothesis token and the T positions in its braces, e.g. "killed ({ 12 p11 p13 / / })".
# The closing parenthesis is optional because at least one file ends without it.
_MSR_TOKEN = re.compile(r"(\S+) \(\{([^}]*)\}\)?")
_MSR_HEADER = re.compile(r"#\s*sentence pair\s+(\S+)")


def _parse_msr_hypothesis(line: str) -> tuple[tuple[str, ...], set[Link], set[Link]]:
    entries = _MSR_TOKEN.findall(line)
    if not entries or entries[0][0] != "NULL":
        raise ValueError(f"expected a line starting with 'NULL ({{ ... }})': {line[:60]!r}")
    tokens = []
    sure: set[Link] = set()
    possible: set[Link] = set()
    # entries[0] is NULL, whose braces list the T words aligned to nothing. An Alignment
    # holds links between words only, so such a file is refused rather than read in part
    # (no MSR file lists any: Brockett's κ counts the empty NULL token as one item).
    if any(position != "/" for position in entries[0][1].split()):
        raise ValueError(
            f"text words aligned to NULL are not supported: {line[: line.find('})') + 2]!r}"
        )
    for j, (token, positions) in enumerate(entries[1:]):
        tokens.append(token)
        for position in positions.split():
            if position == "/":
                continue
            if position.startswith("p"):
                possible.add((int(position[1:]) - 1, j))
            else:
                sure.add((int(position) - 1, j))
    return tuple(tokens), sure, possible


def read_msr_annotator(path: PathLike) -> list[AlignedPair]:
    """Read one annotator's MSR RTE alignment file (``RTE2_*_{A,B,C}.align.txt``).

    Each pair is three lines: ``# sentence pair N``, the text T, and the hypothesis H with each
    token's 1-based T positions (``K`` sure, ``pK`` possible). Links come back 0-based as
    (T position, H position); pair ids are the ``N`` of the header.
    """
    lines = [line for line in _read_text(path).splitlines() if line.strip()]
    if len(lines) % 3:
        raise ValueError(f"{path}: expected three lines per sentence pair")
    pairs = []
    for start in range(0, len(lines), 3):
        header = _MSR_HEADER.match(lines[start].strip())
        if header is None:
            raise ValueError(f"{path}: expected '# sentence pair N', got {lines[start][:40]!r}")
        target, sure, possible = _parse_msr_hypothesis(lines[start + 2])
        source = tuple(lines[start + 1].split())
        pairs.append(AlignedPair(header[1], source, target, Alignment(sure, possible)))
    return pairs


def _parse_index_pairs(text: str) -> set[Link]:
    links = set()
    for item in text.split():
        i, _, j = item.partition("-")
        links.add((int(i), int(j)))
    return links


def read_msr_majority(path: PathLike) -> list[AlignedPair]:
    """Read an MSR majority-vote file (``RTE2_*_M.align.sure+poss.json``).

    In these files ``sureAlign`` holds every link (S ∪ P) and ``possibleAlign`` the links that
    are only possible, so the sure links are their difference.
    """
    pairs = []
    for record in json.loads(_read_text(path)):
        every = _parse_index_pairs(record["sureAlign"])
        possible_only = _parse_index_pairs(record["possibleAlign"])
        alignment = Alignment(sure=every - possible_only, possible=every | possible_only)
        pairs.append(
            AlignedPair(
                str(record["id"]),
                tuple(record["source"].split()),
                tuple(record["target"].split()),
                alignment,
            )
        )
    return pairs
