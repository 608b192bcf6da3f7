"""Several paraphrase systems scored on the same test sources, side by side, as a Celery job
computes them for ``POST /api/system-scores/`` and the research page.

Each system is scored as ``score_system`` scores one (research.system_scoring). The corpus's
own human descriptions make a reference row: for each source any system was scored on, another
description of its cluster, drawn with the seed, stands as the output, and is left out of the
references. Every system, and the human row, is compared with the chosen baseline by paired
bootstrap resampling over the sources both were scored on (paracrowd_metrics.significance).
"""

import random
from dataclasses import dataclass, field

from paracrowd.charts import forest_plot
from paracrowd_metrics.significance import paired_bootstrap

from .learning import LearnedFrom
from .selection import CorpusFilter
from .splits import SplitOptions
from .system_scoring import FEW_PAIRS, SystemPair, SystemScore, few_pairs_warning, system_score

HUMAN = "human descriptions"
# Sentence-level scores the comparison resamples (corpus BLEU is reported, not resampled).
COMPARED = ("bleu", "pinc", "combined", "meteor")
COMPARED_NAMES = {
    "bleu": "BLEU",
    "pinc": "PINC",
    "combined": "PINC × sigmoid(BLEU)",
    "meteor": "METEOR-style",
}


def comparison_warning(result: dict) -> str | None:
    """The small-sample warning for a comparison's result: its fewest paired sources."""
    items = [
        found["items"]
        for compared in result.get("comparisons", {}).values()
        for found in compared.values()
        if found
    ]
    return few_pairs_warning(min(items)) if items else None


@dataclass(frozen=True)
class SystemOutputs:
    name: str
    pairs: list[SystemPair]
    # What the system declares its learned parts were learned from (research.learning).
    learned_from: list[LearnedFrom] = field(default_factory=list)


def systems_compare(
    *,
    systems: list[SystemOutputs],
    baseline: str,
    corpus_filter: CorpusFilter,
    split: SplitOptions,
    centre: float,
    slope: float,
    samples: int,
    seed: int,
    per_pair: bool = False,
    work_limit: int | None = None,
) -> dict:
    """Score every system, add the human row, compare each with ``baseline``; JSON-ready.

    ``work_limit`` bounds each system's scoring (``ScoringTooLarge`` before any of that
    system is scored); a job that hits it fails with that message."""
    options = {
        "corpus_filter": corpus_filter,
        "split": split,
        "centre": centre,
        "slope": slope,
        "work_limit": work_limit,
    }
    scored = {
        system.name: system_score(pairs=system.pairs, learned_from=system.learned_from, **options)
        for system in systems
    }
    human = system_score(pairs=_human_pairs(scored.values(), corpus_filter, split, seed), **options)
    rows = [_row(name, result, per_pair) for name, result in scored.items()]
    human_row = _row(HUMAN, human, per_pair) if human.scored else None
    compared = {**scored, HUMAN: human}
    result = {
        "baseline": baseline,
        "samples": samples,
        "seed": seed,
        "split": split.describe(),
        "filter": corpus_filter.describe(),
        "systems": rows,
        "human": human_row,
        "comparisons": {
            name: _compare(result, scored[baseline], samples, seed)
            for name, result in compared.items()
            if name != baseline and result.scored
        },
    }
    result["warning"] = comparison_warning(result)
    return result


def job_parameters(
    *,
    baseline: str,
    corpus_filter: CorpusFilter,
    split: SplitOptions,
    centre: float,
    slope: float,
    samples: int,
    bootstrap_seed: int,
    per_pair: bool,
) -> dict:
    """What a scoring job stores of its request, as the task reads it back (JSON)."""
    return {
        "baseline": baseline,
        "filter": corpus_filter.as_dict(),
        "split": vars(split),
        "centre": centre,
        "slope": slope,
        "samples": samples,
        "bootstrap_seed": bootstrap_seed,
        "per_pair": per_pair,
    }


def job_systems(systems: list[SystemOutputs]) -> list[dict]:
    """The systems as a scoring job stores them (JSON)."""
    return [
        {
            "name": system.name,
            "pairs": [[pair.source, pair.output, pair.segment_id] for pair in system.pairs],
            "learned_from": [record.as_dict() for record in system.learned_from],
        }
        for system in systems
    ]


def _human_pairs(results, corpus_filter: CorpusFilter, split: SplitOptions, seed: int):
    """For each source some system was scored on, another description of its cluster (one
    its references could hold), drawn with ``seed`` and the source's own id."""
    sources = {}
    for result in results:
        for score in result.scores:
            sources[score.description_id] = score
    if not sources:
        return []
    rows = (
        corpus_filter.descriptions()
        .filter(segment_id__in={score.segment_id for score in sources.values()})
        .order_by("id")
        .values_list("id", "segment_id", "language", "text", "tier", named=True)
    )
    members = {}
    for row in rows:
        members.setdefault((row.segment_id, row.language), []).append(row)
    pairs = []
    for description_id in sorted(sources):
        score = sources[description_id]
        cluster = members.get((score.segment_id, score.language), [])
        source = next((row for row in cluster if row.id == description_id), None)
        candidates = [
            row
            for row in cluster
            if row.id != description_id and (not split.tier2_references or row.tier == 2)
        ]
        if source is None or not candidates:
            continue
        chosen = random.Random(f"{seed}:human:{description_id}").choice(candidates)
        pairs.append(
            SystemPair(
                source=source.text,
                output=chosen.text,
                segment_id=score.segment_id,
                output_description_id=chosen.id,
            )
        )
    return pairs


def _row(name: str, result: SystemScore, per_pair: bool) -> dict:
    row = {
        "name": name,
        **{k: v for k, v in vars(result).items() if k not in ("unscored", "scores")},
        "unscored": [{"index": i, "reason": reason} for i, reason in result.unscored],
    }
    if per_pair:
        row["scores"] = [vars(score) for score in result.scores]
    return row


def _compare(system: SystemScore, baseline: SystemScore, samples: int, seed: int) -> dict:
    """Each sentence-level score of ``system`` against ``baseline`` on their shared sources."""
    mine = {score.description_id: score for score in system.scores}
    theirs = {score.description_id: score for score in baseline.scores}
    shared = sorted(mine.keys() & theirs.keys())
    comparison = {}
    for metric in COMPARED:
        items = [
            (getattr(mine[i], metric), getattr(theirs[i], metric))
            for i in shared
            if getattr(mine[i], metric) is not None and getattr(theirs[i], metric) is not None
        ]
        found = paired_bootstrap(
            [a for a, _ in items], [b for _, b in items], samples=samples, seed=seed
        )
        comparison[metric] = found.as_dict() if found else None
    return comparison


def comparison_table(result: dict) -> list[dict]:
    """A done job's result as the page's table rows: each system, then the human row, with
    its scores and, against the baseline, each compared score's difference, interval and p."""
    rows = []
    for row in [*result["systems"], *([result["human"]] if result.get("human") else [])]:
        compared = result["comparisons"].get(row["name"], {})
        rows.append(
            {
                **row,
                "is_baseline": row["name"] == result["baseline"],
                "is_human": row["name"] == HUMAN,
                "against_baseline": [compared.get(metric) for metric in COMPARED],
                "few_pairs": any(
                    found and found["items"] < FEW_PAIRS for found in compared.values()
                ),
            }
        )
    return rows


def comparison_forest(result: dict) -> list:
    """The table's differences from the baseline as forest plots, one per score (their scales
    differ), a row per system with its 95% interval."""
    charts = []
    for metric in COMPARED:
        rows = []
        for name, compared in result["comparisons"].items():
            found = compared.get(metric)
            if found:
                rows.append((name, found["difference"], found["low"], found["high"]))
        charts.append(
            forest_plot(
                f"Δ {COMPARED_NAMES[metric]} against {result['baseline']}",
                rows,
                x_label=f"difference in {COMPARED_NAMES[metric]}",
            )
        )
    return charts
