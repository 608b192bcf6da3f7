"""The pre-aligners against gold alignments: supervised, unsupervised, identical words.

RTE-2 (the MSR alignments of the RTE-2 pairs, the majority of three annotators as gold), read
from $PARACROWD_DATA (the msr-rte06-align folder, or a folder holding it) or
../shared/data/msr-rte06-align next to the repository. The unsupervised model (IBM Model 1
then HMM, both directions, identity lexicon) is trained on the text of the 1,600 pairs, never
their links. The supervised aligner (``paracrowd_metrics.alignment.supervised``) learns from
the 800 dev pairs' gold and is scored on the 800 test pairs, whose gold it never sees; its
features, passes and threshold were chosen on a split of dev alone (``--development``: learn
from 70% of dev, score the other 30%). Clusters: 30 paraphrase pairs written for this
benchmark (bench/data/cluster_pairs.txt), out of domain for an aligner learnt from RTE-2.
Without the data, a generated word-for-word corpus.

Every proposed link counts, sure or possible (``paracrowd_metrics.alignment.evaluation``);
figures are micro P/R/F1/AER over all links and over links between non-identical words. The
baseline links identical words one to one. Times are printed, never asserted.

    .venv/bin/python bench/aligner.py                 # RTE-2 dev → test, and the clusters
    .venv/bin/python bench/aligner.py --development   # the split of dev the choices were made on
    .venv/bin/python bench/aligner.py --quick         # smoke run, a few seconds
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import argparse
import json
import random
import time
from dataclasses import replace
from itertools import combinations
from pathlib import Path

from paracrowd_metrics.alignment import (
    AlignedPair,
    Alignment,
    parse_pharaoh,
    read_msr_majority,
    train_aligner,
)
from paracrowd_metrics.alignment.anchors import is_punctuation
from paracrowd_metrics.alignment.evaluation import evaluate_prealigner, report_lines
from paracrowd_metrics.alignment.features import Lexicon
from paracrowd_metrics.alignment.supervised import train_supervised_aligner
from paracrowd_metrics.alignment.wordnet import DEFAULT_PATH as WORDNET
from paracrowd_metrics.alignment.wordnet import WordNet

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_DATA = ROOT.parent / "shared" / "data" / "msr-rte06-align"
SEED = 1996
CLUSTER_GOLD = ROOT / "bench" / "data" / "cluster_pairs.txt"


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


def compare(title: str, aligners: dict, gold: list[AlignedPair]) -> dict:
    """Print each aligner's figures and the baseline's; return the first aligner's report."""
    print(f"{title}: {len(gold)} pairs, against the gold sure (S) and possible (P) links")
    reports = {}
    for label, aligner in aligners.items():
        started = time.perf_counter()
        reports[label] = evaluate_prealigner(aligner.prealign, gold)
        seconds = time.perf_counter() - started
        for line in report_lines(label, reports[label]):
            print(f"  {line}")
        crossing = sum(
            1
            for pair in gold
            for i, j in aligner.prealign(pair.source, pair.target).possible
            if is_punctuation(pair.source[i]) != is_punctuation(pair.target[j])
        )
        print(f"  ({label}: {seconds:.1f} s; punctuation linked to a word: {crossing})")
    first, *_ = reports.values()
    for line in report_lines("identical words one to one", first["baseline"]):
        print(f"  {line}")
    return reports


def margins(reports: dict) -> None:
    """The supervised aligner's F1 over all links against the others', and how its recall of
    non-identical links compares."""
    supervised, unsupervised = reports["supervised"], reports["unsupervised"]
    baseline = supervised["baseline"]
    gain = supervised["all"]["f1"] - baseline["all"]["f1"]
    over = supervised["all"]["f1"] - unsupervised["all"]["f1"]
    print(
        f"  F1 over all links: supervised {100 * gain:+.1f} points over identical words, "
        f"{100 * over:+.1f} over unsupervised"
    )
    recall = supervised["non_identical"]["recall"]
    for label, other in (("identical words", baseline), ("unsupervised", unsupervised)):
        theirs = other["non_identical"]["recall"]
        ratio = f"{recall / theirs:.2f}×" if theirs else "n/a"
        print(f"  non-identical recall: supervised {recall:.3f} = {ratio} {label}'s {theirs:.3f}")


def read_cluster_gold(path: Path) -> list[AlignedPair]:
    pairs = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        first, second, links = (part.strip() for part in line.split("|||"))
        pairs.append(
            AlignedPair(
                str(number), tuple(first.split()), tuple(second.split()), parse_pharaoh(links)
            )
        )
    return pairs


def msvd_pairings(folder: Path, per_cluster: int, rng: random.Random) -> list[tuple]:
    """Pairs of descriptions of the same video, at most ``per_cluster`` per video."""
    clusters: dict[str, list[tuple[str, ...]]] = {}
    for path in sorted(folder.glob("sents_*.txt")):
        for line in path.read_text(encoding="utf-8").splitlines():
            video, _, sentence = line.partition("\t")
            if sentence.strip():
                clusters.setdefault(video, []).append(tuple(sentence.split()))
    pairings = []
    for members in clusters.values():
        every = list(combinations(range(len(members)), 2))
        for a, b in rng.sample(every, min(per_cluster, len(every))):
            pairings.append((members[a], members[b]))
    return pairings


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="a smoke run: fewer pairs and passes")
    parser.add_argument(
        "--development",
        action="store_true",
        help="learn from 70%% of RTE-2 dev and score the rest (where choices were made)",
    )
    parser.add_argument("--iterations", type=int, default=5, help="EM passes of each model")
    arguments = parser.parse_args()
    iterations = 1 if arguments.quick else arguments.iterations

    folder = rte_folder()
    if (folder / "converted").is_dir():
        splits = {
            split: read_msr_majority(folder / "converted" / f"RTE2_{split}_M.align.sure+poss.json")
            for split in ("dev", "test")
        }
        source = f"MSR RTE-2 majority vote ({folder})"
    else:
        generated = generate_pairs(1600, random.Random(SEED))
        splits = {"dev": generated[:800], "test": generated[800:]}
        source = f"generated word-for-word pairs, seed {SEED} (no corpus at {folder})"
    if arguments.quick:
        splits = {split: pairs[:100] for split, pairs in splits.items()}
    every = splits["dev"] + splits["test"]
    print(f"data: {source}: {len(every)} pairs")
    if arguments.development:
        order = list(range(len(splits["dev"])))
        random.Random(SEED).shuffle(order)
        cut = len(order) * 7 // 10
        learn = [splits["dev"][n] for n in order[:cut]]
        scored = [splits["dev"][n] for n in order[cut:]]
        title = f"RTE-2 dev split: learnt from {len(learn)} dev pairs, scored on {len(scored)}"
    else:
        learn, scored = splits["dev"], splits["test"]
        title = "RTE-2 test (held out): learnt from the 800 dev pairs' gold"

    started = time.perf_counter()
    unsupervised = train_aligner([(p.source, p.target) for p in every], iterations=iterations)
    print(
        f"unsupervised: {iterations} Model 1 + {iterations} HMM passes, both directions, on the "
        f"text of every pair, in {time.perf_counter() - started:.1f} s"
    )
    lexicon = Lexicon(synonyms=WordNet().synonyms) if WORDNET.is_dir() else Lexicon()
    started = time.perf_counter()
    supervised = train_supervised_aligner(learn, base=unsupervised, lexicon=lexicon)
    print(
        f"supervised: learnt from {len(learn)} gold alignments in "
        f"{time.perf_counter() - started:.1f} s; synonyms "
        + ("from WordNet" if lexicon.synonyms else f"left out (no WordNet at {WORDNET})")
    )
    reports = compare(title, {"supervised": supervised, "unsupervised": unsupervised}, scored)
    margins(reports)
    print(json.dumps(reports["supervised"]))

    gold = read_cluster_gold(CLUSTER_GOLD)
    msvd = folder.parent / "msvd-s2vt-sents"
    training = [(pair.source, pair.target) for pair in gold]
    if msvd.is_dir():
        training += msvd_pairings(msvd, 2 if arguments.quick else 10, random.Random(SEED))
    started = time.perf_counter()
    cluster_model = train_aligner(training, iterations=iterations)
    print(
        f"cluster model: {len(training)} training pairs ("
        + ("MSVD pairings and " if msvd.is_dir() else "no MSVD at hand: ")
        + f"the gold pairs' text), trained in {time.perf_counter() - started:.1f} s"
    )
    cluster_supervised = replace(supervised, base=cluster_model)
    compare(
        "cluster paraphrase pairs (supervised: learnt from RTE-2, out of domain)",
        {"supervised": cluster_supervised, "unsupervised": cluster_model},
        gold,
    )


if __name__ == "__main__":
    main()
