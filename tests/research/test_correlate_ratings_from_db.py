"""correlate_ratings --from-db: the ratings two judges gave in the app, against the references
of each item's stored cluster."""

import json
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from research.ratings.batches import ItemDraft
from research.ratings.selectors import ratings_from_db
from tests.factories import make_description, make_segment, make_worker
from tests.research.ratings import make_batch, rate_next

pytestmark = pytest.mark.django_db

CLUSTER = [
    "A man is playing a guitar.",
    "A man plays the guitar.",
    "Someone is playing a guitar.",
    "A guy strums a guitar.",
    "A musician plays an acoustic guitar.",
]
CANDIDATES = [
    "A man is playing a guitar.",
    "A man plays a guitar.",
    "Someone strums a guitar.",
    "A person plays music.",
    "A cat is sleeping.",
    "A man is eating.",
]
# Two judges who roughly agree: (semantic, dissimilarity, overall) per candidate.
JUDGE_A = [(4, 1, 1), (4, 2, 2), (4, 3, 4), (3, 4, 3), (1, 4, 1), (1, 4, 1)]
JUDGE_B = [(4, 1, 1), (4, 2, 3), (3, 3, 4), (3, 4, 2), (1, 3, 1), (2, 4, 1)]


@pytest.fixture
def rated():
    """A batch of six candidates of one source, each rated by two judges; a second batch with
    an item of no cluster, rated too."""
    segment = make_segment()
    for text in CLUSTER:
        make_description(segment, text)
    batch = make_batch(
        pairs=[],
        items=[ItemDraft(CLUSTER[0], candidate, segment.pk) for candidate in CANDIDATES],
    )
    for values in (JUDGE_A, JUDGE_B):
        judge = make_worker()
        for _ in CANDIDATES:
            rating = rate_next(judge)
            rating.semantic, rating.dissimilarity, rating.overall = values[
                CANDIDATES.index(rating.item.candidate)
            ]
            rating.save()
    loose = make_batch(pairs=[("A dog runs.", "A dog is running.")], name="no cluster")
    rate_next(make_worker())
    return batch, loose


def run(*args) -> str:
    out = StringIO()
    call_command("correlate_ratings", *map(str, args), stdout=out)
    return out.getvalue()


def test_records_are_one_per_judge_with_the_cluster_less_the_source(rated):
    batch, _ = rated
    records, dimensions = ratings_from_db(batch)
    assert dimensions == ("semantic", "dissimilarity", "overall")
    assert len(records) == 2 * len(CANDIDATES)
    assert len({record.judge for record in records}) == 2
    # The source is one of the cluster's descriptions: one copy of it leaves the references.
    assert all(list(record.references) == CLUSTER[1:] for record in records)
    first = next(r for r in records if r.candidate == CANDIDATES[0])
    assert first.ratings == dict(zip(dimensions, JUDGE_A[0], strict=True)) or (
        first.ratings == dict(zip(dimensions, JUDGE_B[0], strict=True))
    )


def test_items_without_a_cluster_are_left_out(rated):
    _, loose = rated
    with pytest.raises(Exception, match="No stored ratings of items with a cluster"):
        ratings_from_db(loose)
    # Every batch together: the loose item is simply not there.
    assert len(ratings_from_db()[0]) == 2 * len(CANDIDATES)


def test_the_command_reads_the_apps_ratings_and_reports_the_judges(rated):
    batch, _ = rated
    result = json.loads(
        run(
            "--from-db",
            "--batch",
            batch.pk,
            "--json",
            "--references",
            "1,2,all",
            "--folds",
            "3",
            "--bootstrap",
            "0",
            "--draws",
            "2",
            "--no-meteor",
        )
    )
    assert result["pairs"] == len(CANDIDATES)
    assert set(result["by_references"]) == {"1", "2", "all"}
    assert "bleu" in result["by_references"]["all"]
    assert (result["ratings"], result["judges"]) == (2 * len(CANDIDATES), 2)
    # Two judges rated every pair: their agreement is the table's first row, per dimension.
    judges = result["table"][0]
    assert judges["row"] == "judges"
    assert set(judges["cells"]) == {"semantic", "dissimilarity", "overall"}
    assert judges["cells"]["semantic"]["pearson"] > 0.5


def test_the_apps_judges_can_be_weighted_by_their_reliability(rated):
    batch, _ = rated
    result = json.loads(
        run(
            *("--from-db", "--batch", batch.pk, "--json", "--consensus", "dawid-skene"),
            *("--references", "1,all", "--folds", "3", "--bootstrap", "0", "--no-meteor"),
        )
    )
    assert result["consensus"] == "dawid-skene" and result["pairs"] == len(CANDIDATES)
    judges = {row["judge"] for row in result["judge_reliability"]}
    assert len(judges) == 2 and all(judge.startswith("local-") for judge in judges)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ([], "either a ratings CSV or --from-db"),
        (["ratings.csv", "--from-db"], "either a ratings CSV or --from-db"),
        (["ratings.csv", "--batch", "1"], "--batch goes with --from-db"),
        (["--from-db", "--batch", "999999"], "No rating batch 999999"),
    ],
)
def test_bad_combinations_are_refused(args, message):
    with pytest.raises(CommandError, match=message):
        run(*args)


def test_no_ratings_in_the_app_is_refused():
    with pytest.raises(CommandError, match="No stored ratings"):
        run("--from-db")
