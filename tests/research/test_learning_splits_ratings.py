"""The learners tuned on human ratings (tune_meteor, the combined score's fit) use the ratings of
train clusters by default, and the site's settings record which splits they came from."""

import csv
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from paracrowd_metrics.ratings_analysis import AnalysisOptions
from research import services
from research.correlation import correlation_parameters
from research.models import CorrelationReport
from scoring.models import CombinedSetting, MeteorSetting
from tests.factories import make_description, make_researcher, make_segment
from tests.research.test_learning_splits import video_on

RATED = [
    ("a man slices a tomato", 4),
    ("a guy is cutting a tomato", 4),
    ("a man is slicing a tomato", 4),
    ("a man cuts a tomato", 3),
    ("a man cuts bread", 2),
    ("a tomato", 2),
    ("a dog runs", 1),
    ("someone is cutting a tomato", 4),
    ("a guy sings", 1),
    ("a woman slices an onion", 2),
]
QUICK = ["--bootstrap", "100", "--draws", "2", "--no-meteor", "--folds", "3"]


def cluster_on(side: str):
    segment = make_segment(youtube_id=video_on(side))
    for text in ["a guy is cutting a tomato", "someone slices a tomato", "a man cuts a tomato"]:
        make_description(segment, text)
    return segment


def ratings_file(path, *, outside: bool):
    """Ten ratings of a train cluster's candidates, three of a test cluster's, and (when
    ``outside``) two with references of their own (no stored cluster)."""
    train, test = cluster_on("train"), cluster_on("test")
    rows = [(candidate, rating, train.pk, "") for candidate, rating in RATED]
    rows += [(candidate, rating, test.pk, "") for candidate, rating in RATED[:3]]
    if outside:
        references = "a man slices a tomato ||| a guy cuts a tomato"
        rows += [(candidate, rating, "", references) for candidate, rating in RATED[4:6]]
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["source", "candidate", "rating", "cluster", "references", "language"])
        writer.writerows([["a guy slices a tomato", *row, "en"] for row in rows])
    return path


@pytest.fixture
def ratings(db, tmp_path):
    return ratings_file(tmp_path / "ratings.csv", outside=True)


def run(command: str, *args) -> str:
    out = StringIO()
    call_command(command, *map(str, args), stdout=out)
    return out.getvalue()


def test_tune_meteor_tunes_on_train_clusters_and_records_them(ratings):
    output = run("tune_meteor", ratings, "--folds", "3", "--store")

    assert "Learned from train (by video, seed 0, test 0.1, dev 0; 1 cluster," in output
    assert "Left out: 3 ratings of clusters on other sides" in output
    assert "2 ratings name no stored cluster: used, as outside the corpus" in output
    assert "12 ratings, Pearson r" in output
    (record,) = MeteorSetting.objects.get().learned_from
    assert record["splits"] == ["train"] and record["clusters"] == 1


def test_tune_meteor_learns_from_the_test_split_only_when_asked(ratings):
    output = run("tune_meteor", ratings, "--folds", "3", "--splits", "all", "--store")
    assert "15 ratings, Pearson r" in output
    assert MeteorSetting.objects.get().learned_from[0]["splits"] == ["train", "dev", "test"]


def test_the_stored_combined_fit_learns_from_train_clusters_and_records_them(ratings):
    output = run("correlate_ratings", ratings, "--store-combined", *QUICK)

    assert "Left out: 3 ratings of clusters on other sides" in output
    (record,) = CombinedSetting.objects.get().learned_from
    assert record["splits"] == ["train"] and record["clusters"] == 1
    assert CombinedSetting.objects.get().pairs == 12


def test_an_analysis_that_stores_nothing_reads_every_rating(ratings):
    output = run("correlate_ratings", ratings, *QUICK)
    assert "Learned from" not in output and "Left out" not in output
    assert "15 ratings by" in output


def test_a_split_seed_apart_from_the_folds_seed_draws_the_sides(ratings):
    run("tune_meteor", ratings, "--folds", "3", "--seed", "4", "--split-seed", "9", "--store")
    record = MeteorSetting.objects.get().learned_from[0]
    assert record["seed"] == 9


def test_no_ratings_on_the_splits_asked_for_is_refused_and_nothing_stored(db, tmp_path):
    ratings = ratings_file(tmp_path / "ratings.csv", outside=False)
    with pytest.raises(CommandError, match="No ratings on dev"):
        run("correlate_ratings", ratings, "--store-combined", "--splits", "dev", *QUICK)
    assert not CombinedSetting.objects.exists()


def test_a_fit_stored_from_the_research_page_records_every_side_it_read(ratings):
    text = ratings.read_text()
    report = CorrelationReport.objects.create(
        requested_by=make_researcher(),
        name="ratings.csv",
        ratings_csv=text,
        parameters=correlation_parameters(
            text=text,
            name="ratings.csv",
            options=AnalysisOptions(draws=2, resamples=50, folds=3),
            dimension=None,
            meteor=False,
        ),
    )
    assert services.correlation_report_run(report_id=report.pk)

    services.correlation_combined_store(report=CorrelationReport.objects.get(pk=report.pk))

    (record,) = CombinedSetting.objects.get().learned_from
    assert record["splits"] == ["train", "dev", "test"] and record["clusters"] == 2
