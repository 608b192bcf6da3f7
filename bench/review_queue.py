"""The qualification queue at the scale of a large collection, and one worker's signals after
a new submission.

A corpus of 5,000 workers and 500,000 descriptions (12,500 segments of about 40 descriptions,
workers as unequal as on a crowd platform: a few write thousands, most a few dozen; some paste
one sentence everywhere, some submit faster than the video plays, some write Hindi or Spanish)
is loaded with COPY, scored (leave-one-out BLEU and PINC of every cluster) and given every
worker's signals with the real services. Then:

- the queue page (/review/workers/, first page, and with each filter) is rendered through
  Django as a staff user: queries counted, time taken. The reference is the same page on the
  first 1% of the corpus (50 workers, 5,000 descriptions), measured in the same run before the
  rest is loaded (at least 50 workers): the number of queries must not change;
- a worker submits one more description and their signals are recomputed as the Celery task
  does (scoring the new description's cluster first), for a worker with a median number of
  descriptions and for the most prolific one. The reference is rescoring that one cluster.

Everything happens in a database of the run's own (bench._run: created empty, dropped at the
end, whatever happens); no other database is touched. No Celery worker runs: the services are
called directly, and the messages they queue go to a queue of the run's own in REDIS_URL's
database, deleted at the end. Times are wall-clock medians, printed, never asserted.

    .venv/bin/python bench/review_queue.py            # 5,000 workers, 500,000 descriptions
    .venv/bin/python bench/review_queue.py --quick    # 500 workers, 50,000 descriptions
    .venv/bin/python bench/review_queue.py --workers 100 --descriptions 1000  # the smallest
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import argparse
import io
import logging
import random
import statistics
import time
import warnings
from datetime import UTC, datetime, timedelta
from pathlib import Path

from bench._run import bench_run
from collector.provenance import UNKNOWN

ROOT = Path(__file__).resolve().parent.parent

MSVD = ROOT.parent / "shared" / "data" / "msvd-s2vt-sents"
SEED = 2011
CLUSTER = 40
REPEATS = 5
REFERENCE_SHARE = 100  # the reference corpus is 1/100 of the full one (at least 50 workers)

HINDI = [
    "एक आदमी गिटार बजा रहा है।",
    "एक महिला टमाटर काट रही है।",
    "दो कुत्ते मैदान में दौड़ रहे हैं।",
    "एक लड़का साइकिल चला रहा है।",
    "बच्चे पानी में तैर रहे हैं।",
    "एक आदमी खाना बना रहा है।",
]
SPANISH = [
    "Un hombre toca la guitarra.",
    "Una mujer corta un tomate.",
    "Dos perros corren por el campo.",
    "Un niño monta en bicicleta.",
    "Un hombre está cocinando la cena.",
]
# fmt: off
SUBJECTS = ["A man", "A woman", "A boy", "A girl", "A dog", "A cat", "Two men", "A child",
            "Someone", "A person", "The chef", "A baby", "A monkey", "A group of people"]
VERBS = ["is slicing", "slices", "is cutting", "cuts", "is playing", "plays", "is riding",
         "rides", "is eating", "eats", "is cooking", "cooks", "is holding", "holds"]
OBJECTS = ["a tomato", "an onion", "the guitar", "a guitar", "a horse", "a bike", "some food",
           "a potato", "a ball", "the piano", "a banana", "a car", "the meat", "a fish"]
EXTRAS = ["", "", "", "in the kitchen", "on the street", "with a knife", "outside", "very fast",
          "slowly", "on a table", "in a park", "at home", "near a river", "with a friend",
          "in the rain", "on a stage", "at night", "in a small room", "for the camera"]
# fmt: on


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--workers", type=int, default=5000)
    parser.add_argument("--descriptions", type=int, default=500_000)
    parser.add_argument("--quick", action="store_true", help="500 workers, 50,000 descriptions")
    args = parser.parse_args()
    if args.quick:
        args.workers, args.descriptions = 500, 50_000
    if args.workers < REFERENCE_SHARE or args.descriptions < args.workers * 10:
        parser.error("at least 100 workers and ten descriptions per worker")
    return args


def english_clusters(count: int, rng: random.Random) -> list[list[str]]:
    """Clusters of paraphrases: MSVD's when the files are at hand (each clip once), then
    generated ones."""
    files = sorted(MSVD.glob("sents_*_lc_nopunc.txt")) if MSVD.is_dir() else []
    clips: dict[str, list[str]] = {}
    for path in files:
        for line in path.read_text(encoding="utf-8").splitlines():
            clip, _, sentence = line.partition("\t")
            if sentence:
                clips.setdefault(clip, []).append(sentence[:1].upper() + sentence[1:] + ".")
    clusters = [sentences for sentences in clips.values() if len(sentences) >= CLUSTER // 2]
    while len(clusters) < count:
        scene = [rng.choice(SUBJECTS), rng.choice(VERBS), rng.choice(OBJECTS)]
        sentences = []
        for _ in range(CLUSTER):
            words = [
                part if rng.random() < 0.7 else rng.choice(pool)
                for part, pool in zip(scene, (SUBJECTS, VERBS, OBJECTS), strict=True)
            ]
            words.append(rng.choice(EXTRAS))
            sentences.append(" ".join(word for word in words if word) + ".")
        clusters.append(sentences)
    return clusters[:count]


class Population:
    """Workers as unequal as on a crowd platform (Zipf-like weights), with their habits: in
    every 50, one pastes a sentence everywhere, two submit faster than the video plays, one
    writes Hindi and one Spanish; 6% of the honest ones are in Tier 2."""

    HABITS = ["paster", "hasty", "hasty", "hindi", "spanish"] + ["honest"] * 45

    def __init__(self, first_pk: int, count: int, rng: random.Random):
        self.pks = list(range(first_pk, first_pk + count))
        self.weights = [1 / (rank + 1) ** 0.8 for rank in range(count)]
        rng.shuffle(self.weights)
        self.habit = {}
        for start in range(0, count, len(self.HABITS)):
            block = self.HABITS[:]
            rng.shuffle(block)
            self.habit.update(zip(self.pks[start : start + len(block)], block, strict=False))
        self.tier2 = {pk for pk in self.pks if self.habit[pk] == "honest" and rng.random() < 0.06}


def copy_corpus(connection, *, population, segment_pks, clusters, rng, start_day) -> int:
    """COPY about CLUSTER descriptions per segment, each by a different worker."""
    buffer = io.StringIO()
    rows = 0
    now = datetime.now(UTC)
    pasted = {}
    for segment_pk, cluster in zip(segment_pks, clusters, strict=True):
        length = 4 + segment_pk % 12
        drawn = rng.choices(population.pks, weights=population.weights, k=CLUSTER * 3)
        # Each worker describes a segment once.
        writers = list(dict.fromkeys(drawn))[:CLUSTER]
        for position, worker in enumerate(writers):
            sentence = cluster[position % len(cluster)]
            habit = population.habit[worker]
            text, language, seconds = sentence, "en", length * rng.uniform(1.5, 6)
            if habit == "paster":
                text = pasted.setdefault(worker, sentence)
            elif habit == "hasty":
                seconds = rng.uniform(1, length * 0.5)
            elif habit == "hindi":
                text, language = rng.choice(HINDI), "hi"
            elif habit == "spanish":
                text, language = rng.choice(SPANISH), "es"
            status = rng.choices(["accepted", "pending", "rejected"], weights=[60, 35, 5])[0]
            created = now - timedelta(days=start_day + rng.random() * 60)
            reviewed, reason = "\\N", ""
            if status != "pending":
                reviewed, reason = (created + timedelta(days=1)).isoformat(), "Reviewed."
            tier = 2 if worker in population.tier2 else 1
            text = text.replace("\\", "\\\\").replace("\t", " ").replace("\n", " ")
            # Loaded without a typing record, as an import is: its signal is "unknown".
            buffer.write(
                f"{segment_pk}\t{worker}\t{tier}\t{text}\t{language}\t\t{seconds:.1f} seconds\t"
                f"{status}\t{created.isoformat()}\t\t{reviewed}\t{reason}\t{{{UNKNOWN}}}\n"
            )
            rows += 1
    buffer.seek(0)
    columns = ["segment_id", "worker_id", "tier", "text", "language", "comment", "time_spent"]
    columns += ["status", "created_at", "import_key", "reviewed_at", "review_reason"]
    columns += ["typing_signals"]
    with connection.cursor() as cursor:
        cursor.copy_from(buffer, "collector_description", columns=columns)
    return rows


def grow(*, workers: int, descriptions: int, rng: random.Random, clusters_source) -> dict:
    """Add ``workers`` workers and about ``descriptions`` descriptions, scored and with
    signals. Returns the phases' times."""
    from decimal import Decimal

    from django.contrib.auth import get_user_model
    from django.db import connection, transaction

    from collector.models import Segment
    from collector.services import segments_offer
    from crowd.models import Qualification, Worker
    from review.services import worker_signals_refresh
    from scoring.services import segments_score

    times = {}
    started = time.perf_counter()
    User = get_user_model()
    offset = User.objects.count()
    users = User.objects.bulk_create(
        # "!" is Django's mark for an unusable password: nobody logs in as these workers.
        [User(username=f"worker{offset + n:05d}", password="!") for n in range(workers)],  # noqa: S106
        batch_size=5000,
    )
    created = Worker.objects.bulk_create(
        [
            Worker(user=user, platform=Worker.Platform.MTURK, external_id=user.username)
            for user in users
        ],
        batch_size=5000,
    )
    population = Population(created[0].pk, workers, rng)
    Qualification.objects.bulk_create(
        Qualification(worker_id=pk, tier=2, reason="Bench: Tier 2.") for pk in population.tier2
    )
    segments = Segment.objects.bulk_create(
        [
            Segment(
                source=Segment.Source.YOUTUBE,
                youtube_id=f"q{offset + n:010d}",
                start=Decimal(0),
                end=Decimal(4 + n % 12),
            )
            for n in range(descriptions // CLUSTER)
        ],
        batch_size=5000,
    )
    segments_offer(segments=Segment.objects.filter(pk__in=[s.pk for s in segments]))
    with transaction.atomic():
        rows = copy_corpus(
            connection,
            population=population,
            segment_pks=[s.pk for s in segments],
            clusters=clusters_source(len(segments)),
            rng=rng,
            start_day=1,
        )
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")
    times["load"] = time.perf_counter() - started

    started = time.perf_counter()
    pks = [s.pk for s in segments]
    for start in range(0, len(pks), 500):
        segments_score(segment_ids=pks[start : start + 500])
    times["score"] = time.perf_counter() - started

    started = time.perf_counter()
    for pk in population.pks:
        worker_signals_refresh(worker_id=pk)
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")
    times["signals"] = time.perf_counter() - started
    times["rows"] = rows
    return times


def measure_page(client, url, params=None):
    """(queries, median seconds) of rendering ``url`` REPEATS times after one warm-up."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    response = client.get(url, params or {})
    assert response.status_code == 200, (url, response.status_code)
    times, counts = [], set()
    for _ in range(REPEATS):
        with CaptureQueriesContext(connection) as captured:
            started = time.perf_counter()
            response = client.get(url, params or {})
            times.append(time.perf_counter() - started)
        assert response.status_code == 200
        counts.add(len(captured))
    assert len(counts) == 1, counts
    return counts.pop(), statistics.median(times)


def ranking_sql_seconds() -> float:
    """The least any ranking costs: count every worker's descriptions, keep the top 50."""
    from django.db import connection

    times = []
    with connection.cursor() as cursor:
        for _ in range(REPEATS):
            started = time.perf_counter()
            cursor.execute(
                "SELECT worker_id, count(*) FROM collector_description GROUP BY worker_id"
                " ORDER BY 2 DESC LIMIT 50"
            )
            cursor.fetchall()
            times.append(time.perf_counter() - started)
    return statistics.median(times)


def queue_views() -> list[tuple[str, dict]]:
    week_ago = (datetime.now(UTC) - timedelta(days=7)).date().isoformat()
    return [
        ("first page", {}),
        ("page 20", {"page": "20"}),
        ("language hi", {"language": "hi"}),
        ("flagged: copied text", {"signal": "duplicates"}),
        ("flagged by none", {"signal": "none"}),
        ("last 7 days", {"since": week_ago}),
    ]


def signals_after_submission(worker_pk: int) -> tuple[float, float, int]:
    """The worker describes one more segment; returns the time to refresh their signals
    (as the Celery task does), the time to rescore that one cluster, and their count."""
    from collector import services
    from crowd import services as crowd
    from crowd.models import Tier, Worker
    from review.services import worker_signals_refresh
    from scoring.services import segments_score

    worker = Worker.objects.get(pk=worker_pk)
    refresh, rescore = [], []
    for n in range(REPEATS):
        assignment = crowd.assignment_claim(worker=worker, tier=Tier.ONE)
        description, _ = services.description_submit(
            assignment_id=assignment.pk,
            worker=worker,
            text=f"A man is playing a guitar on stage number {n}.",
            language="en",
        )
        started = time.perf_counter()
        worker_signals_refresh(worker_id=worker_pk)
        refresh.append(time.perf_counter() - started)
        started = time.perf_counter()
        segments_score(segment_ids=[description.segment_id])
        rescore.append(time.perf_counter() - started)
    return statistics.median(refresh), statistics.median(rescore), worker.descriptions.count()


def main() -> int:
    args = parse_args()
    settings = {
        "DEBUG": "False",
        "SECRET_KEY": "bench-only",
        "ALLOWED_HOSTS": "testserver",
        "SECURE_SSL_REDIRECT": "False",
        "AUTO_PROMOTE_OTHER_LANGUAGES": "False",
    }
    with bench_run("bench_review_queue", **settings):
        return measure(args, log=sys.stderr)


def measure(args, *, log) -> int:
    logging.getLogger("paracrowd.celery").setLevel(logging.ERROR)
    # whitenoise looks for collected static files, which rendering pages here does not need.
    warnings.filterwarnings("ignore", message="No directory at")
    from django.contrib.auth import get_user_model
    from django.db.models import Count
    from django.test import Client
    from django.urls import reverse

    from crowd.models import Worker

    rng = random.Random(SEED)
    clusters = english_clusters(args.descriptions // CLUSTER, rng)
    used = [0]

    def clusters_source(count):
        taken = clusters[used[0] : used[0] + count]
        used[0] += count
        return taken

    staff = get_user_model().objects.create_superuser("bench-admin", "b@example.org", "x")
    client = Client()
    client.force_login(staff)
    queue = reverse("review:queue")

    small_workers = max(args.workers // REFERENCE_SHARE, 50)
    small_descriptions = args.descriptions * small_workers // args.workers
    print(
        f"Reference corpus: {small_workers} workers, {small_descriptions} descriptions…",
        file=log,
        flush=True,
    )
    grow(
        workers=small_workers,
        descriptions=small_descriptions,
        rng=rng,
        clusters_source=clusters_source,
    )
    reference = {name: measure_page(client, queue, p) for name, p in queue_views()}
    reference_sql = ranking_sql_seconds()

    rest_workers = args.workers - small_workers
    rest_descriptions = args.descriptions - small_descriptions
    print(
        f"Growing to {args.workers} workers, {args.descriptions} descriptions…",
        file=log,
        flush=True,
    )
    phases = grow(
        workers=rest_workers,
        descriptions=rest_descriptions,
        rng=rng,
        clusters_source=clusters_source,
    )
    full = {name: measure_page(client, queue, p) for name, p in queue_views()}
    full_sql = ranking_sql_seconds()
    descriptions = Worker.objects.aggregate(n=Count("descriptions"))["n"]
    workers = Worker.objects.count()

    print(
        f"\nCorpus: {workers:,} workers, {descriptions:,} descriptions "
        f"(loaded in {phases['load']:.0f} s, scored in {phases['score']:.0f} s, every worker's "
        f"signals computed in {phases['signals']:.0f} s)"
    )
    share = f"{small_workers / args.workers:.0%}"
    print(f"\nQualification queue ({REPEATS} renders each, median; reference: {share} of it)")
    print(f"{'view':<24}{'queries':>9}{'ref.':>6}{'time':>10}{'ref.':>10}{'ratio':>8}")
    for name, (queries, seconds) in full.items():
        ref_queries, ref_seconds = reference[name]
        print(
            f"{name:<24}{queries:>9}{ref_queries:>6}{seconds * 1000:>8.0f}ms"
            f"{ref_seconds * 1000:>8.0f}ms{seconds / ref_seconds:>7.1f}×"
        )
    bounded = all(full[name][0] == reference[name][0] for name in full)
    print(
        f"Queries the same at {share} and 100% of the corpus: {'yes' if bounded else 'NO'}. "
        f"Bare ranking SQL (count per worker, top 50): {full_sql * 1000:.0f} ms "
        f"(at {share}: {reference_sql * 1000:.0f} ms); first page / bare SQL: "
        f"{full['first page'][1] / full_sql:.1f}×"
    )

    ranked = list(
        Worker.objects.annotate(n=Count("descriptions"))
        .filter(n__gt=0)
        .order_by("n")
        .values_list("pk", "n")
    )
    median_pk = ranked[len(ranked) // 2][0]
    top_pk = ranked[-1][0]
    print(f"\nSignals after one new submission ({REPEATS} submissions each, median)")
    print(f"{'worker':<28}{'refresh':>10}{'rescore cluster':>17}{'ratio':>8}")
    for label, pk in (("median worker", median_pk), ("most prolific worker", top_pk)):
        refresh, rescore, count = signals_after_submission(pk)
        print(
            f"{label + f' ({count:,})':<28}{refresh * 1000:>8.0f}ms{rescore * 1000:>15.0f}ms"
            f"{refresh / rescore:>7.1f}×"
        )
    return 0 if bounded else 1


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        sys.exit("Interrupted; the run's database and queue removed.")
