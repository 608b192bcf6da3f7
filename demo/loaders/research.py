"""What the demo researcher finds on the research pages: a rating batch of pairs of the demo's
descriptions, five of its pairs rated by two demo writers (``batch-ratings.tsv``; their
ratings wait for review), enough for the site's ratings analysis of *Every rating as CSV*,
and the others waiting for judges; a finished export of the corpus; a finished ratings
analysis of ``ratings.csv``.

Exports and analyses are Celery work. The demo runs each job's own function here, after
recording it as the pages do, so both are finished before the site serves its first page;
the queued message then finds the job done and leaves it alone."""

import csv

from crowd.models import HitType
from paracrowd_metrics.ratings_analysis import AnalysisOptions
from research import services as research
from research.correlation import correlation_parameters
from research.exports import ExportOptions
from research.models import CorrelationReport, ExportJob, RatingBatch
from research.ratings.batches import items_from_corpus, rating_batch_create
from research.ratings.services import rating_submit

from . import DATA
from .accounts import WRITERS
from .tasks import tasks_do

RATING_BATCH_NAME = "Demo: descriptions as paraphrases of each other"
RATING_ITEMS = 8
EXPORT_FORMAT = "jsonl"
RATINGS = DATA / "ratings.csv"
BATCH_RATINGS = DATA / "batch-ratings.tsv"
# Small enough to take about a second; the page's defaults are for real files.
ANALYSIS_OPTIONS = AnalysisOptions(folds=3, draws=5, resamples=200, seed=1)


def rating_batch_load(*, created_by) -> RatingBatch:
    """Pairs of accepted demo descriptions of one cluster, two judges each (Tier 1)."""
    batch = RatingBatch.objects.filter(name=RATING_BATCH_NAME).first()
    return batch or rating_batch_create(
        name=RATING_BATCH_NAME,
        origin=RatingBatch.Origin.CORPUS,
        language="en",
        items=items_from_corpus(language="en", count=RATING_ITEMS, seed=0),
        created_by=created_by,
        judges=2,
        show_video=True,
    )


def batch_ratings_load(*, batch: RatingBatch, writers) -> None:
    """The demo writers rate the batch's pairs of ``batch-ratings.tsv`` as judges do."""
    items = {(item.source, item.candidate): item.item_id for item in batch.items.all()}
    by_writer = {}
    with BATCH_RATINGS.open(encoding="utf-8", newline="") as rows:
        for line, row in enumerate(csv.DictReader(rows, delimiter="\t"), start=2):
            item_id = items.get((row.pop("source"), row.pop("candidate")))
            if item_id is None:
                raise ValueError(f"{BATCH_RATINGS}:{line}: the demo batch has no such pair")
            by_writer.setdefault(row.pop("writer"), {})[item_id] = row
    for name, values in by_writer.items():
        writer = writers[name]
        tasks_do(
            worker=writer,
            tier=WRITERS[name],
            kind=HitType.Kind.RATING,
            answers=values,
            submit=lambda assignment, values, writer=writer: rating_submit(
                assignment_id=assignment.pk, worker=writer, values=values
            ),
        )


def export_load(*, researcher) -> ExportJob:
    """The researcher's export of the accepted corpus (one cluster a line), finished."""
    job = ExportJob.objects.filter(requested_by=researcher).order_by("pk").first()
    if job is None:
        job = research.export_job_create(user=researcher, options=ExportOptions(EXPORT_FORMAT))
    if not job.is_finished:
        research.export_job_run(job_id=job.pk)
    job.refresh_from_db()
    return job


def analysis_load(*, researcher) -> CorrelationReport:
    """The researcher's analysis of the demo ratings against the metrics, finished."""
    report = CorrelationReport.objects.filter(requested_by=researcher).order_by("pk").first()
    if report is None:
        text = RATINGS.read_text(encoding="utf-8")
        report = research.correlation_report_create(
            user=researcher,
            name=RATINGS.name,
            ratings_csv=text,
            parameters=correlation_parameters(
                text=text,
                name=RATINGS.name,
                options=ANALYSIS_OPTIONS,
                dimension=None,
                meteor=True,
            ),
        )
    research.correlation_report_run(report_id=report.pk)
    report.refresh_from_db()
    return report
