"""Human ratings against the metrics, as Chen & Dolan (2011, §5.2) measure them: the
analysis ``correlate_ratings``, the research page and the API share, and its text table.

The input is an iterable of plain rating records (paracrowd_metrics.ratings.RatingRecord): from
a CSV file (scoring.ratings_file) or from ratings stored in the app.
"""

from collections.abc import Iterable, Sequence
from dataclasses import asdict, replace

from paracrowd.charts import Lines, line_chart
from paracrowd.wording import counted
from paracrowd_metrics import default_tokenize
from paracrowd_metrics.rating_consensus import (
    METHODS,
    pairs_with_consensus,
    rating_categories,
    reliability_table,
)
from paracrowd_metrics.ratings import (
    RatedPair,
    RatingError,
    RatingRecord,
    RatingScale,
    rated_pairs,
    scale_of,
)
from paracrowd_metrics.ratings_analysis import (
    AnalysisOptions,
    analyse_ratings,
    check_enough_pairs,
    reference_counts,
)
from scoring.ratings_file import ratings_from_text
from scoring.services import meteor_configuration

# What a page or API request may ask a worker for: the analysis grows with the ratings, the
# draws and the resamples (10,000 pairs take well under a minute without the METEOR-style
# row, about a minute more with it).
RATINGS_TEXT_MAX = 5_000_000
RATINGS_MAX = 20_000
DRAWS_MAX = 50
RESAMPLES_MAX = 5_000
FOLDS_MAX = 20


# How one pair's judges may be combined (paracrowd_metrics.rating_consensus.METHODS, in its
# order; a test holds them equal), as a page names them.
CONSENSUS_LABELS = {
    "mean": "their mean",
    "dawid-skene": "Dawid–Skene, each judge weighted by their reliability",
}


class ConsensusError(RatingError):
    """The judges cannot be combined as asked (an unknown method, or ratings Dawid–Skene
    cannot weigh): a fault of the choice of consensus for these ratings, not of a line."""


def ratings_correlate(
    records: Iterable[RatingRecord],
    dimensions: Sequence[str],
    *,
    options: AnalysisOptions,
    dimension: str | None = None,
    meteor: bool = True,
    consensus: str = "mean",
    scale: RatingScale | None = None,
) -> dict:
    """Table 4 and Figure 4 of the ratings (paracrowd_metrics.ratings_analysis), as a dict
    ready for JSON. ``dimension`` keeps that one dimension only; ``meteor`` adds the
    METEOR-style row with the site's parameters. A ``tokenize`` of "" follows the ratings'
    language. ``consensus`` is how one pair's judges are combined: their ``mean``, or the
    ``dawid-skene`` estimate weighting each judge by their reliability (which is then in the
    result, per judge). ``scale`` is checked on every rating; without it the scale is read from
    the data (the result says which). RatingError, naming the record, for anything that cannot
    be analysed."""
    records = list(records)
    dimensions = _kept_dimensions(dimensions, dimension)
    pairs = rated_pairs(records, dimensions, scale=scale)
    reliabilities = None
    if consensus_check(records, pairs, dimensions, consensus):
        try:
            pairs, reliabilities = pairs_with_consensus(pairs, dimensions)
        except ValueError as error:
            raise RatingError(str(error)) from None
    language = records[0].language if records else ""
    if not options.tokenize:
        options = replace(options, tokenize=default_tokenize(language or None))
    scorer = configuration = None
    if meteor:
        configuration = meteor_configuration()
        scorer = configuration.scorer(language or configuration.language)
    result = analyse_ratings(
        pairs,
        dimensions,
        options=options,
        meteor=scorer.score if scorer else None,
        primary=dimension,
    )
    result["language"] = language
    result["scale"] = (scale or scale_of(pairs)).as_dict()
    result["consensus"] = consensus
    if reliabilities is not None:
        result["judge_reliability"] = reliability_table(reliabilities)
    if configuration is not None:
        result["meteor_signature"] = configuration.signature(
            language or configuration.language, "var"
        )
    return result


def consensus_check(
    records: Sequence[RatingRecord],
    pairs: Sequence[RatedPair],
    dimensions: Sequence[str],
    consensus: str,
) -> bool:
    """Whether the judges are to be weighted (Dawid–Skene) rather than averaged. A quick
    check, before any estimate: ConsensusError for an unknown method or, when weighting, a
    record that does not say who rated, or ratings on a continuous scale (more distinct
    values than Dawid–Skene takes as categories)."""
    if consensus not in METHODS:
        raise ConsensusError(f"no consensus {consensus!r}; choose {' or '.join(METHODS)}")
    if consensus == "mean":
        return False
    unnamed = next((record for record in records if not record.judge), None)
    if unnamed is not None:
        raise ConsensusError(
            f"{unnamed.where or 'a rating'}: no judge named; weighting judges by their "
            "reliability needs to know who gave each rating"
        )
    for dimension in dimensions:
        try:
            rating_categories(
                ratings[dimension] for pair in pairs for ratings in pair.judges.values()
            )
        except ValueError as error:
            raise ConsensusError(f"{dimension}: {error}") from None
    return True


def consensus_lines(result: dict) -> list[str]:
    """How the judges were combined, and each judge's reliability when they were weighted."""
    rows = result.get("judge_reliability")
    if not rows:
        return []
    dimensions = list(rows[0]["reliability"])
    lines = [
        "",
        "Judges weighted by reliability (Dawid–Skene): the chance a judge's rating is the "
        "item's true one",
        f"{'judge':<24}{'ratings':>8}" + "".join(f"{d:>15}" for d in dimensions),
    ]
    for row in rows:
        lines.append(
            f"{row['judge']:<24}{row['ratings']:>8}"
            + "".join(f"{row['reliability'][d]:>15.3f}" for d in dimensions)
        )
    return lines


def _kept_dimensions(dimensions: Sequence[str], dimension: str | None) -> tuple[str, ...]:
    """The dimensions analysed: ``dimension`` alone when given (RatingError when the input
    has no such ratings), else all."""
    if dimension is None:
        return tuple(dimensions)
    if dimension not in dimensions:
        raise RatingError(f"no {dimension} ratings; the input has {', '.join(dimensions)}")
    return (dimension,)


def _number(value, digits=4) -> str:
    return "—" if value is None else f"{value:.{digits}f}"


def _cell(cell: dict) -> str:
    text = f"{_number(cell['pearson'])}"
    if cell.get("pearson_low") is not None:
        text += f" [{_number(cell['pearson_low'], 2)}, {_number(cell['pearson_high'], 2)}]"
    return text


def correlation_lines(result: dict) -> list[str]:
    """The result as a text table: Table 4 (Pearson with its 95% interval, then Spearman),
    the fitted combined score, and the reference curves."""
    dimensions = result["dimensions"]
    judges = counted(result["judges"], "judge") if result["judges"] else "no judge column"
    lines = [
        f"{counted(result['pairs'], 'rated pair')}, {counted(result['ratings'], 'rating')} "
        f"by {judges}; "
        f"tokenize {result['options']['tokenize']}; "
        f"{result['options']['resamples']} bootstrap resamples (95% intervals)",
        *_scale_lines(result.get("scale")),
        "",
        "Pearson r [95% interval]",
        f"{'':<36}" + "".join(f"{d:<26}" for d in dimensions),
    ]
    for row in result["table"]:
        lines.append(
            f"{row['label']:<36}" + "".join(f"{_cell(row['cells'][d]):<26}" for d in dimensions)
        )
    lines += ["", "Spearman ρ", f"{'':<36}" + "".join(f"{d:<26}" for d in dimensions)]
    for row in result["table"]:
        lines.append(
            f"{row['label']:<36}"
            + "".join(f"{_number(row['cells'][d]['spearman']):<26}" for d in dimensions)
        )
    lines.append("")
    for dimension, fit in result["combined"].items():
        lines.append(
            f"PINC × sigmoid(BLEU) fitted to {dimension} on all ratings: centre "
            f"{_number(fit['centre'], 2)}, slope {_number(fit['slope'], 4)} "
            f"(r {_number(fit['in_sample'])}; out of {fit['folds']} folds "
            f"{_number(fit['out_of_fold'])})"
        )
    for dimension, sides in result["reference_curves"].items():
        for side, points in sides.items():
            lines += ["", f"BLEU vs {dimension} by references ({side.replace('_', ' ')})"]
            lines.append(
                f"{'references':<12}{'pairs':>7}{'mean r':>9}{'sd':>8}{'min':>9}{'max':>9}"
            )
            for label, point in points.items():
                bleu = point["bleu"]
                lines.append(
                    f"{label:<12}{point['pairs']:>7}{_number(bleu['r']):>9}"
                    f"{_number(bleu['sd']):>8}{_number(bleu['min']):>9}{_number(bleu['max']):>9}"
                )
    if result.get("meteor_signature"):
        lines += ["", f"METEOR signature: {result['meteor_signature']}"]
    return lines


def _scale_lines(scale: dict | None) -> list[str]:
    if scale is None:
        return []
    stated = RatingScale(scale["lowest"], scale["highest"])
    if scale["stated"]:
        return [f"Ratings on the scale {stated}."]
    return [
        f"Ratings on {stated}, read from the data (its lowest and highest ratings rounded "
        "out); state the scale with --scale if it is another. Pearson's r does not depend on it."
    ]


def analysis_options(fields) -> AnalysisOptions:
    """The analysis options the job page's form or the API's request names: ``references`` as
    typed ("1,2,4,all"), ``bootstrap`` resamples. RatingError when the references cannot be
    read."""
    return AnalysisOptions(
        reference_counts=reference_counts(fields["references"]),
        with_source=fields["with_source"],
        folds=fields["folds"],
        seed=fields["seed"],
        draws=fields["draws"],
        resamples=fields["bootstrap"],
        tokenize=fields.get("tokenize", ""),
    )


def correlation_parameters(
    *,
    text: str,
    name: str,
    options: AnalysisOptions,
    dimension: str | None,
    meteor: bool,
    consensus: str = "mean",
) -> dict:
    """Check a ratings file and options a request sends, as the analysis will read them, and
    return the job's parameters. RatingError naming the line (or the option) otherwise;
    ConsensusError when the judges cannot be combined by ``consensus``. Bounded work: one
    query for the clusters named, no scoring, no estimate of the judges."""
    if len(text) > RATINGS_TEXT_MAX:
        raise RatingError(f"{name}: larger than {RATINGS_TEXT_MAX:,} characters")
    if options.draws > DRAWS_MAX or options.resamples > RESAMPLES_MAX or options.folds > FOLDS_MAX:
        raise RatingError(
            f"at most {DRAWS_MAX} draws, {RESAMPLES_MAX:,} resamples and {FOLDS_MAX} folds"
        )
    records, dimensions = ratings_from_text(text, name=name)
    if len(records) > RATINGS_MAX:
        raise RatingError(f"{name}: {len(records):,} ratings; at most {RATINGS_MAX:,}")
    kept = _kept_dimensions(dimensions, dimension)
    pairs = rated_pairs(records, kept)
    check_enough_pairs(len(pairs), options)
    consensus_check(records, pairs, kept, consensus)
    return {
        "options": asdict(options),
        "dimension": dimension,
        "meteor": meteor,
        "consensus": consensus,
    }


def correlation_from_parameters(*, text: str, name: str, parameters: dict) -> dict:
    """The analysis a stored job asks for (``correlation_parameters`` made its parameters)."""
    records, dimensions = ratings_from_text(text, name=name)
    options = dict(parameters["options"])
    options["reference_counts"] = tuple(options["reference_counts"])
    return ratings_correlate(
        records,
        dimensions,
        options=AnalysisOptions(**options),
        dimension=parameters["dimension"],
        meteor=parameters["meteor"],
        # Reports asked for before the choice existed averaged their judges.
        consensus=parameters.get("consensus", "mean"),
    )


def combined_fit(result: dict) -> tuple[str, dict]:
    """The dimension whose fitted centre and slope a site would use (overall, else the only
    one) and that fit."""
    dimension = "overall" if "overall" in result["dimensions"] else result["dimensions"][0]
    return dimension, result["combined"][dimension]


def correlation_chart(result: dict) -> Lines:
    """Figure 4: BLEU's mean r with each dimension by reference count, with and without the
    source, ± the spread of the draws."""
    labels = result["options"]["reference_counts"]
    series = {}
    for dimension, sides in result["reference_curves"].items():
        for side, points in sides.items():
            name = dimension if side == "without_source" else f"{dimension}, with the source"
            series[name] = [
                (points[label]["bleu"]["r"], points[label]["bleu"]["sd"]) for label in labels
            ]
    values = [v for curve in series.values() for v, _ in curve if v is not None]
    return line_chart(
        "BLEU's correlation with the ratings by number of references",
        labels,
        series,
        low=min(0.0, *values) if values else 0.0,
        high=1.0,
        x_label="references",
        y_label="Pearson r",
    )
