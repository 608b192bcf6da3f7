"""Human ratings against the metrics: grouping judges, leave-one-out, Table 4, Figure 4."""

import numpy as np
import pytest

from paracrowd_metrics import fit_combined, pinc, sentence_bleu
from paracrowd_metrics.ratings import (
    SITE_SCALE,
    RatingError,
    RatingRecord,
    RatingScale,
    leave_one_out,
    parse_scale,
    rated_pairs,
    scale_of,
)
from paracrowd_metrics.ratings_analysis import AnalysisOptions, analyse_ratings, reference_counts
from paracrowd_metrics.testing import simulated_ratings


def test_leave_one_out_removes_one_copy_of_the_candidate_only():
    references = ["a dog runs", "a cat sits", "a dog runs"]
    assert leave_one_out(references, "a dog runs") == ["a cat sits", "a dog runs"]
    assert leave_one_out(references, "a bird") == references


def record(candidate, rating, judge="", references=("a dog runs", "a cat sits"), **extra):
    return RatingRecord(
        "a dog is running", candidate, list(references), {"rating": rating}, judge, **extra
    )


def test_judges_ratings_of_one_pair_are_averaged_and_kept():
    (pair,) = rated_pairs(
        [record("a dog runs", "4", "A"), record("a dog runs", 3, "B")], ["rating"]
    )
    assert pair.ratings == {"rating": 3.5}
    assert pair.judges == {"A": {"rating": 4.0}, "B": {"rating": 3.0}}
    assert pair.references == ("a cat sits",)


@pytest.mark.parametrize(
    "records, message",
    [
        ([record("a dog", "5", where="r.csv:2")], "r.csv:2: rating '5' is outside the scale 1–4"),
        ([record("a dog", "0.5", where="r.csv:2")], "outside the scale 1–4"),
        ([record("a dog", "nan", where="r.csv:2")], "is not a number"),
        ([record("a dog", "good", where="r.csv:2")], "is not a number"),
        ([record("a dog", "", where="r.csv:2")], "is not a number"),
        ([record("a dog", "2", references=["a dog"], where="r.csv:3")], "r.csv:3: no references"),
        ([record("a dog", "2", references=[""], where="r.csv:3")], "no references"),
        ([record("", "2", where="r.csv:3")], "the candidate is empty"),
        (
            [record("a dog", "2", "A", where="r:2"), record("a dog", "3", "A", where="r:3")],
            "r:3: A already rated this pair",
        ),
        (
            [record("a dog", "2", language="en"), record("a cat", "3", language="fr", where="r:3")],
            "r:3: in fr, earlier ratings in en",
        ),
    ],
)
def test_bad_ratings_are_refused_naming_the_record(records, message):
    with pytest.raises(RatingError, match=message):
        rated_pairs(records, ["rating"], scale=SITE_SCALE)


DIMENSIONS = ("semantic", "dissimilarity", "overall")


@pytest.fixture(scope="module")
def analysed():
    pairs = rated_pairs(simulated_ratings(), DIMENSIONS)
    options = AnalysisOptions(draws=4, resamples=200, with_source=True, folds=4)
    return pairs, analyse_ratings(pairs, DIMENSIONS, options=options, meteor=lambda c, r: 50.0)


def test_the_table_has_the_papers_rows_for_every_dimension(analysed):
    pairs, result = analysed
    rows = [row["row"] for row in result["table"]]
    assert rows == [
        "judges",
        "bleu",
        "pinc",
        "meteor",
        "pinc_bleu_above_0",
        "pinc_bleu_above_30",
        "pinc_bleu_above_60",
        "pinc_bleu_above_90",
        "arithmetic_mean",
        "geometric_mean",
        "harmonic_mean",
        "combined",
    ]
    bleu = [sentence_bleu(p.candidate, list(p.references)) for p in pairs]
    novelty = [pinc(p.source, p.candidate) for p in pairs]
    semantic = [p.ratings["semantic"] for p in pairs]
    cells = {row["row"]: row["cells"] for row in result["table"]}
    assert cells["bleu"]["semantic"]["pearson"] == pytest.approx(np.corrcoef(bleu, semantic)[0, 1])
    assert cells["pinc"]["overall"]["items"] == len(pairs)
    above = sum(b > 60 for b in bleu)
    assert cells["pinc_bleu_above_60"]["semantic"]["items"] == above
    # A constant score has no correlation: shown as None, not NaN.
    assert cells["meteor"]["semantic"]["pearson"] is None
    for row in result["table"]:
        cell = row["cells"]["semantic"]
        if cell["pearson"] is not None and cell["items"] > 20:
            assert cell["pearson_low"] <= cell["pearson"] <= cell["pearson_high"], row["row"]
    centre, slope, r = fit_combined(bleu, novelty, [p.ratings["overall"] for p in pairs])
    fit = result["combined"]["overall"]
    assert (fit["centre"], fit["slope"], fit["in_sample"]) == pytest.approx((centre, slope, r))


def test_the_combined_row_is_out_of_fold_and_never_above_the_in_sample_fit(analysed):
    _, result = analysed
    cells = {row["row"]: row["cells"] for row in result["table"]}
    for dimension in DIMENSIONS:
        out_of_fold = cells["combined"][dimension]["pearson"]
        assert out_of_fold == result["combined"][dimension]["out_of_fold"]
        assert out_of_fold < result["combined"][dimension]["in_sample"]


def test_judges_agree_as_the_simulation_makes_them(analysed):
    _, result = analysed
    judges = result["table"][0]
    assert judges["label"] == "Judge A vs. B" and result["judges"] == 2
    assert judges["cells"]["semantic"]["items"] == result["pairs"] == 120
    assert judges["cells"]["semantic"]["pearson"] > 0.5


def test_the_curve_has_every_count_and_rises_with_references(analysed):
    _, result = analysed
    curve = result["by_references"]
    assert list(curve) == ["1", "2", "4", "8", "16", "all"]
    assert set(curve["1"]) == {
        "bleu",
        "pinc",
        "arithmetic_mean",
        "geometric_mean",
        "harmonic_mean",
        "combined",
    }
    assert curve["1"]["bleu"] < curve["4"]["bleu"] < curve["all"]["bleu"]
    assert curve["all"]["bleu"] == pytest.approx(result["table"][1]["cells"]["semantic"]["pearson"])
    detail = result["reference_curves"]["semantic"]["without_source"]["4"]
    assert detail["draws"] == 4 and detail["pairs"] == 120
    assert detail["bleu"]["min"] <= detail["bleu"]["r"] <= detail["bleu"]["max"]
    assert result["reference_curves"]["semantic"]["without_source"]["all"]["draws"] == 1
    assert set(result["by_references_with_source"]) == set(curve)
    assert curve["1"]["bleu"] != result["by_references_with_source"]["1"]["bleu"]


def test_a_count_above_a_pairs_references_leaves_it_out_of_that_point():
    pairs = rated_pairs(simulated_ratings(count=30, references=5), DIMENSIONS)
    options = AnalysisOptions(reference_counts=(2, 8, None), draws=2, resamples=0, folds=3)
    result = analyse_ratings(pairs, DIMENSIONS, options=options)
    assert result["reference_curves"]["overall"]["without_source"]["8"]["pairs"] == 0
    assert result["by_references"]["8"]["bleu"] is None
    assert "by_references_with_source" not in result
    assert result["table"][1]["cells"]["overall"]["pearson_low"] is None


def test_the_same_seed_gives_the_same_figures_and_another_seed_other_draws():
    pairs = rated_pairs(simulated_ratings(count=30), DIMENSIONS)

    def curve(seed):
        options = AnalysisOptions(draws=2, resamples=50, folds=3, seed=seed)
        return analyse_ratings(pairs, DIMENSIONS, options=options)["by_references"]

    assert curve(1) == curve(1)
    assert curve(1)["2"]["bleu"] != curve(2)["2"]["bleu"]


def test_too_few_pairs_for_the_folds_are_refused():
    pairs = rated_pairs(simulated_ratings(count=4), DIMENSIONS)
    with pytest.raises(RatingError, match="4 rated pairs; at least 5"):
        analyse_ratings(pairs, DIMENSIONS, options=AnalysisOptions(folds=5))


@pytest.mark.parametrize("text", ["\u00b3", "1,\u00b2", "0", "two", "1.5"])
def test_reference_counts_refuse_anything_but_whole_counts_and_all(text):
    # "³" is a digit to str.isdigit() but not a number to int().
    with pytest.raises(RatingError, match="neither a count above 0 nor 'all'"):
        reference_counts(text)


def test_reference_counts_read_counts_and_all_once_each():
    assert reference_counts("1, 2,4,all,2") == (1, 2, 4, None)


def test_any_numeric_scale_is_taken_and_read_from_the_data_when_not_stated():
    records = [record("a dog runs", "0.4", "A"), record("a cat sits", "4.8", "A")]

    pairs = rated_pairs(records, ["rating"])

    assert [pair.ratings["rating"] for pair in pairs] == [0.4, 4.8]
    assert scale_of(pairs) == RatingScale(0.0, 5.0, stated=False)
    assert rated_pairs(records, ["rating"], scale=parse_scale("0-5"))


@pytest.mark.parametrize(
    "text, scale",
    [("0-5", RatingScale(0, 5)), ("1–4", RatingScale(1, 4)), ("-3:3", RatingScale(-3, 3))],
)
def test_a_stated_scale_reads_as_lowest_and_highest(text, scale):
    assert parse_scale(text) == scale


@pytest.mark.parametrize("text", ["5", "5-0", "a-b", "1-1"])
def test_a_scale_that_is_no_range_is_refused(text):
    with pytest.raises(RatingError, match="scale"):
        parse_scale(text)


def test_rows_without_a_judge_are_averaged_but_are_not_judges():
    records = [record("a dog runs", "4"), record("a dog runs", "2")]

    (pair,) = rated_pairs(records, ["rating"])

    assert pair.ratings == {"rating": 3.0}
    assert pair.judges == {} and pair.unnamed == [{"rating": 4.0}, {"rating": 2.0}]
