"""The pre-aligner against the MSR RTE-2 majority-vote gold alignments.

The aligner (IBM Model 1 then HMM, both directions, intersection, identity lexicon) is
trained on the 1,600 RTE-2 (text, hypothesis) pairs of the majority-vote files, read from
$PARACROWD_DATA (the msr-rte06-align folder, or a folder holding it) or
../shared/data/msr-rte06-align next to the repository, and its links are scored against the
gold sure/possible links of the same pairs (unsupervised: the gold is never seen in training).
For context the same figures are printed for a baseline linking identical words that occur
once on each side. Without the data: a seeded generated word-for-word corpus with known links.
Times are printed, never asserted.

    .venv/bin/python bench/aligner.py            # full run
    .venv/bin/python bench/aligner.py --quick    # smoke run, a few seconds
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import argparse
import json
import random
import time
from collections import Counter
from pathlib import Path

from scoring.metrics.alignment import (
    AlignedPair,
    Alignment,
    corpus_link_counts,
    read_msr_majority,
    train_aligner,
)

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_DATA = ROOT.parent / "shared" / "data" / "msr-rte06-align"
SEED = 1996


def rte_folder() -> Path:
    """The msr-rte06-align folder: $PARACROWD_DATA itself or its subfolder, else the default."""
    configured = os.environ.get("PARACROWD_DATA")
    if not configured:
        return DEFAULT_DATA
    folder = Path(configured)
    return folder / "msr-rte06-align" if (folder / "msr-rte06-align").is_dir() else folder


def generate_pairs(count: int, rng: random.Random) -> list[AlignedPair]:
    """Word-for-word pairs over a made-up lexicon, with local swaps and unaligned words."""
    words = [f"s{number}" for number in range(300)]
    translation = {word: word.replace("s", "t") for word in words}
    pairs = []
    for number in range(count):
        source = [rng.choice(words) for _ in range(rng.randint(5, 15))]
        target, links = [], set()
        for i, word in enumerate(source):
            if rng.random() < 0.1:
                continue  # an unaligned source word
            links.add((i, len(target)))
            target.append(translation[word])
        for position in range(len(target) - 1):
            if rng.random() < 0.1:
                target[position], target[position + 1] = target[position + 1], target[position]
                links = {
                    (i, {position: position + 1, position + 1: position}.get(j, j))
                    for i, j in links
                }
        pairs.append(AlignedPair(str(number), tuple(source), tuple(target), Alignment(sure=links)))
    return pairs


def unique_identical_words(pair: AlignedPair) -> Alignment:
    """Baseline: link words (lowercased) that occur exactly once on each side and are equal."""
    source = [word.lower() for word in pair.source]
    target = [word.lower() for word in pair.target]
    once = {word for word, count in Counter(source).items() if count == 1}
    once &= {word for word, count in Counter(target).items() if count == 1}
    return Alignment(sure={(source.index(word), target.index(word)) for word in once})


def report(label: str, predicted: list[Alignment], gold: list[AlignedPair]) -> None:
    for include_identical in (True, False):
        counts = corpus_link_counts(predicted, gold, include_identical=include_identical)
        scope = "all links" if include_identical else "without identical words"
        print(
            f"  {label:<34}{scope:<25}P {counts.precision:.3f}  R {counts.recall:.3f}  "
            f"F1 {counts.f1:.3f}  AER {counts.aer:.3f}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="a smoke run: fewer pairs and passes")
    parser.add_argument("--iterations", type=int, default=5, help="EM passes of each model")
    arguments = parser.parse_args()
    iterations = 1 if arguments.quick else arguments.iterations

    folder = rte_folder()
    if (folder / "converted").is_dir():
        gold = [
            pair
            for split in ("dev", "test")
            for pair in read_msr_majority(
                folder / "converted" / f"RTE2_{split}_M.align.sure+poss.json"
            )
        ]
        source = f"MSR RTE-2 majority vote, dev + test ({folder})"
    else:
        gold = generate_pairs(1600, random.Random(SEED))
        source = f"generated word-for-word pairs, seed {SEED} (no corpus at {folder})"
    if arguments.quick:
        gold = gold[:200]
    print(f"data: {source}: {len(gold)} pairs")

    started = time.perf_counter()
    aligner = train_aligner([(pair.source, pair.target) for pair in gold], iterations=iterations)
    trained = time.perf_counter() - started
    started = time.perf_counter()
    predicted = [aligner.align(pair.source, pair.target) for pair in gold]
    aligned = time.perf_counter() - started
    stored = len(json.dumps(aligner.to_dict()))
    print(
        f"trained ({iterations} Model 1 + {iterations} HMM passes, both directions) in "
        f"{trained:.1f} s; aligned all pairs in {aligned:.1f} s; stored form {stored / 1e6:.1f} MB"
    )
    print("against the gold sure (S) and possible (P) links:")
    report("aligner (intersection)", predicted, gold)
    report(
        "baseline: unique identical words", [unique_identical_words(pair) for pair in gold], gold
    )


if __name__ == "__main__":
    main()
