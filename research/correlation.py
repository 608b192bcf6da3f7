"""Human ratings against the metrics, as Chen & Dolan (2011, §5.2) measure them: the
analysis ``correlate_ratings``, the research page and the API share, and its text table.

The input is an iterable of plain rating records (scoring.metrics.ratings.RatingRecord): from
a CSV file (scoring.ratings_file) or from ratings stored in the app.
"""

from collections.abc import Iterable, Sequence

from scoring.metrics import default_tokenize
from scoring.metrics.ratings import RatingError, RatingRecord, rated_pairs
from scoring.metrics.ratings_analysis import AnalysisOptions, analyse_ratings
from scoring.services import meteor_configuration


def ratings_correlate(
    records: Iterable[RatingRecord],
    dimensions: Sequence[str],
    *,
    options: AnalysisOptions,
    dimension: str | None = None,
    meteor: bool = True,
) -> dict:
    """Table 4 and Figure 4 of the ratings (scoring.metrics.ratings_analysis), as a dict
    ready for JSON. ``dimension`` keeps that one dimension only; ``meteor`` adds the
    METEOR-style row with the site's parameters. A ``tokenize`` of "" follows the ratings'
    language. RatingError, naming the record, for anything that cannot be analysed."""
    records = list(records)
    if dimension is not None:
        if dimension not in dimensions:
            raise RatingError(f"no {dimension} ratings; the input has {', '.join(dimensions)}")
        dimensions = (dimension,)
    pairs = rated_pairs(records, dimensions)
    language = records[0].language if records else ""
    if not options.tokenize:
        options = AnalysisOptions(
            **{**options.__dict__, "tokenize": default_tokenize(language or None)}
        )
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
    if configuration is not None:
        result["meteor_signature"] = configuration.signature(
            language or configuration.language, "var"
        )
    return result


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
    lines = [
        f"{result['pairs']} rated pairs, {result['ratings']} ratings by {result['judges']} "
        f"judge(s); tokenize {result['options']['tokenize']}; "
        f"{result['options']['resamples']} bootstrap resamples (95% intervals)",
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
