"""Paraphrase tables: P(paraphrase | phrase) for phrases of one language.

The file format is METEOR 1.5's, so a table moves between ParaCrowd and METEOR in both
directions: a gzip-compressed UTF-8 text file holding one entry per three lines,

    0.0432876
    is cutting
    slices

the probability, then the phrase, then its paraphrase, each phrase as space-separated tokens
(METEOR's own tables are lowercased and tokenised; ours are lowercased and tokenised with
13a, as ``meteor_score`` sees the sentences). ``load`` also reads the same text uncompressed.
``save`` writes entries sorted by phrase, then by falling probability, with a zero gzip time
stamp, so the same table always gives the same bytes and the same ``checksum``. It may also
write a *comment* in the gzip header (RFC 1952's FCOMMENT, which every gzip reader, METEOR's
included, skips): where the table came from, kept in the file without changing its format;
``header_comment`` reads it back.
"""

from __future__ import annotations

import gzip
import hashlib
import io
import os
import struct
import zlib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

Phrase = tuple[str, ...]
GZIP_MAGIC = b"\x1f\x8b"
# gzip header flags (RFC 1952, 2.3.1) and the longest comment ``header_comment`` reads.
_FHCRC, _FEXTRA, _FNAME, _FCOMMENT = 0x02, 0x04, 0x08, 0x10
COMMENT_MAX = 65_536


class TableFormatError(ValueError):
    """A paraphrase table file that is not in METEOR's format; the message names the line."""


def as_phrase(text: str | Iterable[str]) -> Phrase:
    """A phrase as a tuple of tokens, from a space-separated string or from tokens."""
    return tuple(text.split()) if isinstance(text, str) else tuple(text)


@dataclass
class ParaphraseTable:
    """Phrase → {paraphrase: probability}. Both sides are tuples of tokens.

    An entry says that ``paraphrase`` may replace ``phrase``; matching tries every entry in
    both directions (a phrase of the hypothesis against a paraphrase in the reference, and
    the reverse), as METEOR does, so a table need not list both directions.
    """

    entries: dict[Phrase, dict[Phrase, float]] = field(default_factory=dict)
    _max_length: int = field(default=0, init=False, repr=False, compare=False)
    _max_length_of: object = field(default=None, init=False, repr=False, compare=False)
    _entry_rows: int = field(default=-1, init=False, repr=False, compare=False)

    def add(self, phrase: str | Iterable[str], paraphrase: str | Iterable[str], probability):
        """Add (or replace) one entry; a phrase never paraphrases itself."""
        phrase, paraphrase = as_phrase(phrase), as_phrase(paraphrase)
        if not phrase or not paraphrase:
            raise ValueError("a paraphrase table entry needs two non-empty phrases")
        probability = float(probability)
        if not 0.0 <= probability <= 1.0:
            raise ValueError(f"probability {probability!r} is not between 0 and 1")
        if phrase != paraphrase:
            fresh = self._max_length_of is self.entries and self._entry_rows == len(self.entries)
            self.entries.setdefault(phrase, {})[paraphrase] = probability
            if fresh:
                self._max_length = max(self._max_length, len(phrase), len(paraphrase))
                self._entry_rows = len(self.entries)

    def paraphrases(self, phrase: str | Iterable[str]) -> dict[Phrase, float]:
        return self.entries.get(as_phrase(phrase), {})

    def __len__(self) -> int:
        return sum(len(row) for row in self.entries.values())

    def __iter__(self) -> Iterator[tuple[Phrase, Phrase, float]]:
        """Entries in the saved order: by phrase, then by falling probability."""
        for phrase in sorted(self.entries):
            row = self.entries[phrase]
            for paraphrase in sorted(row, key=lambda p: (-row[p], p)):
                yield phrase, paraphrase, row[paraphrase]

    def __eq__(self, other) -> bool:
        return isinstance(other, ParaphraseTable) and self.entries == other.entries

    @property
    def max_length(self) -> int:
        """The longest phrase on either side, in tokens (0 for an empty table)."""
        # Kept up to date by ``add``; recomputed when ``entries`` was filled directly.
        if self._max_length_of is not self.entries or self._entry_rows != len(self.entries):
            self._max_length = max(
                (max((len(p), *(len(q) for q in row))) for p, row in self.entries.items()),
                default=0,
            )
            self._max_length_of, self._entry_rows = self.entries, len(self.entries)
        return self._max_length

    def above(self, threshold: float) -> ParaphraseTable:
        """The entries whose probability is at least ``threshold``."""
        table = ParaphraseTable()
        for phrase, paraphrase, probability in self:
            if probability >= threshold:
                table.add(phrase, paraphrase, probability)
        return table

    # The file format -------------------------------------------------------------------

    def text(self) -> str:
        """The table in METEOR's text format (what ``save`` compresses)."""
        lines = []
        for phrase, paraphrase, probability in self:
            lines += [repr(float(probability)), " ".join(phrase), " ".join(paraphrase)]
        return "".join(line + "\n" for line in lines)

    def checksum(self) -> str:
        """The first 12 hex digits of the SHA-256 of ``text()``: names a table in signatures."""
        return hashlib.sha256(self.text().encode()).hexdigest()[:12]

    def save(self, path: str | os.PathLike, *, comment: str = "") -> None:
        """Write the table gzip-compressed in METEOR's format (the same bytes every time),
        with ``comment`` (Latin-1 text without NUL) in the gzip header when given."""
        if comment:
            _save_with_comment(path, self.text().encode(), comment)
            return
        with (
            open(path, "wb") as raw,
            gzip.GzipFile(filename="", fileobj=raw, mode="wb", mtime=0) as file,
        ):
            file.write(self.text().encode())

    @classmethod
    def load(cls, path: str | os.PathLike) -> ParaphraseTable:
        """Read a table in METEOR's format, gzip-compressed or not.

        Raises TableFormatError naming the file and line of the first malformed entry (a
        probability that is not a number between 0 and 1, an empty phrase, an entry cut
        short), and OSError when the file cannot be read.
        """
        with open(path, "rb") as raw:
            compressed = raw.read(2) == GZIP_MAGIC
        opener = gzip.open if compressed else open
        try:
            with opener(path, "rb") as binary:
                return cls.parse(io.TextIOWrapper(binary, encoding="utf-8"), name=str(path))
        except (UnicodeDecodeError, EOFError, gzip.BadGzipFile) as error:
            raise TableFormatError(f"{path}: not a readable paraphrase table: {error}") from None

    @classmethod
    def parse(cls, lines: Iterable[str], *, name: str = "<table>") -> ParaphraseTable:
        """Read METEOR's text format from lines (see ``load``)."""
        table = cls()
        record: list[tuple[int, str]] = []
        for number, line in enumerate(lines, start=1):
            record.append((number, line.rstrip("\n").rstrip("\r")))
            if len(record) == 3:
                table._add_record(record, name)
                record = []
        if record:
            raise TableFormatError(
                f"{name}:{record[0][0]}: the last entry has {len(record)} of its 3 lines "
                "(probability, phrase, paraphrase)"
            )
        return table

    def _add_record(self, record: list[tuple[int, str]], name: str) -> None:
        (number, probability), (phrase_line, phrase), (paraphrase_line, paraphrase) = record
        try:
            value = float(probability)
        except ValueError:
            raise TableFormatError(
                f"{name}:{number}: expected a probability, found {probability[:60]!r}"
            ) from None
        if not 0.0 <= value <= 1.0:
            raise TableFormatError(f"{name}:{number}: probability {value!r} is not in [0, 1]")
        for line_number, text in ((phrase_line, phrase), (paraphrase_line, paraphrase)):
            if not text.split():
                raise TableFormatError(f"{name}:{line_number}: empty phrase")
        self.add(phrase, paraphrase, value)


def _save_with_comment(path, data: bytes, comment: str) -> None:
    """gzip with a header comment, which Python's gzip module cannot write: the header by
    hand (zero time stamp, unknown OS, as ``GzipFile`` writes them), then raw deflate, then
    the CRC-32 and length."""
    if "\x00" in comment or len(comment) > COMMENT_MAX:
        raise ValueError(f"a gzip comment holds no NUL and at most {COMMENT_MAX} characters")
    header = GZIP_MAGIC + bytes([8, _FCOMMENT]) + struct.pack("<I", 0) + bytes([2, 255])
    compressor = zlib.compressobj(9, zlib.DEFLATED, -zlib.MAX_WBITS)
    body = compressor.compress(data) + compressor.flush()
    trailer = struct.pack("<II", zlib.crc32(data) & 0xFFFFFFFF, len(data) & 0xFFFFFFFF)
    with open(path, "wb") as file:
        file.write(header + comment.encode("latin-1") + b"\x00" + body + trailer)


def header_comment(path: str | os.PathLike) -> str:
    """The comment in a gzip-compressed table's header; "" when it has none, when the table
    is not compressed, or when the header is cut short. OSError when the file cannot be read."""
    with open(path, "rb") as file:
        fixed = file.read(10)
        if len(fixed) < 10 or fixed[:2] != GZIP_MAGIC:
            return ""
        flags = fixed[3]
        if flags & _FEXTRA:
            size = file.read(2)
            if len(size) < 2:
                return ""
            file.seek(struct.unpack("<H", size)[0], os.SEEK_CUR)
        if flags & _FNAME and _zero_terminated(file) is None:
            return ""
        if not flags & _FCOMMENT:
            return ""
        return _zero_terminated(file) or ""


def _zero_terminated(file) -> str | None:
    """Latin-1 text up to a NUL, at most ``COMMENT_MAX`` characters; None when cut short."""
    found = bytearray()
    while len(found) <= COMMENT_MAX:
        byte = file.read(1)
        if not byte:
            return None
        if byte == b"\x00":
            return found.decode("latin-1")
        found += byte
    return None


def merge_tables(tables: Iterable[tuple[ParaphraseTable, float]]) -> ParaphraseTable:
    """Merge tables as Denkowski & Lavie do: the mean of each entry's probabilities weighted
    by the size of the corpus each table came from (an entry absent from a table counts as 0
    there). ``tables`` holds (table, corpus size) pairs."""
    tables = [(table, float(size)) for table, size in tables]
    total = sum(size for _, size in tables)
    merged = ParaphraseTable()
    if total <= 0:
        return merged
    sums: dict[tuple[Phrase, Phrase], float] = {}
    for table, size in tables:
        for phrase, paraphrase, probability in table:
            key = (phrase, paraphrase)
            sums[key] = sums.get(key, 0.0) + size * probability
    for (phrase, paraphrase), weighted in sums.items():
        merged.add(phrase, paraphrase, min(1.0, weighted / total))
    return merged
