"""correlate_ratings (and its former name fit_combined_metric): ratings CSV in, Table 4 and
Figure 4 out, every option and every refusal."""

import csv
import json
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from collector import services
from crowd import services as crowd
from crowd.models import Tier
from paracrowd_metrics.testing import simulated_ratings
from scoring.models import CombinedSetting
from scoring.services import combined_parameters
from tests.factories import make_segment, make_worker

SOURCE = "A man is playing a guitar."
REFERENCES = ["A man plays the guitar.", "Someone is playing a guitar.", "A guy strums a guitar."]
RATED = [
    ("A man is playing a guitar.", 1),
    ("A man is playing the guitar.", 2),
    ("A man plays a guitar.", 3),
    ("Someone is playing a guitar.", 4),
    ("A guy strums his guitar.", 4),
    ("A cat is sleeping.", 1),
]


def write(path, rows, columns):
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=columns)
        writer.writeheader()
        writer.writerows(rows)
    return path


def single_rating_file(tmp_path):
    return write(
        tmp_path / "ratings.csv",
        [
            {"source": SOURCE, "candidate": c, "rating": r, "references": " ||| ".join(REFERENCES)}
            for c, r in RATED
        ],
        ["source", "candidate", "rating", "references"],
    )


@pytest.fixture
def judged(tmp_path):
    """120 pairs rated by two judges on three dimensions, 20 references each."""
    rows = [
        {
            "source": r.source,
            "candidate": r.candidate,
            **r.ratings,
            "judge": r.judge,
            "references": " ||| ".join(r.references),
        }
        for r in simulated_ratings()
    ]
    columns = ["source", "candidate", "semantic", "dissimilarity", "overall", "judge"]
    return write(tmp_path / "judged.csv", rows, [*columns, "references"])


def run(*args, command="correlate_ratings") -> str:
    out = StringIO()
    call_command(command, *map(str, args), stdout=out)
    return out.getvalue()


QUICK = ["--bootstrap", "100", "--draws", "2", "--no-meteor"]


@pytest.mark.django_db
def test_json_is_one_object_with_the_curve_by_reference_count(judged):
    result = json.loads(run(judged, "--json", *QUICK))
    assert list(result["by_references"]) == ["1", "2", "4", "8", "16", "all"]
    assert isinstance(result["by_references"]["4"]["bleu"], float)
    assert result["primary_dimension"] == "semantic"
    assert result["dimensions"] == ["semantic", "dissimilarity", "overall"]
    assert result["pairs"] == 120 and result["ratings"] == 240 and result["judges"] == 2
    assert {"table", "combined", "reference_curves", "options"} <= set(result)
    assert "by_references_with_source" not in result
    assert result["options"]["draws"] == 2 and result["options"]["resamples"] == 100


@pytest.mark.django_db
def test_every_option_reaches_the_analysis(judged):
    result = json.loads(
        run(
            judged,
            "--json",
            "--references",
            "1,3,all",
            "--with-source",
            "--folds",
            "3",
            "--seed",
            "7",
            "--draws",
            "3",
            "--bootstrap",
            "0",
            "--tokenize",
            "none",
            "--dimension",
            "overall",
            "--no-meteor",
        )
    )
    assert list(result["by_references"]) == list(result["by_references_with_source"])
    assert list(result["by_references"]) == ["1", "3", "all"]
    assert result["dimensions"] == ["overall"] and result["primary_dimension"] == "overall"
    assert result["options"] | {"reference_counts": None} == {
        "reference_counts": None,
        "with_source": True,
        "folds": 3,
        "seed": 7,
        "draws": 3,
        "resamples": 0,
        "tokenize": "none",
    }
    assert result["combined"]["overall"]["folds"] == 3
    assert result["table"][1]["cells"]["overall"]["pearson_low"] is None
    assert "meteor" not in [row["row"] for row in result["table"]]


@pytest.mark.django_db
def test_the_text_table_names_the_rows_and_the_fitted_parameters(tmp_path):
    text = run(single_rating_file(tmp_path), "--folds", "3", "--bootstrap", "50")
    assert "6 rated pairs, 6 ratings" in text
    for name in [
        "BLEU",
        "PINC",
        "METEOR-style",
        "PINC where BLEU > 30",
        "Arithmetic mean",
        "Geometric mean",
        "Harmonic mean",
        "PINC × sigmoid(BLEU), out of fold",
        "fitted to rating on all ratings: centre",
        "BLEU vs rating by references (without source)",
        "METEOR signature",
    ]:
        assert name in text


@pytest.mark.django_db
def test_the_former_name_still_fits_the_combined_score(tmp_path):
    text = run(single_rating_file(tmp_path), "--folds", "3", command="fit_combined_metric")
    assert "PINC × sigmoid(BLEU) fitted to rating on all ratings: centre" in text


@pytest.mark.django_db
def test_store_combined_makes_the_fit_the_sites_combined_score(judged, settings):
    assert combined_parameters() == (settings.COMBINED_SCORE_CENTRE, settings.COMBINED_SCORE_SLOPE)
    result = json.loads(run(judged, "--json", "--store-combined", *QUICK))
    setting = CombinedSetting.objects.get()
    fit = result["combined"]["overall"]
    assert (setting.centre, setting.slope) == (fit["centre"], fit["slope"])
    assert setting.dimension == "overall" and setting.pairs == 120
    assert combined_parameters() == (setting.centre, setting.slope)
    assert result["stored_combined"] == {"centre": setting.centre, "slope": setting.slope}


@pytest.mark.django_db
def test_references_come_from_a_stored_cluster_less_the_candidates_own_copy(tmp_path):
    segment = make_segment()
    for text in [*REFERENCES, "A man plays a guitar."]:
        worker = make_worker()
        assignment = crowd.assignment_claim(worker=worker, tier=Tier.ONE)
        services.description_submit(
            assignment_id=assignment.pk, worker=worker, text=text, language="en"
        )
    ratings = write(
        tmp_path / "ratings.csv",
        [{"source": SOURCE, "candidate": c, "rating": r, "cluster": segment.pk} for c, r in RATED],
        ["source", "candidate", "rating", "cluster"],
    )
    result = json.loads(run(ratings, "--json", "--folds", "3", *QUICK))
    assert result["pairs"] == 6 and result["language"] == "en"
    # Two candidates are descriptions of the cluster: each is scored against the other three,
    # not against itself; the other four candidates have all four references.
    points = result["reference_curves"]["rating"]["without_source"]
    assert points["4"]["pairs"] == 4 and points["2"]["pairs"] == 6


def rows_with(change):
    row = {
        "source": "a",
        "candidate": "b",
        "rating": "2",
        "references": "c ||| d",
    }
    return [dict(row, candidate=f"b{n}") for n in range(5)][:-1] + [change(dict(row))]


@pytest.mark.django_db
@pytest.mark.parametrize(
    "rows, columns, message",
    [
        ([{"source": "a", "candidate": "b"}], ["source", "candidate"], "missing columns"),
        (
            [{"source": "a", "candidate": "b", "references": "c"}],
            ["source", "candidate", "references"],
            "give either a rating column or the three columns",
        ),
        (
            [{"source": "a", "candidate": "b", "semantic": "1", "references": "c"}],
            ["source", "candidate", "semantic", "references"],
            "missing: rating, dissimilarity, overall",
        ),
        (
            [{"source": "a", "candidate": "b", "rating": "1"}],
            ["source", "candidate", "rating"],
            "missing columns: references or cluster",
        ),
        (rows_with(lambda r: r | {"rating": "good"}), None, "r.csv:6: rating 'good' is not"),
        (rows_with(lambda r: r | {"references": " "}), None, "r.csv:6: no references"),
        (rows_with(lambda r: r | {"references": "b"}), None, "r.csv:6: no references"),
        ([], ["source", "candidate", "rating", "references"], "no ratings"),
    ],
)
def test_bad_ratings_files_are_refused_naming_the_line(tmp_path, rows, columns, message):
    columns = columns or ["source", "candidate", "rating", "references"]
    with pytest.raises(CommandError, match=message):
        run(write(tmp_path / "r.csv", rows, columns), *QUICK)
    assert not CombinedSetting.objects.exists()


@pytest.mark.django_db
def test_unknown_clusters_and_mixed_languages_are_refused(tmp_path):
    columns = ["source", "candidate", "rating", "cluster"]
    unknown = write(
        tmp_path / "u.csv",
        [{"source": "a", "candidate": "b", "rating": 2, "cluster": 999_999}],
        columns,
    )
    with pytest.raises(CommandError, match=r"u.csv:2: no stored cluster '999999'"):
        run(unknown, *QUICK)
    segment = make_segment()
    for text, language in [("un chat", "fr"), ("a cat", "en")]:
        worker = make_worker()
        assignment = crowd.assignment_claim(worker=worker, tier=Tier.ONE)
        services.description_submit(
            assignment_id=assignment.pk, worker=worker, text=text, language=language
        )
    both = write(
        tmp_path / "b.csv",
        [{"source": "a", "candidate": "b", "rating": 2, "cluster": segment.pk}],
        columns,
    )
    with pytest.raises(CommandError, match="b.csv:2: segment .* has descriptions in en, fr"):
        run(both, *QUICK)
    rows = [
        {"source": "a", "candidate": "b", "rating": 2, "cluster": segment.pk, "language": lang}
        for lang in ("en", "fr")
    ]
    mixed = write(tmp_path / "m.csv", rows, [*columns, "language"])
    # Every side: which side the one segment's video falls on must not decide the test.
    with pytest.raises(CommandError, match="m.csv:3: in fr, earlier ratings in en"):
        run(mixed, "--store-combined", "--splits", "all", *QUICK)
    assert not CombinedSetting.objects.exists()


@pytest.mark.django_db
@pytest.mark.parametrize(
    "args, message",
    [
        (["--references", "0,all"], "--references: '0'"),
        (["--references", "two"], "--references: 'two'"),
        (["--draws", "0"], "draws must be at least 1"),
        (["--folds", "1"], "folds must be at least 2"),
        (["--folds", "7"], "6 rated pairs; at least 7"),
        (["--dimension", "semantic"], "no semantic ratings; the input has rating"),
    ],
)
def test_bad_options_are_refused(tmp_path, args, message):
    with pytest.raises(CommandError, match=message):
        run(single_rating_file(tmp_path), *QUICK, *args)


@pytest.mark.django_db
def test_dawid_skene_consensus_weights_the_judges_and_reports_their_reliability(judged):
    mean = json.loads(run(judged, "--json", *QUICK))
    weighted = json.loads(run(judged, "--json", "--consensus", "dawid-skene", *QUICK))
    assert mean["consensus"] == "mean" and "judge_reliability" not in mean
    assert weighted["consensus"] == "dawid-skene"
    assert weighted["pairs"] == mean["pairs"] and weighted["ratings"] == mean["ratings"]
    rows = weighted["judge_reliability"]
    assert len(rows) == 2 and set(rows[0]["reliability"]) == {
        "semantic",
        "dissimilarity",
        "overall",
    }
    assert all(0 < value < 1 for row in rows for value in row["reliability"].values())
    # The ratings correlated are the consensus, not the mean: the table's figures move.
    assert weighted["table"] != mean["table"]
    text = run(judged, "--consensus", "dawid-skene", *QUICK)
    assert "Judges weighted by reliability (Dawid–Skene)" in text
    assert rows[0]["judge"] in text


@pytest.mark.django_db
def test_dawid_skene_consensus_needs_to_know_who_rated(tmp_path):
    with pytest.raises(CommandError, match="no judge named; weighting judges"):
        run(single_rating_file(tmp_path), "--consensus", "dawid-skene", *QUICK)
    with pytest.raises(CommandError, match="invalid choice: 'median'"):
        run(single_rating_file(tmp_path), "--consensus", "median", *QUICK)


# STS-B rates on 0–5; the 1–4 ratings above, moved to that scale, keep every correlation.
STS_RATED = [(candidate, (rating - 1) * 5 / 3) for candidate, rating in RATED]


def sts_file(tmp_path, rows=STS_RATED, name="sts.csv"):
    return write(
        tmp_path / name,
        [
            {"source": SOURCE, "candidate": c, "rating": r, "references": " ||| ".join(REFERENCES)}
            for c, r in rows
        ],
        ["source", "candidate", "rating", "references"],
    )


@pytest.mark.django_db
def test_a_file_on_a_0_to_5_scale_is_correlated_and_the_guessed_scale_said(tmp_path):
    text = run(sts_file(tmp_path), *QUICK, "--folds", "3")

    assert "Ratings on 0–5, read from the data" in text and "state the scale with --scale" in text
    on_1_to_4 = json.loads(run(single_rating_file(tmp_path), "--json", *QUICK, "--folds", "3"))
    on_0_to_5 = json.loads(run(sts_file(tmp_path), "--json", *QUICK, "--folds", "3"))
    assert on_0_to_5["scale"] == {"lowest": 0.0, "highest": 5.0, "stated": False}
    pearson = [row["cells"]["rating"]["pearson"] for row in on_1_to_4["table"]]
    assert [row["cells"]["rating"]["pearson"] for row in on_0_to_5["table"]] == pytest.approx(
        pearson
    )


@pytest.mark.django_db
def test_a_stated_scale_is_used_and_checked_on_every_rating(tmp_path):
    text = run(sts_file(tmp_path), "--scale", "0-5", *QUICK, "--folds", "3")
    assert "Ratings on the scale 0–5." in text and "read from the data" not in text

    with pytest.raises(CommandError, match=r"sts.csv:2: rating '0.0' is outside the scale 1–4"):
        run(sts_file(tmp_path), "--scale", "1-4", *QUICK)
    with pytest.raises(CommandError, match="expected LOWEST-HIGHEST"):
        run(sts_file(tmp_path), "--scale", "five", *QUICK)


@pytest.mark.django_db
def test_without_a_judge_column_duplicate_rows_are_no_judge_agreement(tmp_path):
    twice = sts_file(tmp_path, rows=STS_RATED + STS_RATED, name="twice.csv")

    text = run(twice, *QUICK, "--folds", "3")
    result = json.loads(run(twice, "--json", *QUICK, "--folds", "3"))

    assert "Judge A vs. B" not in text
    assert "6 rated pairs, 12 ratings by no judge column" in text
    assert "judges" not in [row["row"] for row in result["table"]] and result["judges"] == 0


@pytest.mark.django_db
def test_with_a_judge_column_the_judges_agreement_is_reported(judged):
    text = run(judged, *QUICK)

    assert "Judge A vs. B" in text and "240 ratings by 2 judges" in text
