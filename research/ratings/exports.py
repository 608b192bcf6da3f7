"""Ratings as researchers take them away: one CSV row per rating, every text cell through the
formula-safe writer (a worker's or an uploader's text never runs as a spreadsheet formula)."""

import csv

from django.db.models import F

from paracrowd.spreadsheets import spreadsheet_cell

from ..models import Rating
from ..selection import worker_label

CSV_HEADER = (
    "batch",
    "item",
    "source",
    "candidate",
    "cluster",
    "judge",
    "semantic",
    "dissimilarity",
    "overall",
    "status",
)


def ratings_for_export(batch=None):
    """Every rating (of ``batch``, when given), rejected ones included with their status, in
    batch and item order, with the judge named as exports name workers."""
    ratings = Rating.objects.all()
    if batch is not None:
        ratings = ratings.filter(item__batch=batch)
    return ratings.annotate(
        judge=worker_label(),
        batch_name=F("item__batch__name"),
        source=F("item__source"),
        candidate=F("item__candidate"),
        cluster=F("item__segment_id"),
        batch_id=F("item__batch_id"),
    ).order_by("item__batch_id", "item_id", "created_at", "pk")


def ratings_csv_rows(batch=None):
    """The CSV's rows: the header, then one row per rating, text cells formula-safe. Read in
    chunks, so any number of ratings streams."""
    yield CSV_HEADER
    for rating in ratings_for_export(batch).iterator(chunk_size=2000):
        yield [
            spreadsheet_cell(rating.batch_name),
            rating.item_id,
            spreadsheet_cell(rating.source),
            spreadsheet_cell(rating.candidate),
            rating.cluster if rating.cluster is not None else "",
            spreadsheet_cell(rating.judge),
            rating.semantic,
            rating.dissimilarity,
            rating.overall,
            rating.status,
        ]


def ratings_csv_write(file, batch=None) -> int:
    """Write the ratings as CSV to ``file``; returns the number of ratings written."""
    writer = csv.writer(file)
    rows = -1
    for row in ratings_csv_rows(batch):
        writer.writerow(row)
        rows += 1
    return rows
