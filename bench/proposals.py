"""What a proposed segment costs to store, against a description stored in the same run.

Proposing a segment is a claim (a HIT opened for the worker) and a submit that takes the
video's advisory lock, looks for overlapping segments and proposals of that video, and inserts
the proposal. The reference is the description task's claim and submit through the same
services, on the same database, in the same run. Then the lock's price under concurrency:
N threads proposing at once, each on its own video, against N threads all on one video (the
lock serialises them by design). The threads share one Python process, so the interpreter's
own lock limits both alike.

The corpus is MSVD's 1,970 segments (youtube_video_to_id_mapping.txt, from $PARACROWD_DATA or
../shared/data/msvd-s2vt-sents), or seeded generated segments of the same shape without it.
Everything happens in a database of the run's own (bench._run: created empty, dropped at the
end, whatever happens); Celery messages (the descriptions' scoring) go to a queue of the run's
own in REDIS_URL's database, deleted at the end.

    .venv/bin/python bench/proposals.py           # about half a minute
    .venv/bin/python bench/proposals.py --quick   # smoke run, a few seconds
    .venv/bin/python bench/proposals.py --operations 8 --threads 2   # the smallest
"""

import os
import sys

# Run as a script from anywhere: the project root must be importable.
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import argparse
import random
import re
import statistics
import threading
import time
from decimal import Decimal
from pathlib import Path

from bench._run import bench_run

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_DATA = ROOT.parent / "shared" / "data" / "msvd-s2vt-sents"
SEED = 2011
SPAN = re.compile(r"^(?P<video>[A-Za-z0-9_-]{11})_(?P<start>\d+)_(?P<end>\d+)\s")


def corpus_spans(folder: Path, rng: random.Random) -> list[tuple[str, int, int]]:
    mapping = folder / "youtube_video_to_id_mapping.txt"
    if mapping.is_file():
        spans = []
        for line in mapping.read_text().splitlines():
            match = SPAN.match(line + " ")
            if match and int(match["end"]) > int(match["start"]):
                spans.append((match["video"], int(match["start"]), int(match["end"])))
        return spans
    alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_"
    spans = []
    for _ in range(1970 // 4):
        video = "".join(rng.choice(alphabet) for _ in range(11))
        for start in rng.sample(range(0, 600, 20), 4):
            spans.append((video, start, start + rng.randint(4, 10)))
    return spans


def timed(operation, count: int) -> list[float]:
    times = []
    for n in range(count):
        started = time.perf_counter()
        operation(n)
        times.append(time.perf_counter() - started)
    return times


def summary(name: str, times: list[float]) -> float:
    mean = statistics.fmean(times) * 1000
    p99 = sorted(times)[max(0, int(len(times) * 0.99) - 1)] * 1000
    print(f"{name:<48} {len(times):>6} ops  {mean:7.2f} ms mean  {p99:7.2f} ms p99")
    return mean


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="small smoke run")
    parser.add_argument("--operations", type=int, help="operations per measurement (default 600)")
    parser.add_argument("--threads", type=int, default=8, help="concurrent proposers (8)")
    args = parser.parse_args()
    operations = args.operations or (60 if args.quick else 600)
    settings = {"DEBUG": os.environ.get("DEBUG", "True"), "LOG_LEVEL": "ERROR"}
    with bench_run("bench_proposals", **settings):
        measure(args, operations)


def measure(args, operations: int) -> None:
    from django.conf import settings
    from django.db import connection

    from collector import services
    from collector.models import Segment, SegmentProposal
    from crowd import services as crowd
    from crowd.models import HitType, Tier

    rng = random.Random(SEED)
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    settings.PROPOSALS_PER_DAY = 10**9

    spans = corpus_spans(Path(os.environ.get("PARACROWD_DATA", DEFAULT_DATA)), rng)
    segments = Segment.objects.bulk_create(
        Segment(source=Segment.Source.YOUTUBE, youtube_id=video, start=start, end=end)
        for video, start, end in spans
    )
    services.segments_offer(segments=Segment.objects.filter(pk__in=[s.pk for s in segments]))
    videos = sorted({video for video, _, _ in spans})
    print(
        f"corpus: {len(segments)} segments of {len(videos)} YouTube videos; "
        f"{operations} operations per measurement"
    )
    workers = [
        crowd.worker_create(username=f"bench{n}", password="bench-password-1")  # noqa: S106
        for n in range(max(operations, args.threads))
    ]
    vc = HitType.Kind.VIDEO_COLLECTION

    def describe(n):
        assignment = crowd.assignment_claim(worker=workers[n], tier=Tier.ONE)
        services.description_submit(
            assignment_id=assignment.pk,
            worker=workers[n],
            text="A man slices a tomato.",
            language="en",
        )

    # Fresh spans of corpus videos, late in each video: each checks that video's segments.
    def propose_on(video_of, start_of):
        def propose(n):
            assignment = crowd.assignment_claim(worker=workers[n], tier=Tier.ONE, kind=vc)
            start = start_of(n)
            services.proposal_submit(
                assignment_id=assignment.pk,
                worker=workers[n],
                youtube_id=video_of(n),
                start=start,
                end=start + 6,
                event="A man slices a tomato",
            )

        return propose

    reference = summary("description: claim + submit (reference)", timed(describe, operations))
    spread = summary(
        "proposal: claim + submit, a corpus video each",
        timed(
            propose_on(lambda n: videos[n % len(videos)], lambda n: Decimal(4000 + 6 * n)),
            operations,
        ),
    )
    busy = videos[0]
    crowded_times = timed(propose_on(lambda n: busy, lambda n: Decimal(20000 + 6 * n)), operations)
    crowded = summary("proposal: claim + submit, all on one video", crowded_times)
    print(
        f"  ratio proposal / description: {spread / reference:.2f} (a corpus video each), "
        f"{crowded / reference:.2f} (one video, {operations} spans by the end)"
    )

    def concurrent(video_of, offset) -> float:
        claimed = [
            crowd.assignment_claim(worker=workers[n], tier=Tier.ONE, kind=vc)
            for n in range(args.threads)
        ]
        per_thread = max(1, operations // args.threads)
        barrier = threading.Barrier(args.threads)
        errors = []

        def run(t):
            try:
                barrier.wait()
                assignment = claimed[t]
                for i in range(per_thread):
                    start = Decimal(offset + 10 * (t * per_thread + i))
                    services.proposal_submit(
                        assignment_id=assignment.pk,
                        worker=workers[t],
                        youtube_id=video_of(t),
                        start=start,
                        end=start + 6,
                        event="x",
                    )
                    assignment = crowd.assignment_claim(worker=workers[t], tier=Tier.ONE, kind=vc)
            except Exception as error:  # reported below
                errors.append(error)
            finally:
                connection.close()

        threads = [threading.Thread(target=run, args=(t,)) for t in range(args.threads)]
        started = time.perf_counter()
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        elapsed = time.perf_counter() - started
        if errors:
            raise SystemExit(f"concurrent proposals failed: {errors[0]!r}")
        return per_thread * args.threads / elapsed

    apart = concurrent(lambda t: videos[-1 - t], 100_000)
    together = concurrent(lambda t: busy, 200_000)
    print(f"{args.threads} threads proposing at once, own video each: {apart:8.1f} proposals/s")
    print(
        f"{args.threads} threads proposing at once, all on one video: {together:8.1f} proposals/s"
    )
    print(f"  ratio one video / own video: {together / apart:.2f} (the video lock serialises)")

    stored = SegmentProposal.objects.count()
    expected = 2 * operations + 2 * args.threads * max(1, operations // args.threads)
    print(f"check: {stored} proposals stored, {expected} expected")
    connection.close()
    if stored != expected:
        raise SystemExit("stored proposals do not match the submissions")


if __name__ == "__main__":
    try:
        main()
    except KeyboardInterrupt:
        sys.exit("Interrupted; the run's database and queue removed.")
