"""Readers for existing description corpora. Plain records out, no database in here.

Each reader yields, for every row of its input, either a ``DescriptionRecord`` or a
``MalformedRow`` saying where the row was and what is wrong with it, so that the loader can
report and skip bad rows (or stop at the first one) without knowing any format.

Formats:

``msvd-s2vt``
    The S2VT preprocessing of MSVD: ``sents_*.txt`` files of ``vidN<TAB>sentence`` and a
    ``youtube_video_to_id_mapping.txt`` of ``<YouTubeID>_<start>_<end> vidN``.
``msvd-csv``
    The Microsoft Research Video Description Corpus CSV, with the header
    ``VideoID,Start,End,WorkerID,Source,AnnotationTime,Language,Description``.
``msvd-json``
    The JSON form many captioning projects use: one object
    ``{"<YouTubeID>_<start>_<end>": ["sentence", ...], ...}``; English, no worker, no tier.
    A row's "line" is the sentence's number counted through the file.
"""

import csv
import hashlib
import itertools
import json
import math
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import timedelta
from decimal import Decimal, InvalidOperation
from pathlib import Path

from django.conf import global_settings

from paracrowd.spreadsheets import starts_like_a_formula

FORMATS = ("msvd-s2vt", "msvd-csv", "msvd-json")

S2VT_SENTENCES_GLOB = "sents_*_lc_nopunc.txt"
S2VT_MAPPING_NAME = "youtube_video_to_id_mapping.txt"
CSV_COLUMNS = (
    "VideoID",
    "Start",
    "End",
    "WorkerID",
    "Source",
    "AnnotationTime",
    "Language",
    "Description",
)

# YouTube ids are 11 characters of URL-safe base64; they may contain "_" and "-".
YOUTUBE_ID = re.compile(r"[A-Za-z0-9_-]{11}")
# Segment.start and .end are DecimalField(max_digits=8, decimal_places=2).
MAX_SECONDS = Decimal("999999.99")
CENTI = Decimal("0.01")
# Description.language and Worker.external_id column widths.
MAX_LANGUAGE_LENGTH = 40
# Far above any one-sentence description, and far below what one row of an export may take
# (the Parquet export reads rows in 1 MiB blocks; a row must fit in one).
LONGEST_DESCRIPTION = 5000
MAX_WORKER_ID_LENGTH = 64
# The CSV's Source column: "clean" descriptions came from the paid Tier 2, "unverified" from Tier 1.
CSV_SOURCE_TIERS = {"clean": 2, "unverified": 1}
# Language names the corpora use that Django's list spells differently or splits into variants.
LANGUAGE_ALIASES = {"chinese": "zh", "norwegian": "no", "slovene": "sl", "tagalog": "tl"}


class CorpusFormatError(Exception):
    """The input as a whole cannot be read (a missing file, a missing column)."""


@dataclass(frozen=True, slots=True)
class DescriptionRecord:
    """One description of one YouTube segment, as the corpus states it, and where it was."""

    source: str
    line: int
    import_key: str
    youtube_id: str
    start: Decimal
    end: Decimal
    text: str
    language: str
    worker_external_id: str = ""
    tier: int | None = None
    time_spent: timedelta | None = None


@dataclass(frozen=True, slots=True)
class MalformedRow:
    """A row that cannot be imported, with where it is and why."""

    source: str
    line: int
    reason: str

    def __str__(self):
        return f"{self.source}:{self.line}: {self.reason}"


Row = DescriptionRecord | MalformedRow


class RowError(ValueError):
    """Raised by the field parsers below; the message becomes a MalformedRow's reason."""


# --- files -------------------------------------------------------------------------------------


def read_corpus(path: Path, corpus_format: str, *, mapping: Path | None = None) -> Iterator[Row]:
    """Every row of the corpus at ``path`` in ``corpus_format``.

    Files are found, and the clip mapping and CSV header read, before this returns, so a missing
    file or column is a ``CorpusFormatError`` raised here, never a failure halfway through a load.
    """
    path = Path(path)
    if not path.exists():
        raise CorpusFormatError(f"{path} does not exist.")
    if corpus_format == "msvd-s2vt":
        sentence_files, mapping = s2vt_files(path, mapping)
        clips, mapping_problems = s2vt_clips(numbered_lines(mapping), source=mapping.name)
        return itertools.chain(
            mapping_problems,
            *(
                s2vt_rows(
                    numbered_lines(file),
                    clips=clips,
                    source=file.name,
                    key_prefix=import_key_prefix("msvd-s2vt", file),
                )
                for file in sentence_files
            ),
        )
    if corpus_format == "msvd-csv":
        if path.is_dir():
            raise CorpusFormatError(f"{path} is a folder; msvd-csv reads one CSV file.")
        return msvd_csv_rows(
            numbered_lines(path, keepends=True),
            source=path.name,
            key_prefix=import_key_prefix("msvd-csv", path),
        )
    if corpus_format == "msvd-json":
        if path.is_dir():
            raise CorpusFormatError(f"{path} is a folder; msvd-json reads one JSON file.")
        return msvd_json_rows(
            msvd_json_object(path),
            source=path.name,
            key_prefix=import_key_prefix("msvd-json", path),
        )
    raise CorpusFormatError(
        f"Unknown format {corpus_format!r}; expected one of {', '.join(FORMATS)}."
    )


def s2vt_files(path: Path, mapping: Path | None) -> tuple[list[Path], Path]:
    """The sentence files and the mapping file for an S2VT folder or single sentence file."""
    if path.is_dir():
        sentence_files = sorted(path.glob(S2VT_SENTENCES_GLOB))
        if not sentence_files:
            raise CorpusFormatError(f"{path} holds no {S2VT_SENTENCES_GLOB} files.")
        folder = path
    else:
        sentence_files = [path]
        folder = path.parent
    mapping = Path(mapping) if mapping else folder / S2VT_MAPPING_NAME
    if not mapping.is_file():
        raise CorpusFormatError(
            f"The clip mapping {mapping} does not exist; give it with --mapping."
        )
    return sentence_files, mapping


def import_key_prefix(corpus_format: str, file: Path) -> str:
    """``<format>:<file stem>``, the stem shortened with a hash when it would not fit the column."""
    stem = file.stem
    if len(stem) > 60:
        digest = hashlib.sha256(stem.encode("utf-8", "surrogateescape")).hexdigest()[:12]
        stem = f"{stem[:40]}~{digest}"
    return f"{corpus_format}:{stem}"


def numbered_lines(file: Path, *, keepends: bool = False) -> Iterator[tuple[int, str]]:
    """(line number, text) for each line of ``file``, read lazily.

    Lines end at "\\n" only, as editors count them. Undecodable bytes survive as surrogates,
    which ``storable`` then refuses, so one bad line never stops the rest of the file.
    """
    with file.open("rb") as lines:
        for number, raw in enumerate(lines, start=1):
            line = raw.decode("utf-8", "surrogateescape")
            if number == 1:
                line = line.removeprefix("\ufeff")
            yield number, line if keepends else line.rstrip("\r\n")


# --- msvd-s2vt ---------------------------------------------------------------------------------


def s2vt_clips(
    lines: Iterable[tuple[int, str]], *, source: str
) -> tuple[dict[str, tuple[str, Decimal, Decimal]], list[MalformedRow]]:
    """The mapping file as ``{"vidN": (youtube_id, start, end)}``, and its bad lines."""
    clips: dict[str, tuple[str, Decimal, Decimal]] = {}
    problems = []
    for number, line in lines:
        if not line.strip():
            continue
        try:
            fields = line.split()
            if len(fields) != 2:
                raise RowError(f"expected '<YouTubeID>_<start>_<end> vidN', found {line!r}")
            span, clip = fields
            segment = youtube_span(span)
            if clips.get(clip, segment) != segment:
                raise RowError(f"clip {clip} is mapped twice, to different segments")
        except RowError as error:
            problems.append(MalformedRow(source, number, str(error)))
            continue
        clips[clip] = segment
    return clips, problems


def s2vt_rows(
    lines: Iterable[tuple[int, str]],
    *,
    clips: dict[str, tuple[str, Decimal, Decimal]],
    source: str,
    key_prefix: str,
) -> Iterator[Row]:
    """One record per ``vidN<TAB>sentence`` line; English, no worker, no tier."""
    for number, line in lines:
        if not line.strip():
            continue
        try:
            clip, separator, sentence = line.partition("\t")
            clip = clip.strip()
            if not separator:
                raise RowError("expected 'vidN<TAB>sentence', found no tab")
            if clip not in clips:
                raise RowError(f"clip {clip!r} is not in the clip mapping")
            youtube_id, start, end = clips[clip]
            yield DescriptionRecord(
                source=source,
                line=number,
                import_key=f"{key_prefix}:{number}",
                youtube_id=youtube_id,
                start=start,
                end=end,
                text=description_text(sentence),
                language="en",
            )
        except RowError as error:
            yield MalformedRow(source, number, str(error))


def youtube_span(text: str) -> tuple[str, Decimal, Decimal]:
    """``<YouTubeID>_<start>_<end>`` → (id, start, end). The id itself may contain "_"."""
    youtube_id, *times = text.rsplit("_", 2)
    if len(times) != 2:
        raise RowError(f"{text!r} is not <YouTubeID>_<start>_<end>")
    return segment_span(youtube_id, *times)


# --- msvd-csv ----------------------------------------------------------------------------------


def msvd_csv_rows(
    lines: Iterable[tuple[int, str]], *, source: str, key_prefix: str
) -> Iterator[Row]:
    """One record per CSV row; the header is checked at once. A row's line is where it starts.

    Descriptions may hold commas, quotes and newlines (quoted, as CSV does it).
    """
    reader = csv.reader((text for _, text in lines), strict=True)
    try:
        header = next(reader)
    except StopIteration:
        raise CorpusFormatError(f"{source} is empty.") from None
    except csv.Error as error:
        raise CorpusFormatError(f"{source}: unreadable header: {error}") from None
    missing = [name for name in CSV_COLUMNS if name not in header]
    if missing:
        raise CorpusFormatError(f"{source}: the header lacks {', '.join(missing)}.")
    return _msvd_csv_records(reader, header, source=source, key_prefix=key_prefix)


def _msvd_csv_records(reader, header: list[str], *, source: str, key_prefix: str) -> Iterator[Row]:
    column = {name: header.index(name) for name in CSV_COLUMNS}
    while True:
        start_line = reader.line_num + 1
        try:
            fields = next(reader)
        except StopIteration:
            return
        except csv.Error as error:
            yield MalformedRow(source, start_line, f"not valid CSV: {error}")
            continue
        if not fields:
            continue  # a blank line
        try:
            if len(fields) != len(header):
                raise RowError(f"expected {len(header)} fields, found {len(fields)}")
            value = {name: fields[index] for name, index in column.items()}
            youtube_id, start, end = segment_span(value["VideoID"], value["Start"], value["End"])
            yield DescriptionRecord(
                source=source,
                line=start_line,
                import_key=f"{key_prefix}:{start_line}",
                youtube_id=youtube_id,
                start=start,
                end=end,
                text=description_text(value["Description"]),
                language=language_code(value["Language"]),
                worker_external_id=worker_id(value["WorkerID"]),
                tier=source_tier(value["Source"]),
                time_spent=seconds(value["AnnotationTime"]),
            )
        except RowError as error:
            yield MalformedRow(source, start_line, str(error))


# --- msvd-json ---------------------------------------------------------------------------------


def msvd_json_object(path: Path) -> dict:
    """The file's one JSON object; anything else is a ``CorpusFormatError`` before any load."""
    try:
        data = json.loads(path.read_text(encoding="utf-8").removeprefix("\ufeff"))
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise CorpusFormatError(f"{path.name} is not JSON text: {error}") from None
    if not isinstance(data, dict):
        raise CorpusFormatError(
            f"{path.name}: expected one object of "
            '{"<YouTubeID>_<start>_<end>": [sentences]}, found a JSON '
            f"{type(data).__name__}."
        )
    return data


def msvd_json_rows(data: dict, *, source: str, key_prefix: str) -> Iterator[Row]:
    """One record per sentence; a bad key or a non-list value spoils its sentences only."""
    number = 0
    for span, sentences in data.items():
        if not isinstance(sentences, list) or not sentences:
            number += 1
            yield MalformedRow(source, number, f"{span!r}: expected a list of sentences")
            continue
        try:
            youtube_id, start, end = youtube_span(span)
            span_problem = None
        except RowError as error:
            span_problem = str(error)
        for sentence in sentences:
            number += 1
            try:
                if span_problem:
                    raise RowError(span_problem)
                if not isinstance(sentence, str):
                    raise RowError(f"{span}: a sentence must be text, found {sentence!r}")
                yield DescriptionRecord(
                    source=source,
                    line=number,
                    import_key=f"{key_prefix}:{number}",
                    youtube_id=youtube_id,
                    start=start,
                    end=end,
                    text=description_text(sentence),
                    language="en",
                )
            except RowError as error:
                yield MalformedRow(source, number, str(error))


# --- fields ------------------------------------------------------------------------------------


def segment_span(youtube_id: str, start: str, end: str) -> tuple[str, Decimal, Decimal]:
    """A YouTube id and two times, checked against what the Segment table accepts."""
    youtube_id = youtube_id.strip()
    if not YOUTUBE_ID.fullmatch(youtube_id):
        raise RowError(f"{youtube_id!r} is not a YouTube video id (11 of A-Z a-z 0-9 _ -)")
    start_seconds, end_seconds = time_point(start, "start"), time_point(end, "end")
    if end_seconds <= start_seconds:
        raise RowError(f"the segment ends ({end_seconds}s) before it starts ({start_seconds}s)")
    return youtube_id, start_seconds, end_seconds


def time_point(text: str, name: str) -> Decimal:
    try:
        value = Decimal(text.strip())
    except InvalidOperation:
        raise RowError(f"{name} {text!r} is not a number of seconds") from None
    if not value.is_finite() or not 0 <= value <= MAX_SECONDS:
        raise RowError(f"{name} {text!r} is not between 0 and {MAX_SECONDS} seconds")
    if value != value.quantize(CENTI):
        raise RowError(f"{name} {text!r} has more than two decimal places")
    return value.quantize(CENTI)


def description_text(text: str) -> str:
    """The description exactly as written; refused if empty, longer than
    ``LONGEST_DESCRIPTION`` or not storable."""
    if not text.strip():
        raise RowError("the description is empty")
    if len(text) > LONGEST_DESCRIPTION:
        raise RowError(
            f"the description is {len(text):,} characters long; a description is one "
            f"sentence, at most {LONGEST_DESCRIPTION:,}"
        )
    if starts_like_a_formula(text):
        # As at submission: no sentence starts so, and a spreadsheet would run it.
        raise RowError("the description starts like a spreadsheet formula (= + - @)")
    return storable(text, "the description")


def storable(text: str, what: str) -> str:
    # PostgreSQL text holds neither NUL nor the surrogates that stand in for undecodable bytes.
    if "\x00" in text:
        raise RowError(f"{what} contains a NUL character")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise RowError(f"{what} is not valid UTF-8") from None
    return text


def language_code(name: str) -> str:
    """A language name ("English") as Django's code ("en"); unknown names are kept as written."""
    name = storable(name.strip(), "the language")
    if not name:
        raise RowError("the language is empty")
    code = LANGUAGE_CODES.get(name.lower(), name)
    if len(code) > MAX_LANGUAGE_LENGTH:
        raise RowError(f"the language {name!r} is longer than {MAX_LANGUAGE_LENGTH} characters")
    return code


LANGUAGE_CODES = {
    **{code: code for code, _ in global_settings.LANGUAGES},
    **{name.lower(): code for code, name in global_settings.LANGUAGES},
    **LANGUAGE_ALIASES,
}


def worker_id(text: str) -> str:
    text = storable(text.strip(), "the worker id")
    if len(text) > MAX_WORKER_ID_LENGTH:
        raise RowError(f"the worker id is longer than {MAX_WORKER_ID_LENGTH} characters")
    return text


def source_tier(text: str) -> int:
    try:
        return CSV_SOURCE_TIERS[text.strip().lower()]
    except KeyError:
        raise RowError(f"source {text!r} is neither 'clean' nor 'unverified'") from None


def seconds(text: str) -> timedelta | None:
    """AnnotationTime in seconds; empty means not recorded."""
    if not text.strip():
        return None
    try:
        value = float(text)
    except ValueError:
        raise RowError(f"annotation time {text!r} is not a number of seconds") from None
    if not math.isfinite(value) or value < 0:
        raise RowError(f"annotation time {text!r} is not a non-negative number of seconds")
    return timedelta(seconds=value)
