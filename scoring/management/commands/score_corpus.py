"""Recompute every cluster's scores. Fans the work out to the Celery workers when any answer,
so more machines finish sooner; otherwise scores here."""

import time

from django.core.management.base import BaseCommand, CommandError
from django.utils import timezone
from tqdm import tqdm

from collector.models import Description
from paracrowd.celery import app
from paracrowd.wording import counted
from scoring.models import ClusterScore
from scoring.services import segments_score
from scoring.tasks import score_segments

CHUNK = 50
STALL_SECONDS = 120


class Command(BaseCommand):
    help = "Recompute BLEU and PINC for every cluster, with a progress bar."

    def add_arguments(self, parser):
        parser.add_argument(
            "--local", action="store_true", help="score in this process even if workers run"
        )
        parser.add_argument("--no-progress", action="store_true", help="no progress bar")

    def handle(self, *args, local, no_progress, **options):
        segment_ids = sorted(
            set(
                Description.objects.exclude(status=Description.Status.REJECTED).values_list(
                    "segment_id", flat=True
                )
            )
        )
        chunks = [segment_ids[i : i + CHUNK] for i in range(0, len(segment_ids), CHUNK)]
        workers = [] if local else self._workers()
        progress = tqdm(
            total=len(segment_ids), unit="segment", disable=no_progress, file=self.stderr
        )
        started = timezone.now()
        if workers:
            self.stdout.write(f"Fanning out to {len(workers)} Celery worker(s).")
            for chunk in chunks:
                score_segments.delay(chunk)
            # Progress is read from the database, so no result backend is needed.
            done, last_progress = 0, time.monotonic()
            while done < len(segment_ids):
                if time.monotonic() - last_progress > STALL_SECONDS:
                    raise CommandError(
                        f"No progress for {STALL_SECONDS} s with {done} of {len(segment_ids)} "
                        "segments scored; check the workers' logs, or run with --local."
                    )
                time.sleep(0.5)
                now_done = (
                    ClusterScore.objects.filter(computed_at__gte=started)
                    .values("segment_id")
                    .distinct()
                    .count()
                )
                if now_done > done:
                    progress.update(now_done - done)
                    done, last_progress = now_done, time.monotonic()
        else:
            for chunk in chunks:
                segments_score(segment_ids=chunk)
                progress.update(len(chunk))
        progress.close()
        seconds = (timezone.now() - started).total_seconds()
        self.stdout.write(f"Scored {counted(len(segment_ids), 'segment')} in {seconds:.1f} s.")

    def _workers(self):
        """The workers consuming the queue the scoring tasks go to. Others on the same broker
        (another site's, another test run's) would never take them."""
        queue = app.amqp.router.route({}, score_segments.name)["queue"].name
        try:
            consuming = app.control.inspect(timeout=1.0).active_queues() or {}
        except Exception:  # no broker: score here
            return []
        return [
            worker
            for worker, queues in consuming.items()
            if any(entry.get("name") == queue for entry in queues)
        ]
