"""Rows that PostgreSQL writes itself: ``COPY (SELECT …) TO STDOUT`` streamed into a file.

The SELECT is a queryset's own SQL, so the selection's filters apply unchanged, and every value
is formatted in that SQL, so Python only moves bytes: this is about as fast as getting the rows
out of PostgreSQL at all. libpq hands COPY data over one row at a time (psycopg2 calls
``write`` once per row), which lets the file count rows exactly and end each line as the
format needs.
"""

import re

from django.db import connection

from .base import PROGRESS_EVERY, Progress

# What PostgreSQL's text format escapes, and the byte each escape stands for.
_TEXT_ESCAPES = {
    b"\\": b"\\",
    b"b": b"\b",
    b"f": b"\f",
    b"n": b"\n",
    b"r": b"\r",
    b"t": b"\t",
    b"v": b"\v",
}
_TEXT_ESCAPE = re.compile(rb"\\(.)")


def query_sql(queryset) -> str:
    """The queryset's SELECT with its parameters in place (COPY takes no parameters)."""
    sql, params = queryset.query.sql_with_params()
    with connection.cursor() as cursor:
        return cursor.mogrify(sql, params).decode()


class Copied:
    """Where COPY writes, one row per call: counts the rows (and, for numbered rows, the
    clusters) and steps ``progress``. CSV lines end CRLF, as Python's csv writer ends them (a
    line break inside a quoted value stays as it is); text-format rows have PostgreSQL's
    escapes undone, so each value is written as the SELECT gave it."""

    def __init__(self, file, progress: Progress, *, csv: bool, numbered: bool):
        self.file, self.progress, self.csv, self.numbered = file, progress, csv, numbered
        self.separator = b"," if csv else b"\t"
        self.rows = self.clusters = 0

    def write(self, row: bytes) -> None:
        if self.numbered:
            number_end = row.index(self.separator)
            if row[:number_end] == b"1":
                self.clusters += 1
            row = row[number_end + 1 :]
        if self.csv:
            row = row[:-1] + b"\r\n"
        elif b"\\" in row:
            row = _TEXT_ESCAPE.sub(lambda escape: _TEXT_ESCAPES[escape[1]], row)
        self.file.write(row)
        self.rows += 1
        if not self.rows % PROGRESS_EVERY:
            self.progress.step(PROGRESS_EVERY)


def copy_rows(sql: str, file, progress: Progress, *, csv: bool, numbered: bool = False) -> Copied:
    """Write the rows of the SELECT ``sql`` to the binary ``file``; returns how many rows (and
    clusters) were written.

    ``csv``: comma-separated, a value quoted only when it must be (so an empty string must come
    as NULL, which is written as nothing), lines ending CRLF. Otherwise values between tabs,
    exactly as the SELECT gives them: none may hold a tab or a line break, nor be NULL.
    ``numbered``: the SELECT's first column numbers each row within its cluster (from 1); it
    is counted and left out of the file.
    """
    copied = Copied(file, progress, csv=csv, numbered=numbered)
    options = "WITH (FORMAT csv)" if csv else ""
    with connection.cursor() as cursor:
        cursor.copy_expert(f"COPY ({sql}) TO STDOUT {options}", copied)
    progress.step(copied.rows % PROGRESS_EVERY)
    return copied
