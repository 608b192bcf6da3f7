"""Leave-one-out scoring of a whole MSVD-size corpus, against sacrebleu in the same run.

Every description of every cluster gets sentence BLEU against the rest of its cluster and
its mean PINC against each of them (paracrowd_metrics.score_clusters). The reference is
sacrebleu's sentence_bleu on a seeded sample of the same descriptions, timed in this run and
compared score by score. The same for character BLEU of order 18, for the pairwise
sentence_bleu(..., tokenize="char"), and for the live path: one new description joining a
40-sentence and a 640-sentence cluster (ClusterIndex.add; the large one pools 16 clusters).

The corpus is the MSVD S2VT sentence files, read from $PARACROWD_DATA or
../shared/data/msvd-s2vt-sents next to the repository; without them, seeded generated
clusters of the same shape. Nothing is copied into the repository. Times are CPU times,
printed, never asserted.

    .venv/bin/python bench/scoring.py            # full run, a few minutes
    .venv/bin/python bench/scoring.py --quick    # smoke run, a few seconds
"""

import os
import sys

# This file shares its name with the scoring package, and Python puts the script's folder
# first on sys.path; without this, `import paracrowd_metrics` would import this file.
sys.path.remove(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import argparse
import random
import statistics
import time
import tracemalloc
from collections import defaultdict
from pathlib import Path

import sacrebleu
from sacrebleu.metrics import BLEU
from sacrebleu.tokenizers.tokenizer_13a import Tokenizer13a
from sacrebleu.tokenizers.tokenizer_char import TokenizerChar
from sacrebleu.tokenizers.tokenizer_re import TokenizerRegexp

from paracrowd_metrics import ClusterIndex, pinc, score_clusters, sentence_bleu
from paracrowd_metrics.tokens import sentence_units

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_DATA = ROOT.parent / "shared" / "data" / "msvd-s2vt-sents"
SEED = 2011
CLUSTER_SIZE = 40

# CPU time of this process: other work on a shared machine does not inflate either side.
clock = time.process_time


def load_msvd(folder: Path) -> dict[str, list[str]]:
    """Clusters from the S2VT files: one `vidN<TAB>sentence` per line."""
    clusters = defaultdict(list)
    for path in sorted(folder.glob("sents_*_lc_nopunc.txt")):
        with path.open(encoding="utf-8") as lines:
            for line in lines:
                clip, _, sentence = line.rstrip("\n").partition("\t")
                clusters[clip].append(sentence)
    return dict(clusters)


# The pieces generated descriptions are made of, when the MSVD files are not at hand.
# fmt: off
SUBJECTS = ["a man", "a woman", "a boy", "a girl", "a dog", "a cat", "two men", "a child",
            "someone", "a person", "the chef", "a baby", "a monkey", "a group of people"]
VERBS = ["is slicing", "slices", "is cutting", "cuts", "is playing", "plays", "is riding",
         "rides", "is eating", "eats", "is cooking", "cooks", "is holding", "holds"]
OBJECTS = ["a tomato", "an onion", "the guitar", "a guitar", "a horse", "a bike", "some food",
           "a potato", "a ball", "the piano", "a banana", "a car", "the meat", "a fish"]
EXTRAS = ["", "", "", "in the kitchen", "on the street", "with a knife", "outside",
          "very fast", "slowly", "on a table", "in a park", "at home"]
# fmt: on


def generate_clusters(count: int, rng: random.Random) -> dict[str, list[str]]:
    """Clusters shaped like MSVD: ~40 short descriptions of one scene, worded variously."""
    clusters = {}
    for number in range(count):
        scene = [rng.choice(SUBJECTS), rng.choice(VERBS), rng.choice(OBJECTS)]
        size = min(max(int(rng.gauss(CLUSTER_SIZE, 8)), 18), 66)
        sentences = []
        for _ in range(size):
            words = [
                part if rng.random() < 0.7 else rng.choice(pool)
                for part, pool in zip(scene, (SUBJECTS, VERBS, OBJECTS), strict=True)
            ]
            words.append(rng.choice(EXTRAS))
            sentence = " ".join(word for word in words if word)
            if rng.random() < 0.5:
                sentence = sentence[0].upper() + sentence[1:] + "."
            sentences.append(sentence)
        clusters[f"generated{number}"] = sentences
    return clusters


def as_typed(clusters):
    """The same descriptions as crowd workers type them: capital first, final full stop.
    MSVD's files are lowercased and unpunctuated; here 13a has work to do on every one."""
    return {
        cluster_id: [sentence[:1].upper() + sentence[1:] + "." for sentence in sentences]
        for cluster_id, sentences in clusters.items()
    }


def clear_tokenizer_caches() -> None:
    """sacrebleu memoises tokenisation; start every timed phase cold, for both sides."""
    for tokenizer in (Tokenizer13a, TokenizerRegexp, TokenizerChar):
        tokenizer.__call__.cache_clear()


def sample_sentences(clusters, size, rng):
    """Seeded (cluster id, position) pairs, in clusters that have at least two sentences."""
    pairs = [(cid, pos) for cid, sents in clusters.items() if len(sents) > 1
             for pos in range(len(sents))]  # fmt: skip
    return rng.sample(pairs, min(size, len(pairs)))


def others(sentences, position):
    return sentences[:position] + sentences[position + 1 :]


def time_ours(clusters, tokenize):
    clear_tokenizer_caches()
    start = clock()
    scores = score_clusters(clusters, tokenize=tokenize)
    return clock() - start, scores


def time_sacrebleu(clusters, sample, tokenize):
    """sacrebleu's per-sentence time and scores on the sample."""
    clear_tokenizer_caches()
    if tokenize == "char":
        metric = BLEU(tokenize="char", max_ngram_order=18, effective_order=True)

        def score(hypothesis, references):
            return metric.sentence_score(hypothesis, references).score
    else:

        def score(hypothesis, references):
            return sacrebleu.sentence_bleu(hypothesis, references, tokenize=tokenize).score

    results = {}
    start = clock()
    for cluster_id, position in sample:
        sentences = clusters[cluster_id]
        results[cluster_id, position] = score(sentences[position], others(sentences, position))
    return (clock() - start) / len(sample), results


def largest_difference(ours, theirs):
    return max(
        abs(ours[cluster_id].sentences[position].bleu - score)
        for (cluster_id, position), score in theirs.items()
    )


def check_pinc(clusters, ours, sample):
    """Our mean PINC against pinc() called for every pair: difference and pinc()'s time."""
    start = clock()
    worst = 0.0
    for cluster_id, position in sample:
        sentences = clusters[cluster_id]
        sources = others(sentences, position)
        expected = sum(pinc(source, sentences[position]) for source in sources) / len(sources)
        worst = max(worst, abs(ours[cluster_id].sentences[position].pinc - expected))
    return worst, (clock() - start) / len(sample)


def peak_traced_memory(function):
    """Peak Python allocation while ``function`` runs (tracemalloc; it slows the run)."""
    tracemalloc.start()
    try:
        result = function()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return peak, result


def pooled_sentences(clusters, size, rng):
    """``size`` sentences drawn from 16 random clusters pooled together: a cluster as large
    as a long-running campaign's, for timing ``add`` (no corpus has one that large)."""
    pool = [text for cid in rng.sample(list(clusters), 16) for text in clusters[cid]]
    while len(pool) < size:
        pool += pool
    return rng.sample(pool, size)


def sacrebleu_scorer(tokenize):
    """sacrebleu's sentence BLEU as our sentence_bleu computes it for ``tokenize``."""
    if tokenize == "char":
        metric = BLEU(tokenize="char", max_ngram_order=18, effective_order=True)
        return lambda hypothesis, references: metric.sentence_score(hypothesis, references).score
    return lambda hypothesis, references: (
        sacrebleu.sentence_bleu(hypothesis, references, tokenize=tokenize).score
    )


def incremental_trials(clusters, trials, tokenize, rng, checks, size=CLUSTER_SIZE):
    """Time ClusterIndex.add of one sentence to an index of ``size``, and as references
    building that index (growable, as add needs, and read-only) and rebuilding it read-only
    with the newcomer. In the first ``checks`` trials, compare the newcomer's and up to
    three moved sentences' scores with a rebuild and with sacrebleu. Returns the median
    times (s) and the worst differences from the rebuild and from sacrebleu."""
    large = [sentences for sentences in clusters.values() if len(sentences) > size]
    score_with_sacrebleu = sacrebleu_scorer(tokenize)
    times = defaultdict(list)
    worst = worst_sacrebleu = 0.0
    for trial in range(trials):
        if large:
            chosen = rng.sample(rng.choice(large), size + 1)
        else:
            chosen = pooled_sentences(clusters, size + 1, rng)
        start = clock()
        index = ClusterIndex.build(chosen[:size], tokenize=tokenize)
        times["build"].append(clock() - start)
        start = clock()
        ClusterIndex.build(chosen[:size], tokenize=tokenize, growable=False)
        times["read-only build"].append(clock() - start)
        index.sentence_scores()  # what the live path has read before a description arrives
        start = clock()
        addition = index.add(chosen[size])
        times["add"].append(clock() - start)
        start = clock()
        rebuilt = ClusterIndex.build(chosen, tokenize=tokenize, growable=False).sentence_scores()
        times["rebuild"].append(clock() - start)
        if trial < checks:
            worst = max(
                worst,
                abs(addition.scores.bleu - rebuilt[-1].bleu),
                abs(addition.scores.pinc - rebuilt[-1].pinc),
                *(abs(now.bleu - rebuilt[now.position].bleu) for now in addition.changed),
                *(abs(now.pinc - rebuilt[now.position].pinc) for now in addition.changed),
            )
            moved = [addition.scores, *addition.changed[:3]]
            worst_sacrebleu = max(
                worst_sacrebleu,
                *(
                    abs(
                        now.bleu
                        - score_with_sacrebleu(chosen[now.position], others(chosen, now.position))
                    )
                    for now in moved
                ),
            )
    medians = {phase: statistics.median(values) for phase, values in times.items()}
    return times["add"], medians, worst, worst_sacrebleu


def time_rescoring_with_sacrebleu(clusters, trials, rng):
    """The naive live path: sacrebleu sentence_bleu for the newcomer and all 40 others."""
    large = [sentences for sentences in clusters.values() if len(sentences) > CLUSTER_SIZE]
    times = []
    for _ in range(trials):
        chosen = rng.sample(rng.choice(large), CLUSTER_SIZE + 1)
        clear_tokenizer_caches()
        start = clock()
        for position in range(len(chosen)):
            sacrebleu.sentence_bleu(chosen[position], others(chosen, position))
        times.append(clock() - start)
    return times


def index_sizes(clusters, rng):
    """Peak traced memory building one index, read-only (as the corpus path) and growable."""
    chosen = rng.sample(rng.choice([s for s in clusters.values() if len(s) > CLUSTER_SIZE]),
                        CLUSTER_SIZE)  # fmt: skip
    return [
        peak_traced_memory(lambda growable=growable: ClusterIndex.build(chosen, growable=growable))[
            0
        ]
        for growable in (False, True)
    ]


def percentile(values, fraction):
    ordered = sorted(values)
    return ordered[min(int(fraction * len(ordered)), len(ordered) - 1)]


def ms(seconds):
    return f"{seconds * 1e3:,.3f} ms"


def us(seconds):
    return f"{seconds * 1e6:,.1f} µs"


def print_table(title, rows):
    print(f"\n{title}")
    width = max(len(label) for label, _ in rows)
    for label, value in rows:
        print(f"  {label:<{width}}  {value}")


def time_tokenisation(clusters, tokenize):
    """The share of our time that is sacrebleu's tokenizer: every distinct description of
    each cluster, and its lowercased form for PINC when that differs."""
    clear_tokenizer_caches()
    start = clock()
    for sentences in clusters.values():
        for text in set(sentences):
            sentence_units(text, tokenize=tokenize)
            if text.lower() != text:
                sentence_units(text, tokenize=tokenize, lowercase=True)
    return clock() - start


def warm_up(clusters, tokenize):
    """First calls import modules and fill caches; do that outside the timed runs."""
    first = dict(list(clusters.items())[:3])
    score_clusters(first, tokenize=tokenize)
    sentences = next(iter(first.values()))
    BLEU(tokenize=tokenize, effective_order=True).sentence_score(sentences[0], sentences[1:])


def bleu_section(clusters, tokenize, sample_size, pinc_sample_size, rng, measure_memory=False):
    sentence_count = sum(len(sentences) for sentences in clusters.values())
    warm_up(clusters, tokenize)
    seconds, ours = time_ours(clusters, tokenize)
    per_sentence = seconds / sentence_count
    tokenising = time_tokenisation(clusters, tokenize) / sentence_count
    sample = sample_sentences(clusters, sample_size, rng)
    theirs_per_sentence, theirs = time_sacrebleu(clusters, sample, tokenize)
    rows = [
        ("ours: every cluster, BLEU + PINC", f"{seconds:,.2f} s = {us(per_sentence)} / sentence"),
        ("  of which sacrebleu's tokenizer", f"{us(tokenising)} / sentence"),
        (f"sacrebleu: {len(sample):,} sampled sentences", f"{ms(theirs_per_sentence)} / sentence"),
        ("speed ratio (sacrebleu / ours)", f"{theirs_per_sentence / per_sentence:,.0f}x"),
        ("largest |BLEU ours - sacrebleu|", f"{largest_difference(ours, theirs):.1e}"),
    ]
    if pinc_sample_size:
        worst, pairwise = check_pinc(clusters, ours, sample[:pinc_sample_size])
        rows += [
            (f"pinc() pair by pair: {pinc_sample_size:,} sentences", f"{ms(pairwise)} / sentence"),
            ("largest |mean PINC ours - pairwise|", f"{worst:.1e}"),
        ]
    if measure_memory:
        peak, _ = peak_traced_memory(lambda: score_clusters(clusters, tokenize=tokenize))
        rows += [
            ("peak traced memory, whole corpus", f"{peak / 2**20:,.1f} MiB (tracemalloc)"),
            (
                f"one {CLUSTER_SIZE}-sentence index: read-only / growable",
                " / ".join(f"{size / 2**10:,.0f} KiB" for size in index_sizes(clusters, rng)),
            ),
        ]
    return rows


def pairwise_char_section(clusters, pairs, rng):
    """One hypothesis against one reference, character BLEU of order 18: ours and
    sacrebleu's BLEU(tokenize="char", max_ngram_order=18), on the same seeded pairs."""
    texts = [text for sentences in clusters.values() for text in sentences]
    chosen = [(rng.choice(texts), rng.choice(texts)) for _ in range(pairs)]
    metric = BLEU(tokenize="char", max_ngram_order=18, effective_order=True)
    sentence_bleu(chosen[0][0], [chosen[0][1]], tokenize="char")
    metric.sentence_score(chosen[0][0], [chosen[0][1]])
    clear_tokenizer_caches()
    start = clock()
    ours = [sentence_bleu(h, [r], tokenize="char") for h, r in chosen]
    mine = (clock() - start) / pairs
    clear_tokenizer_caches()
    start = clock()
    theirs = [metric.sentence_score(h, [r]).score for h, r in chosen]
    reference = (clock() - start) / pairs
    worst = max(abs(a - b) for a, b in zip(ours, theirs, strict=True))
    return [
        (f"ours: {pairs:,} pairs", f"{us(mine)} / pair"),
        ("sacrebleu: the same pairs", f"{us(reference)} / pair"),
        ("speed ratio (sacrebleu / ours)", f"{reference / mine:,.2f}x"),
        ("largest |BLEU ours - sacrebleu|", f"{worst:.1e}"),
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="small smoke run")
    arguments = parser.parse_args()
    quick = arguments.quick
    rng = random.Random(SEED)

    data = Path(os.environ.get("PARACROWD_DATA", DEFAULT_DATA))
    clusters = load_msvd(data) if data.is_dir() else {}
    source = f"MSVD S2VT sentences ({data})"
    if not clusters:
        clusters = generate_clusters(2000, random.Random(SEED))
        source = f"generated, seed {SEED} (no corpus at {data})"
    if quick:
        clusters = dict(list(clusters.items())[:100])
    sentence_count = sum(len(sentences) for sentences in clusters.values())
    print(f"Corpus: {source}")
    print(f"  {len(clusters):,} clusters, {sentence_count:,} sentences, "
          f"{sentence_count / len(clusters):.1f} per cluster")  # fmt: skip

    sample_size, pinc_sample_size = (200, 50) if quick else (2000, 300)
    print_table(
        "Word BLEU (13a, order 4), leave-one-out, every cluster",
        bleu_section(clusters, "13a", sample_size, pinc_sample_size, rng, measure_memory=True),
    )
    print_table(
        "The same, every sentence capitalised and ending in a full stop",
        bleu_section(as_typed(clusters), "13a", sample_size, 0, rng),
    )

    print_table(
        "Character BLEU (order 18), leave-one-out, every cluster",
        bleu_section(clusters, "char", 10 if quick else 100, 0, rng),
    )

    print_table(
        "Character BLEU (order 18), one hypothesis against one reference (sentence_bleu)",
        pairwise_char_section(clusters, 500 if quick else 5000, rng),
    )

    trials = 100 if quick else 2000
    word_times, _, word_worst, word_sacrebleu = incremental_trials(
        clusters, trials, "13a", rng, checks=20
    )
    char_times, _, char_worst, char_sacrebleu = incremental_trials(
        clusters, trials // 4, "char", rng, checks=10
    )
    naive = time_rescoring_with_sacrebleu(clusters, 5 if quick else 30, rng)
    print_table(
        f"Live path: one description joins a {CLUSTER_SIZE}-sentence cluster (ClusterIndex.add)",
        [
            (f"word, {len(word_times):,} trials: median / p99",
             f"{ms(statistics.median(word_times))} / {ms(percentile(word_times, 0.99))}"),
            (f"char-18, {len(char_times):,} trials: median / p99",
             f"{ms(statistics.median(char_times))} / {ms(percentile(char_times, 0.99))}"),
            (f"sacrebleu rescoring all {CLUSTER_SIZE + 1}: median",
             ms(statistics.median(naive))),
            ("speed ratio (sacrebleu / ours), word",
             f"{statistics.median(naive) / statistics.median(word_times):,.0f}x"),
            ("largest |ours - rebuilt index|", f"{max(word_worst, char_worst):.1e}"),
            ("largest |BLEU ours - sacrebleu|", f"{max(word_sacrebleu, char_sacrebleu):.1e}"),
        ],
    )  # fmt: skip
    big = 640
    for tokenize, label, big_trials in (("13a", "word", 10 if quick else 100),
                                        ("char", "char-18", 5 if quick else 30)):  # fmt: skip
        times, medians, worst, worst_sacrebleu = incremental_trials(
            clusters, big_trials, tokenize, rng, checks=2, size=big
        )
        print_table(
            f"Live path, {label}: one description joins a {big}-sentence cluster "
            "(target: add < 5 ms)",
            [
                (f"add, {len(times):,} trials: median / p99",
                 f"{ms(medians['add'])} / {ms(percentile(times, 0.99))}"),
                (f"reference: rebuild all {big + 1} (read-only)", ms(medians["rebuild"])),
                ("speed ratio (rebuild / add)", f"{medians['rebuild'] / medians['add']:,.0f}x"),
                (f"building the {big} beforehand: growable / read-only",
                 f"{ms(medians['build'])} / {ms(medians['read-only build'])}"),
                ("largest |ours - rebuilt index|", f"{worst:.1e}"),
                ("largest |BLEU ours - sacrebleu|", f"{worst_sacrebleu:.1e}"),
            ],
        )  # fmt: skip


if __name__ == "__main__":
    main()
