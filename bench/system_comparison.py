"""System scoring as a job: what a web request does now against what it did, and the paired
bootstrap against a plain resampling loop, both measured in this run.

1. Request work at the documented maximum (2,000 pairs, sources in clusters of ~40): before,
   the request scored every pair (sentence BLEU against the cluster, PINC against the source,
   the METEOR-style score); now it only checks the request and builds the job's rows
   (SystemScoreRequestSerializer). The reference is the scoring the request used to do.
2. Comparing three systems with a baseline on 2,000 items (four sentence-level scores, 1,000
   resamples each): paracrowd_metrics.significance.paired_bootstrap against the same resampling
   written as a Python loop over random.choices, which is also checked to agree.

Sentences come from the MSVD S2VT files in $PARACROWD_DATA or ../shared/data when present,
otherwise from seeded generated clusters. Times are CPU times, printed, never asserted.

    .venv/bin/python bench/system_comparison.py            # full run, under a minute
    .venv/bin/python bench/system_comparison.py --quick    # smoke run, seconds
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "paracrowd.settings")
os.environ.setdefault("SECRET_KEY", "bench")

import argparse
import random
import statistics
import time
from pathlib import Path

import django

django.setup()

from bench._msvd import msvd_clusters, msvd_folder, random_clusters  # noqa: E402
from paracrowd_metrics import pinc, sentence_bleu  # noqa: E402
from paracrowd_metrics.meteor import Meteor  # noqa: E402
from paracrowd_metrics.significance import paired_bootstrap  # noqa: E402
from research.serializers import SystemScoreRequestSerializer  # noqa: E402

SEED = 2011
clock = time.process_time


def clusters(folder: Path, rng: random.Random) -> list[list[str]]:
    if folder.is_dir():
        return [c for c in msvd_clusters(folder) if len(c) > 2]
    return random_clusters(rng, 500, 40)


def loop_bootstrap(system, baseline, samples, seed):
    """The reference: one Python resample at a time."""
    rng = random.Random(seed)
    differences = [a - b for a, b in zip(system, baseline, strict=True)]
    n = len(differences)
    means = sorted(sum(rng.choices(differences, k=n)) / n for _ in range(samples))
    return means[int(0.025 * samples)], means[int(0.975 * samples) - 1]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    quick = parser.parse_args().quick
    rng = random.Random(SEED)
    folder = msvd_folder()
    corpus = clusters(folder, rng)
    print(f"Clusters: {len(corpus):,} ({'MSVD' if folder.is_dir() else 'generated'})")
    pairs_count = 200 if quick else 2000

    chosen = [rng.choice(corpus) for _ in range(pairs_count)]
    items = []
    for cluster in chosen:
        position = rng.randrange(len(cluster))
        others = cluster[:position] + cluster[position + 1 :]
        items.append((cluster[position], rng.choice(others), others))

    meteor = Meteor()
    started = clock()
    for source, output, references in items:
        sentence_bleu(output, references)
        pinc(source, output)
        meteor.score(output, references)
    before = clock() - started

    body = {
        "pairs": [{"source": source, "output": output} for source, output, _ in items],
        "seed": 1,
    }
    rounds = 5
    started = clock()
    for _ in range(rounds):
        asked = SystemScoreRequestSerializer(data=body)
        assert asked.is_valid(), asked.errors
    after = (clock() - started) / rounds
    size = statistics.mean(map(len, chosen))
    print(f"1. Request work for {pairs_count:,} pairs (mean cluster {size:.0f}):")
    print(f"   before (scored in the request): {before:.2f} s")
    print(f"   now (checked; stored as one row, a worker scores): {after * 1000:.1f} ms")
    print(f"   ratio before/now: {before / after:.0f}x less work in the request")

    samples = 1000
    systems = [[rng.random() * 100 for _ in range(pairs_count)] for _ in range(4)]
    comparisons = 3 * 4  # three systems, four scores each
    started = clock()
    for n in range(comparisons):
        ours = paired_bootstrap(systems[1 + n % 3], systems[0], samples=samples, seed=n)
    vectorised = clock() - started
    reference_runs = 2 if quick else 3
    started = clock()
    for n in range(reference_runs):
        loop_bootstrap(systems[1 + n % 3], systems[0], samples, n)
    loop = (clock() - started) / reference_runs * comparisons
    check = paired_bootstrap(systems[1], systems[0], samples=samples, seed=0)
    reference_low, reference_high = loop_bootstrap(systems[1], systems[0], samples, 0)
    width, reference_width = check.high - check.low, reference_high - reference_low
    print(
        f"2. Paired bootstrap, {comparisons} comparisons × {pairs_count:,} items × "
        f"{samples:,} resamples:"
    )
    print(
        f"   ours: {vectorised:.2f} s; Python loop (reference): {loop:.2f} s; "
        f"ratio {loop / vectorised:.1f}x"
    )
    print(
        f"   95% interval width: ours {width:.2f}, loop {reference_width:.2f} "
        "(same spread, other draws)"
    )
    assert ours is not None


if __name__ == "__main__":
    main()
