"""Scenarios of the fault suite about background jobs: a Celery worker killed (SIGKILL) in
the middle of an export job, and in the middle of a correlation report."""

import time
from pathlib import Path

from faults._services import CeleryWorker, wait_until

# Short enough that a killed worker's task comes back within the run; the product's is 300 s.
VISIBILITY_TIMEOUT = 15


def scenario_worker_killed(env: dict, log_dir: Path, *, descriptions: int) -> dict:
    import json

    from django.contrib.auth import get_user_model
    from django.core.files.storage import default_storage

    from collector.models import Description, Segment
    from research.exports import ExportOptions
    from research.models import ExportJob
    from research.services import export_job_create

    segments = list(Segment.objects.all()[:200])
    Description.objects.bulk_create(
        (
            Description(
                segment=segments[n % len(segments)],
                text=f"Someone does thing {n} with care.",
                language="en",
                status=Description.Status.ACCEPTED,
            )
            for n in range(descriptions)
        ),
        batch_size=5000,
    )
    expected = set(
        Description.objects.filter(status=Description.Status.ACCEPTED).values_list("pk", flat=True)
    )
    owner = get_user_model().objects.create_user("faults-researcher", is_staff=True)
    first = CeleryWorker(env, log_dir, "first").start()
    job = export_job_create(user=owner, options=ExportOptions("jsonl"))
    running = wait_until(
        lambda: ExportJob.objects.filter(pk=job.pk, state=ExportJob.State.RUNNING).exists(),
        seconds=60,
    )
    first.kill()  # SIGKILL, mid-export: no acknowledgement, no clean-up
    killed = time.monotonic()
    job.refresh_from_db()
    state_when_killed = job.state if running is not None else "never running"
    second = CeleryWorker(env, log_dir, "second").start()
    try:
        done = wait_until(
            lambda: (
                ExportJob.objects.filter(pk=job.pk)
                .exclude(state__in=[ExportJob.State.QUEUED, ExportJob.State.RUNNING])
                .exists()
            ),
            seconds=VISIBILITY_TIMEOUT * 4 + 30,
        )
    finally:
        second.stop()
    job.refresh_from_db()
    written = []
    for name in job.files:
        with default_storage.open(f"{job.folder}/{name}") as file:
            for line in file:
                written += [member["id"] for member in json.loads(line)["descriptions"]]
    return {
        "killed while": state_when_killed,
        "visibility timeout s": VISIBILITY_TIMEOUT,
        "s from kill to done": None if done is None else round(time.monotonic() - killed, 1),
        "state": job.state,
        "rows expected": len(expected),
        "rows written": len(written),
        "lost": len(expected - set(written)),
        "doubled": len(written) - len(set(written)),
    }


def correlation_ratings_csv(count: int) -> str:
    import csv
    import io

    from paracrowd_metrics.testing import simulated_ratings

    out = io.StringIO()
    columns = ["source", "candidate", "semantic", "dissimilarity", "overall", "judge"]
    writer = csv.DictWriter(out, fieldnames=[*columns, "references"])
    writer.writeheader()
    for record in simulated_ratings(count=count, references=8):
        writer.writerow(
            {
                "source": record.source,
                "candidate": record.candidate,
                **record.ratings,
                "judge": record.judge,
                "references": " ||| ".join(record.references),
            }
        )
    return out.getvalue()


def scenario_correlation_killed(env: dict, log_dir: Path, *, ratings: int) -> dict:
    """A correlation report (a report row claimed by its worker) whose worker is killed while
    it computes: the task the broker hands out again must take the claim over and finish it
    within the visibility timeout and a minute, not wait for a claim to expire."""
    from django.contrib.auth import get_user_model

    from paracrowd_metrics.ratings_analysis import AnalysisOptions
    from research.correlation import correlation_parameters
    from research.models import CorrelationReport
    from research.services import correlation_report_create

    text = correlation_ratings_csv(ratings)
    options = AnalysisOptions(draws=20, resamples=2000, folds=5, reference_counts=(1, 2, None))
    parameters = correlation_parameters(
        text=text, name="faults.csv", options=options, dimension=None, meteor=False
    )
    owner = get_user_model().objects.create_user("faults-analyst", is_staff=True)
    first = CeleryWorker(env, log_dir, "analyst").start()
    report = correlation_report_create(
        user=owner, name="faults.csv", ratings_csv=text, parameters=parameters
    )
    rows = CorrelationReport.objects.filter(pk=report.pk)
    running = wait_until(lambda: rows.filter(state="running").exists(), seconds=120)
    # Killed some way into the computation, not the moment it was claimed.
    time.sleep(2)
    state_when_killed = rows.get().state if running is not None else "never running"
    first.kill()  # SIGKILL: no acknowledgement, no clean-up, the claim left "running"
    killed = time.monotonic()
    second = CeleryWorker(env, log_dir, "analyst-2").start()
    try:
        done = wait_until(
            lambda: rows.exclude(state__in=["queued", "running"]).exists(),
            seconds=VISIBILITY_TIMEOUT + RECOVERY_ALLOWANCE + 60,
        )
    finally:
        second.stop()
    seconds = None if done is None else round(time.monotonic() - killed, 1)
    return {
        "killed while": state_when_killed,
        "visibility timeout s": VISIBILITY_TIMEOUT,
        "s from kill to done": seconds,
        "allowed s": VISIBILITY_TIMEOUT + RECOVERY_ALLOWANCE,
        "state": rows.get().state,
        "in time": seconds is not None and seconds <= VISIBILITY_TIMEOUT + RECOVERY_ALLOWANCE,
    }


# A killed job must be done within the visibility timeout and this (the minute).
RECOVERY_ALLOWANCE = 60
