"""The METEOR-style score and paraphrase extraction, against references measured in this run.

1. extract_paraphrases over every MSVD cluster: time and peak memory, against the issue's
   budget of 10 minutes (the reference here is the clock, not another program).
2. meteor_score on sentence pairs drawn from the same clusters, in pairs per second:
   exact+stem only, and with a 50,000-entry paraphrase table (the learned one, topped up
   with generated entries if it is smaller). References: sacrebleu's sentence_bleu on the
   same pairs, and NLTK's meteor_score in exact+stem mode (an empty WordNet stand-in, the
   same Snowball stems), which is also compared score by score with ours set to NLTK's
   parameters (α 0.9, β 3, γ 0.5, all weights 1): the definitions coincide except that NLTK
   picks its alignment greedily where ours searches, so they may differ only where a word
   repeats.

The corpus is the MSVD S2VT sentence files from $PARACROWD_DATA or ../shared/data; without
them, seeded generated clusters. Times are CPU times, printed, never asserted.

    .venv/bin/python bench/meteor.py            # full run, a few minutes
    .venv/bin/python bench/meteor.py --quick    # smoke run, seconds
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import argparse
import random
import resource
import time

import sacrebleu

from bench._msvd import msvd_clusters, msvd_folder
from paracrowd_metrics.meteor import Meteor, MeteorParameters, ParaphraseTable, meteor_tokens
from paracrowd_metrics.meteor.extraction import ExtractionSettings, extract_paraphrases
from paracrowd_metrics.meteor.matchers import Stemmer, clear_caches

SEED = 2010
TABLE_SIZE = 50_000
clock = time.process_time

# fmt: off
SUBJECTS = ["a man", "a woman", "a guy", "a lady", "a boy", "a girl", "a dog", "someone",
            "a person", "the chef", "two men", "a child"]
VERBS = ["is slicing", "slices", "is cutting", "cuts", "is chopping", "is playing", "plays",
         "is riding", "rides", "is eating", "eats", "is cooking", "cooks", "is strumming"]
OBJECTS = ["a tomato", "an onion", "the guitar", "a guitar", "a horse", "a bike", "some food",
           "a potato", "a ball", "the piano", "a banana", "a carrot", "the meat", "a fish"]
EXTRAS = ["", "", "", "in the kitchen", "on the street", "with a knife", "outside", "slowly"]
# fmt: on


def generate_clusters(count: int, rng: random.Random) -> list[list[str]]:
    clusters = []
    for _ in range(count):
        scene = [rng.choice(SUBJECTS), rng.choice(VERBS), rng.choice(OBJECTS)]
        cluster = []
        for _ in range(40):
            words = [
                part if rng.random() < 0.7 else rng.choice(pool)
                for part, pool in zip(scene, (SUBJECTS, VERBS, OBJECTS), strict=True)
            ]
            cluster.append(" ".join([*words, rng.choice(EXTRAS)]).strip())
        clusters.append(cluster)
    return clusters


def topped_up(table: ParaphraseTable, vocabulary: list[str], rng: random.Random):
    """The table's 50,000 most probable entries, or all of them plus generated ones."""
    entries = sorted(table, key=lambda entry: -entry[2])[:TABLE_SIZE]
    result = ParaphraseTable()
    for phrase, paraphrase, probability in entries:
        result.add(phrase, paraphrase, probability)
    while len(result) < TABLE_SIZE:
        phrase = rng.sample(vocabulary, rng.randint(1, 3))
        result.add(phrase, rng.sample(vocabulary, rng.randint(1, 3)), rng.uniform(0.01, 1))
    return result


class NoWordNet:
    """Stands in for NLTK's WordNet reader: no synonyms, so nothing is downloaded."""

    def synsets(self, word, *args, **kwargs):
        return []


class SnowballForNltk:
    def __init__(self):
        self.stemmer = Stemmer.for_language("en")

    def stem(self, word):
        return self.stemmer.stem(word)


def rate(label: str, count: int, seconds: float, reference: float | None = None) -> float:
    per_second = count / seconds if seconds else float("inf")
    ratio = f"  ({reference / seconds:.2f}× the reference's speed)" if reference else ""
    print(f"  {label:<46} {per_second:>10,.0f} pairs/s{ratio}")
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--common-frequency", type=float, default=0.01)
    arguments = parser.parse_args()
    rng = random.Random(SEED)
    folder = msvd_folder()
    if folder.is_dir():
        clusters, source = msvd_clusters(folder), f"MSVD S2VT sentences in {folder}"
    else:
        clusters, source = generate_clusters(2000, rng), "generated clusters (no MSVD files)"
    if arguments.quick:
        clusters = clusters[:60]
    print(f"Corpus: {source}: {sum(map(len, clusters)):,} descriptions, {len(clusters):,} clusters")

    settings = ExtractionSettings(common_frequency=arguments.common_frequency)
    started, wall = clock(), time.perf_counter()
    table, report = extract_paraphrases(
        ([("en", text) for text in cluster] for cluster in clusters), settings=settings
    )
    seconds, wall = clock() - started, time.perf_counter() - wall
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"extract_paraphrases (common words at {settings.common_frequency}):")
    for line in report.lines():
        print(f"  {line}")
    print(
        f"  {seconds:.1f} s CPU, {wall:.1f} s wall, peak memory {peak:,.0f} MB: "
        f"{seconds / 600:.2f}× the 10-minute budget"
    )

    vocabulary = sorted({word for cluster in clusters for text in cluster for word in text.split()})
    table = topped_up(table, vocabulary, rng)
    pairs = []
    for _ in range(500 if arguments.quick else 5000):
        cluster = rng.choice([c for c in clusters if len(c) > 1])
        hypothesis, reference = rng.sample(cluster, 2)
        pairs.append((hypothesis, reference))
    print(f"meteor_score on {len(pairs):,} sentence pairs from the clusters, one reference each:")

    started = clock()
    for hypothesis, reference in pairs:
        sacrebleu.sentence_bleu(hypothesis, [reference])
    bleu_seconds = rate("sacrebleu sentence_bleu (reference)", len(pairs), clock() - started)

    try:
        from nltk.translate.meteor_score import single_meteor_score
    except ImportError:
        single_meteor_score = None
        print("  NLTK is not installed (pip install -r requirements-dev.txt): no comparison")
    nltk_scores, nltk_seconds = [], None
    if single_meteor_score:
        wordnet, stemmer = NoWordNet(), SnowballForNltk()
        tokens = [(meteor_tokens(h), meteor_tokens(r)) for h, r in pairs]
        started = clock()
        for hypothesis, reference in tokens:
            nltk_scores.append(
                100 * single_meteor_score(reference, hypothesis, stemmer=stemmer, wordnet=wordnet)
            )
        nltk_seconds = rate(
            "NLTK meteor_score, exact+stem (reference)", len(pairs), clock() - started, bleu_seconds
        )

    for label, scorer in [
        ("ours, exact+stem", Meteor()),
        (f"ours, with a {len(table):,}-entry table", Meteor(paraphrases=table)),
    ]:
        # Tokens and stems are remembered across calls; a first pass would hide that cost.
        clear_caches()
        started = clock()
        scores = [scorer.score(hypothesis, reference) for hypothesis, reference in pairs]
        seconds = clock() - started
        rate(label, len(pairs), seconds, nltk_seconds or bleu_seconds)
        if "table" in label:
            base = [Meteor().score(h, r) for h, r in pairs]
            better = sum(s > b + 1e-9 for s, b in zip(scores, base, strict=True))
            print(f"    the table adds matches to {better:,} of {len(pairs):,} pairs")

    if nltk_scores:
        nltk_like = Meteor(
            parameters=MeteorParameters(
                alpha=0.9, beta=3.0, gamma=0.5, exact=1, stem=1, synonym=0, paraphrase=0
            )
        )
        ours = [nltk_like.score(h, r) for h, r in pairs]
        differences = [abs(a - b) for a, b in zip(ours, nltk_scores, strict=True)]
        same = sum(d < 1e-9 for d in differences)
        print(
            f"  agreement with NLTK at its parameters: {same:,} of {len(pairs):,} identical, "
            f"largest difference {max(differences):.4f} points (ours ≥ NLTK's in "
            f"{sum(a >= b - 1e-9 for a, b in zip(ours, nltk_scores, strict=True)):,})"
        )


if __name__ == "__main__":
    main()
