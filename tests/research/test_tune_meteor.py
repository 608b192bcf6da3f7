"""tune_meteor: the METEOR-style parameters tuned to human ratings, and stored for the site."""

import csv
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from paracrowd_metrics.meteor import ParaphraseTable
from scoring.services import meteor_setting_current

REFERENCES = "a guy is cutting a tomato ||| someone slices a tomato"
# Rated higher the more of the scene they keep, whatever the wording.
RATED = [
    ("a man slices a tomato", 5),
    ("a guy is cutting a tomato", 5),
    ("a man is slicing a tomato", 5),
    ("a man cuts a tomato", 4),
    ("a man cuts bread", 2),
    ("a tomato", 2),
    ("a dog runs", 1),
    ("someone is cutting a tomato", 5),
    ("a guy sings", 1),
    ("a woman slices an onion", 2),
]


@pytest.fixture
def ratings(tmp_path):
    path = tmp_path / "ratings.csv"
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["source", "candidate", "rating", "references"])
        writer.writerows([["", candidate, rating, REFERENCES] for candidate, rating in RATED])
    return path


@pytest.fixture
def table(tmp_path):
    table = ParaphraseTable()
    table.add("is cutting", "slices", 0.4)
    table.add("guy", "man", 0.3)
    table.save(tmp_path / "table.gz")
    return tmp_path / "table.gz"


def tune(*args) -> str:
    out = StringIO()
    call_command("tune_meteor", *args, stdout=out)
    return out.getvalue()


def test_it_prints_correlations_with_and_without_paraphrases(ratings, table):
    output = tune(str(ratings), "--table", str(table), "--folds", "3")
    assert "10 ratings, Pearson r, mean of 3 held-out folds" in output
    for name in ["sentence BLEU", "exact+stem, tuned", "+ paraphrases, tuned"]:
        assert name in output
    assert "a:" in output.split("+ paraphrases, tuned")[1]


@pytest.mark.django_db
def test_store_makes_the_tuned_parameters_the_sites(ratings, table):
    assert meteor_setting_current() is None
    output = tune(str(ratings), "--table", str(table), "--folds", "3", "--store")
    setting = meteor_setting_current()
    assert "Stored as the site's parameters" in output
    assert setting.ratings == 10 and set(setting.parameters) >= {"alpha", "paraphrase"}
    if setting.parameters["paraphrase"] > 0:
        assert setting.table_checksum == ParaphraseTable.load(table).checksum()


def test_a_malformed_table_is_refused_with_its_line(ratings, tmp_path):
    (tmp_path / "bad.txt").write_text("high\nguy\nman\n")
    with pytest.raises(CommandError, match="bad.txt:1: expected a probability"):
        tune(str(ratings), "--table", str(tmp_path / "bad.txt"))


def test_too_many_folds_are_refused(ratings):
    with pytest.raises(CommandError, match="--folds must be between 2 and 10"):
        tune(str(ratings), "--folds", "11")
