"""Fitting the combined metric to human ratings from a CSV file."""

import csv
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from collector import services
from crowd import services as crowd
from crowd.models import Tier
from tests.factories import make_segment, make_worker

SOURCE = "A man is playing a guitar."
REFERENCES = ["A man plays the guitar.", "Someone is playing a guitar.", "A guy strums a guitar."]
# Candidates rated higher the more they reword the source while keeping its meaning.
RATED = [
    ("A man is playing a guitar.", 1),
    ("A man is playing the guitar.", 2),
    ("A man plays a guitar.", 3),
    ("Someone is playing a guitar.", 4),
    ("A guy strums his guitar.", 5),
    ("A cat is sleeping.", 1),
]


def write(path, rows, columns):
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=columns)
        writer.writeheader()
        writer.writerows(rows)
    return path


@pytest.mark.django_db  # the METEOR-style row reads the site's stored parameters
def test_it_prints_the_fitted_parameters_and_the_correlation_table(tmp_path):
    ratings = write(
        tmp_path / "ratings.csv",
        [
            {"source": SOURCE, "candidate": c, "rating": r, "references": " ||| ".join(REFERENCES)}
            for c, r in RATED
        ],
        ["source", "candidate", "rating", "references"],
    )
    out = StringIO()
    call_command("fit_combined_metric", str(ratings), stdout=out)
    text = out.getvalue()
    assert "Fitted on 6 ratings: centre = " in text
    for name in [
        "BLEU",
        "PINC",
        "arithmetic mean",
        "geometric mean",
        "harmonic mean",
        "PINC × sigmoid(BLEU)",
        "METEOR-style",
    ]:
        assert name in text


@pytest.mark.django_db
def test_it_takes_references_from_a_stored_cluster(tmp_path):
    segment = make_segment()
    for text in REFERENCES:
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
    out = StringIO()
    call_command("fit_combined_metric", str(ratings), stdout=out)
    assert "Fitted on 6 ratings" in out.getvalue()


@pytest.mark.django_db
@pytest.mark.parametrize(
    "rows, columns, message",
    [
        ([{"source": "a", "candidate": "b"}], ["source", "candidate"], "missing: rating"),
        (
            [{"source": "a", "candidate": "b", "rating": "good", "references": "c"}],
            ["source", "candidate", "rating", "references"],
            "is not a number",
        ),
        (
            [{"source": "a", "candidate": "b", "rating": "1", "cluster": "999"}],
            ["source", "candidate", "rating", "cluster"],
            "no stored cluster",
        ),
    ],
)
def test_bad_ratings_files_get_a_clear_message(tmp_path, rows, columns, message):
    with pytest.raises(CommandError, match=message):
        call_command("fit_combined_metric", str(write(tmp_path / "r.csv", rows, columns)))
