"""Ĉ for a whole annotated corpus, against plain per-sample phrase extraction in the same run.

The corpus is the 800 RTE-2 dev pairs of the MSR alignments with their three annotators
A, B and C, read from $PARACROWD_DATA (the msr-rte06-align folder, or a folder holding it) or
../shared/data/msr-rte06-align next to the repository. The automatic pre-alignment comes from
the library's aligner, trained on the 1,600 majority-vote pairs. Without the data: seeded
generated pairs of 10-25 words a side, three simulated annotators. Nothing is copied into
the repository.

The whole agreement table (J = 1,000 Monte Carlo samples per annotator and pair) is timed.
The reference draws the same samples (same seeds) for a subset of the pairs and extracts
atomic phrase pairs one sample at a time with ``extract_phrase_pairs``; the script prints
both times, their ratio, and whether every per-sample count and π̂₀ agree exactly. Times are
printed, never asserted.

Then the stored table's incremental update (annotations.agreement_store), in a database of
the run's own (bench._run: created empty, dropped at the end): 100,000 stored pairs aligned
by A and B, then C aligns a few of them one at a time and each update is timed. The
reference is a full recomputation of the stored table: run for real up to 2,000 pairs (and
the updated table compared with it); above that, its rate is measured on 300 stored pairs and
scaled to the corpus, and the stored shares are copies of 500 generated pairs' shares (one
pair's share cannot depend on the corpus size, and computing 100,000 of them would take the
full recomputation's hour). Then every updated share is compared with one computed afresh, and
the stored sum with the sum of every stored share.

    .venv/bin/python bench/agreement.py            # full run
    .venv/bin/python bench/agreement.py --quick    # smoke run, a few seconds
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import argparse
import random
import time
from itertools import combinations
from pathlib import Path

import numpy as np

from bench._run import bench_run
from paracrowd_metrics.alignment import (
    AgreementSummary,
    AgreementTotals,
    Alignment,
    AnnotatedPair,
    agreement_table,
    fit_edit_models,
    format_pharaoh,
    pair_share,
    read_msr_annotator,
    read_msr_majority,
    share_totals,
    train_aligner,
)
from paracrowd_metrics.alignment.chance import (
    SampleOverlaps,
    draw_alignments,
    grid_overlaps,
    sample_generator,
    sampled_phrase_grids,
    sampled_phrase_sets,
    set_overlaps,
)
from paracrowd_metrics.alignment.phrases import phrase_links

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_DATA = ROOT.parent / "shared" / "data" / "msr-rte06-align"
ANNOTATORS = ("A", "B", "C")
SEED = 2008


def rte_folder() -> Path:
    """The msr-rte06-align folder: $PARACROWD_DATA itself or its subfolder, else the default."""
    configured = os.environ.get("PARACROWD_DATA")
    if not configured:
        return DEFAULT_DATA
    folder = Path(configured)
    return folder / "msr-rte06-align" if (folder / "msr-rte06-align").is_dir() else folder


def load_rte(folder: Path) -> tuple[list[AnnotatedPair], str]:
    """The RTE-2 dev pairs with A, B, C's alignments and an aligner's pre-alignment."""
    annotated = [
        read_msr_annotator(folder / "orig" / f"RTE2_dev_{name}.align.txt") for name in ANNOTATORS
    ]
    majority = [
        pair
        for split in ("dev", "test")
        for pair in read_msr_majority(folder / "converted" / f"RTE2_{split}_M.align.sure+poss.json")
    ]
    started = time.perf_counter()
    aligner = train_aligner([(pair.source, pair.target) for pair in majority])
    trained = time.perf_counter() - started
    pairs = []
    for versions in zip(*annotated, strict=True):
        first = versions[0]
        pre = aligner.align(first.source, first.target)
        alignments = {name: pair.alignment for name, pair in zip(ANNOTATORS, versions, strict=True)}
        pairs.append(AnnotatedPair(first.pair_id, first.source, first.target, pre, alignments))
    note = (
        f"pre-alignment: aligner trained on {len(majority)} majority-vote pairs in {trained:.1f} s"
    )
    return pairs, note


def generate_pairs(count: int, rng: random.Random) -> list[AnnotatedPair]:
    """Seeded pairs of 10-25 words a side, a near-diagonal pre-alignment, three annotators."""
    vocabulary = [f"w{number}" for number in range(400)]
    pairs = []
    for number in range(count):
        n, m = rng.randint(10, 25), rng.randint(10, 25)
        source = tuple(rng.choice(vocabulary) for _ in range(n))
        target = tuple(rng.choice(vocabulary) for _ in range(m))
        diagonal = [(i, min(m - 1, round(i * m / n))) for i in range(n)]
        gold = {link for link in diagonal if rng.random() < 0.75}
        pre = {link for link in gold if rng.random() < 0.7}
        alignments = {}
        for rate, name in zip((0.01, 0.02, 0.03), ANNOTATORS, strict=True):
            links = set(gold)
            for i, j in product_cells(n, m):
                if rng.random() < rate:
                    links ^= {(i, j)}
            sure = {link for link in links if rng.random() < 0.8}
            alignments[name] = Alignment(sure=sure, possible=links)
        pairs.append(AnnotatedPair(str(number), source, target, Alignment(sure=pre), alignments))
    return pairs


def product_cells(n: int, m: int):
    return ((i, j) for i in range(n) for j in range(m))


def row(label: str, summary: AgreementSummary) -> str:
    words, phrases, agreement = summary.words, summary.phrases, summary.agreement
    kappa = "" if summary.link_kappa is None else f"{summary.link_kappa:7.3f}"
    return (
        f"{label:<12}{agreement.items:>6} {words.precision:6.3f} {words.recall:6.3f} "
        f"{words.f1:6.3f} {words.aer:6.3f} {phrases.f1:7.3f} {agreement.observed:6.3f} "
        f"{agreement.chance:6.3f} {agreement.c_hat:6.3f} {agreement.kupper_hafner_chance:8.5f} "
        f"{agreement.kupper_hafner_c_hat:6.3f}{kappa}"
    )


def chance_on_subset(pairs, models, samples, *, plain: bool) -> list[SampleOverlaps]:
    """Per-sample overlaps of every annotator pair of every pair, by one route."""
    overlaps = []
    for pair in pairs:
        n, m = len(pair.source), len(pair.target)
        names = sorted(pair.alignments)
        draws = [
            draw_alignments(
                sample_generator(SEED, pair.pair_id, name),
                phrase_links(pair.pre_alignment),
                n,
                m,
                models[name].probability(n, m),
                samples,
            )
            for name in names
        ]
        if plain:
            found = [sampled_phrase_sets(draw, pair.source, pair.target) for draw in draws]
        else:
            found = sampled_phrase_grids(draws, pair.source, pair.target)
        extracted = dict(zip(names, found, strict=True))
        compare = set_overlaps if plain else grid_overlaps
        for first, second in combinations(sorted(pair.alignments), 2):
            overlaps.append(compare(extracted[first], extracted[second]))
    return overlaps


def mean_chance(overlaps: list[SampleOverlaps]) -> float:
    ratios = [ratio for ratio in (found.mean_ratio() for found in overlaps) if ratio is not None]
    return sum(ratios) / len(ratios)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="a smoke run: fewer pairs and samples")
    parser.add_argument(
        "--samples", type=int, default=1000, help="J, samples per annotator and pair"
    )
    parser.add_argument("--subset", type=int, default=20, help="pairs for the plain reference")
    parser.add_argument(
        "--store-pairs", type=int, default=100_000, help="stored pairs for the incremental update"
    )
    parser.add_argument("--updates", type=int, default=20, help="new alignments timed")
    arguments = parser.parse_args()
    samples, subset = arguments.samples, arguments.subset
    store_pairs, updates = arguments.store_pairs, arguments.updates
    if arguments.quick:
        samples, subset, store_pairs, updates = 100, 3, 300, 4

    folder = rte_folder()
    if (folder / "orig").is_dir():
        pairs, note = load_rte(folder)
        source = f"MSR RTE-2 dev, annotators {', '.join(ANNOTATORS)} ({folder})"
    else:
        pairs = generate_pairs(800, random.Random(SEED))
        source, note = f"generated, seed {SEED} (no corpus at {folder})", "pre-alignment: generated"
    if arguments.quick:
        pairs = pairs[:60]
    mean_source = np.mean([len(pair.source) for pair in pairs])
    mean_target = np.mean([len(pair.target) for pair in pairs])
    print(f"data: {source}")
    print(f"{len(pairs)} pairs, mean lengths {mean_source:.1f} × {mean_target:.1f} words")
    print(note)

    started, cpu_started = time.perf_counter(), time.process_time()
    table = agreement_table(pairs, samples=samples, seed=SEED)
    whole, cpu = time.perf_counter() - started, time.process_time() - cpu_started
    print(f"\nwhole agreement table, J = {samples}: {whole:.2f} s (CPU time {cpu:.2f} s)")
    for name, model in table.edit_models.items():
        print(
            f"  edit model {name}: p = {model.intercept:.5f} {model.per_source_word:+.6f}·n "
            f"{model.per_target_word:+.6f}·m"
        )
    header = (
        f"{'':<12}{'items':>6} {'P':>6} {'R':>6} {'F1':>6} {'AER':>6} {'phr.F1':>7} {'π̂':>6} "
        f"{'π̂₀':>6} {'Ĉ':>6} {'π₀ (KH)':>8} {'Ĉ (KH)':>6} {'κ':>6}"
    )
    print(header)
    print(row("corpus", table.corpus))
    for (first, second), summary in table.pairwise.items():
        print(row(f"{first}–{second}", summary))
    for name, summary in table.per_annotator.items():
        print(row(f"annotator {name}", summary))
    for length_bin in table.by_length:
        upper = "" if length_bin.longest is None else str(length_bin.longest)
        print(row(f"len {length_bin.shortest}–{upper}", length_bin.summary))
    if table.link_fleiss_kappa is not None:
        print(
            "Fleiss' κ over non-identical link items, NULL on both sides: "
            f"{table.link_fleiss_kappa:.3f}"
        )
    if table.brockett is not None:
        brockett = table.brockett
        print(
            f"Brockett's Fleiss' κ over link items: {brockett.kappa:.3f} "
            f"({brockett.items} items; by the largest agreeing group {brockett.agreeing})"
        )

    models = fit_edit_models(pairs)
    chosen = pairs[:subset]
    started = time.perf_counter()
    fast = chance_on_subset(chosen, models, samples, plain=False)
    fast_time = time.perf_counter() - started
    started = time.perf_counter()
    plain = chance_on_subset(chosen, models, samples, plain=True)
    plain_time = time.perf_counter() - started
    same = all(
        np.array_equal(getattr(a, counts), getattr(b, counts))
        for a, b in zip(fast, plain, strict=True)
        for counts in ("first", "second", "shared")
    )
    print(
        f"\nreference on {len(chosen)} pairs × {len(ANNOTATORS)} annotators × J = {samples}: "
        f"plain per-sample extraction {plain_time:.2f} s, fast {fast_time:.3f} s, "
        f"speed ratio {plain_time / fast_time:.0f}×"
    )
    print(
        f"identical per-sample counts: {'yes' if same else 'NO'}; "
        f"π̂₀ plain {mean_chance(plain):.6f}, fast {mean_chance(fast):.6f}"
    )
    estimate = plain_time * len(pairs) / len(chosen)
    print(f"plain route for all {len(pairs)} pairs, extrapolated: about {estimate:.0f} s")
    with bench_run("bench_agreement") as (server, _):
        print(f"\nstored table, incremental: {store_pairs} pairs in {server['NAME']}")
        store_bench(store_pairs, updates)


TEMPLATES = 500  # distinct generated pairs the stored corpus repeats
FULL_FOR_REAL = 2000  # up to this many pairs the full recomputation runs for real
RATE_SAMPLE = 300  # pairs the full recomputation's rate is measured on above that


def two_annotators(pair: AnnotatedPair, pair_id: str) -> AnnotatedPair:
    alignments = {name: pair.alignments[name] for name in ("A", "B")}
    return AnnotatedPair(pair_id, pair.source, pair.target, pair.pre_alignment, alignments)


def store_corpus(templates: list[AnnotatedPair], count: int) -> list[int]:
    """``count`` stored pairs repeating the templates, aligned by A and B; their ids."""
    from annotations.models import Alignment, SentencePair

    stored = SentencePair.objects.bulk_create(
        [
            SentencePair(
                origin=SentencePair.Origin.IMPORT,
                import_key=f"bench:{number}",
                tokens_a=list(templates[number % len(templates)].source),
                tokens_b=list(templates[number % len(templates)].target),
                pre_alignment=format_pharaoh(templates[number % len(templates)].pre_alignment),
            )
            for number in range(count)
        ],
        batch_size=5000,
    )
    Alignment.objects.bulk_create(
        [
            Alignment(
                pair_id=pair.pk,
                annotator=name,
                links=format_pharaoh(templates[number % len(templates)].alignments[name]),
            )
            for number, pair in enumerate(stored)
            for name in ("A", "B")
        ],
        batch_size=5000,
    )
    return [pair.pk for pair in stored]


def store_copied_shares(templates: list[AnnotatedPair], ids: list[int]) -> None:
    """Each stored pair gets its template's share, the report their exact sum."""
    from annotations.agreement_store import SAMPLES, SEED, _models_json, _table
    from annotations.models import AgreementReport, PairAgreement

    pairs = [two_annotators(pair, f"template {number}") for number, pair in enumerate(templates)]
    models = fit_edit_models(pairs)
    shares = [pair_share(pair, models, samples=SAMPLES, seed=SEED) for pair in pairs]
    PairAgreement.objects.bulk_create(
        [
            PairAgreement(pair_id=pk, alignments=2, share=shares[number % len(shares)])
            for number, pk in enumerate(ids)
        ],
        batch_size=5000,
    )
    totals = AgreementTotals()
    for number, share in enumerate(shares):
        repeats = len(range(number, len(ids), len(shares)))
        totals = totals + AgreementTotals(
            {key: value * repeats for key, value in share_totals(share).sums.items()}
        )
    AgreementReport.objects.update_or_create(
        pk=1,
        defaults={
            "totals": totals.to_json(),
            "table": _table(totals, models),
            "edit_models": _models_json(models),
        },
    )


def full_rate(ids: list[int]) -> float:
    """Seconds per pair of a full recomputation (read, share, sum), on ``RATE_SAMPLE`` pairs."""
    from annotations.agreement import stored_annotated_pairs, stored_pairs
    from annotations.agreement_store import SAMPLES, SEED, stored_models
    from annotations.models import AgreementReport

    chosen = ids[:: max(1, len(ids) // RATE_SAMPLE)][:RATE_SAMPLE]
    models = stored_models(AgreementReport.objects.get(pk=1))
    started = time.perf_counter()
    pairs = stored_annotated_pairs(stored_pairs().filter(pk__in=chosen))
    shares = [pair_share(pair, models, samples=SAMPLES, seed=SEED) for pair in pairs]
    AgreementTotals.sum(share_totals(share) for share in shares)
    return (time.perf_counter() - started) / len(chosen)


def store_bench(count: int, updates: int) -> None:
    """Time the stored table's update after one new alignment, at ``count`` stored pairs."""
    from annotations.agreement import corpus_agreement
    from annotations.agreement_store import (
        agreement_pair_update,
        agreement_recompute,
        changed_pairs,
        stored_models,
    )
    from annotations.models import AgreementReport, Alignment, PairAgreement

    rng = random.Random(SEED)
    templates = generate_pairs(min(TEMPLATES, count), rng)
    started = time.perf_counter()
    ids = store_corpus(templates, count)
    full_time = None
    if count <= FULL_FOR_REAL:
        started_full = time.perf_counter()
        agreement_recompute()
        full_time = time.perf_counter() - started_full
        how = "the full recomputation itself"
    else:
        store_copied_shares(templates, ids)
        how = f"shares copied from {len(templates)} generated pairs"
    print(f"  stored in {time.perf_counter() - started:.0f} s ({how})")
    chosen = rng.sample(range(count), updates)
    seconds = []
    for number in chosen:
        Alignment.objects.create(
            pair_id=ids[number],
            annotator="C",
            links=format_pharaoh(templates[number % len(templates)].alignments["C"]),
        )
        started = time.perf_counter()
        agreement_pair_update(pair_id=ids[number])
        seconds.append(time.perf_counter() - started)
    started = time.perf_counter()
    left = changed_pairs().count()
    sweep = time.perf_counter() - started
    if full_time is None:
        rate = full_rate(ids)
        full_time = rate * count
        reference = f"extrapolated from {RATE_SAMPLE} pairs ({rate * 1000:.1f} ms a pair)"
    else:
        reference = "measured"
    ordered = sorted(seconds)
    median, worst = ordered[len(ordered) // 2], ordered[-1]
    print(
        f"  one new alignment: median {median * 1000:.0f} ms, slowest {worst * 1000:.0f} ms "
        f"over {updates} updates (target < 1 s)"
    )
    print(f"  full recomputation (today's refresh): {full_time:.1f} s, {reference}")
    print(f"  ratio full / incremental (median): {full_time / median:.0f}×")
    print(f"  sweep query for changed pairs: {sweep * 1000:.0f} ms ({left} left)")

    report = AgreementReport.objects.get(pk=1)
    models = stored_models(report)
    from annotations.agreement import annotated_pair, stored_pairs
    from annotations.agreement_store import SAMPLES as STORE_SAMPLES
    from annotations.agreement_store import SEED as STORE_SEED

    def afresh(pk):
        pair = annotated_pair(stored_pairs().get(pk=pk))
        return pair_share(pair, models, samples=STORE_SAMPLES, seed=STORE_SEED)

    same_shares = all(
        PairAgreement.objects.get(pair_id=ids[number]).share == afresh(ids[number])
        for number in chosen
    )
    print(f"  every updated share equals one computed afresh: {'yes' if same_shares else 'NO'}")
    rows = PairAgreement.objects.values_list("share", flat=True).iterator(chunk_size=2000)
    summed = AgreementTotals.sum(share_totals(share) for share in rows)
    same_sum = summed == AgreementTotals.from_json(report.totals)
    print(f"  stored sum equals the sum of every stored share: {'yes' if same_sum else 'NO'}")
    if count <= FULL_FOR_REAL:
        full = corpus_agreement(samples=STORE_SAMPLES, seed=STORE_SEED, models=models)
        same = full == report.table
        print(f"  table identical to a full recomputation: {'yes' if same else 'NO'}")


if __name__ == "__main__":
    try:
        main()
    except KeyboardInterrupt:
        sys.exit("Interrupted; the run's database and queue removed.")
