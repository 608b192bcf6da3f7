"""correlate_ratings' analysis on 10,000 rated pairs with 40 references each, against calling
sacrebleu's sentence_bleu once per pair (the reference), both measured in this run.

The analysis is everything the command computes: sentence BLEU and PINC, the METEOR-style
score (exact and stem matches, Denkowski & Lavie's English parameters), Pearson and Spearman
of thirteen rows × three dimensions with 1,000 bootstrap resamples, the combined score fitted
on 5 folds and on all pairs, and the reference curve (1, 2, 4, 8, 16 and all references, 10
draws each, with and without the source). The issue's target is under a minute on one core;
the METEOR-style row is also timed alone.

Sentences come from the MSVD S2VT files in $PARACROWD_DATA or ../shared/data when present
(clusters of 52 or more: a candidate, a source, 40 references and 10 held-out sentences),
otherwise from seeded generated clusters. There are no human ratings here: each rating is a
noisy function of the candidate's BLEU against its *held-out* sentences, only so that the
curve's code path has something to find; it checks that BLEU's correlation with such a
rating rises with the number of references. Work runs on one core; CPU times are printed,
never asserted.

    .venv/bin/python bench/correlate_ratings.py            # 10,000 pairs
    .venv/bin/python bench/correlate_ratings.py --quick    # 1,000 pairs, a smoke run
"""

import os
import sys

for variable in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(variable, "1")  # one core, as the target says
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import argparse  # noqa: E402
import random  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import sacrebleu  # noqa: E402

from bench._msvd import msvd_clusters, msvd_folder, random_clusters  # noqa: E402
from paracrowd_metrics import sentence_bleu  # noqa: E402
from paracrowd_metrics.meteor import Meteor  # noqa: E402
from paracrowd_metrics.ratings import RatingRecord, rated_pairs  # noqa: E402
from paracrowd_metrics.ratings_analysis import AnalysisOptions, analyse_ratings  # noqa: E402

SEED = 2011
REFERENCES, HELD_OUT = 40, 10
DIMENSIONS = ("semantic", "dissimilarity", "overall")
clock = time.process_time


def clusters(folder: Path, rng: random.Random) -> list[list[str]]:
    if folder.is_dir():
        return [c for c in msvd_clusters(folder) if len(c) >= 2 + REFERENCES + HELD_OUT]
    return random_clusters(rng, 400, 60)


def records(corpus, count, rng) -> list[RatingRecord]:
    made = []
    for _ in range(count):
        members = rng.sample(rng.choice(corpus), 2 + REFERENCES + HELD_OUT)
        candidate, source = members[0], members[1]
        references, held_out = members[2 : 2 + REFERENCES], members[2 + REFERENCES :]
        similarity = sentence_bleu(candidate, held_out) / 100
        rating = min(4.0, max(1.0, 1 + 3 * similarity + rng.gauss(0, 0.5)))
        made.append(
            RatingRecord(source, candidate, references, dict.fromkeys(DIMENSIONS, rating), "A")
        )
    return made


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    quick = parser.parse_args().quick
    rng = random.Random(SEED)
    folder = msvd_folder()
    corpus = clusters(folder, rng)
    count = 1000 if quick else 10_000
    print(f"Clusters: {len(corpus):,} ({'MSVD' if folder.is_dir() else 'generated'})")
    rated = records(corpus, count, rng)

    started = clock()
    for record in rated:
        sacrebleu.sentence_bleu(record.candidate, list(record.references))
    reference = clock() - started

    meteor = Meteor()
    meteor_seconds = 0.0

    def meteor_score(candidate, references):
        nonlocal meteor_seconds
        started = clock()
        score = meteor.score(candidate, references)
        meteor_seconds += clock() - started
        return score

    started = clock()
    pairs = rated_pairs(rated, DIMENSIONS)
    result = analyse_ratings(
        pairs, DIMENSIONS, options=AnalysisOptions(with_source=True), meteor=meteor_score
    )
    ours = clock() - started

    print(f"{count:,} rated pairs × {REFERENCES} references, one core (CPU seconds):")
    print(f"  sacrebleu sentence_bleu per pair (reference): {reference:.1f} s")
    print(f"  the whole analysis: {ours:.1f} s (target: under 60 s)")
    print(f"    of which the METEOR-style row: {meteor_seconds:.1f} s")
    print(f"  ratio analysis / sacrebleu: {ours / reference:.2f}")
    curve = result["by_references"]
    print("  BLEU's r with the simulated rating by references:")
    print("   " + ", ".join(f"{label}: {point['bleu']:.3f}" for label, point in curve.items()))
    with_source = result["by_references_with_source"]
    print(
        "   with the source: " + ", ".join(f"{k}: {p['bleu']:.3f}" for k, p in with_source.items())
    )
    rises = curve["1"]["bleu"] < curve["4"]["bleu"] < curve["16"]["bleu"]
    print(f"  rises with references: {'yes' if rises else 'NO'}")
    if not rises:
        sys.exit(1)


if __name__ == "__main__":
    main()
