"""Learning from the corpus without its test clusters: the learners take the splits they learn
from and record them, and scoring flags a system whose table or model saw what it is scored on."""

import gzip
import itertools
import json
from io import StringIO

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import CommandError, call_command
from django.urls import reverse
from rest_framework.test import APIClient

from paracrowd_metrics.meteor import ParaphraseTable
from paracrowd_metrics.meteor.table import header_comment
from research import services
from research.learning import (
    LearnedFrom,
    LearningSplits,
    declaration_line,
    leakage,
    parse_splits,
    table_learned_from,
)
from research.models import SystemScoreJob
from research.splits import SplitOptions, video_key
from tests.factories import make_description, make_researcher, make_segment
from tests.research.system_jobs import post_and_run

SMALL_CORPUS = ["--min-count", "1", "--common-frequency", "1", "--no-progress"]
# Where each test starts looking for videos: their ids never repeat within a run.
NAMES = itertools.count(0, 100_000)
TEST_CLUSTER = ["a guy slices a tomato", "a man cuts a tomato", "the man slices the tomato"]
TRAIN_CLUSTERS = [
    ["a guy is running", "a man is running", "the man is running"],
    ["a guy cooks", "a man cooks", "the man cooks"],
]
SOURCE = TEST_CLUSTER[0]


DEFAULT_SPLIT = SplitOptions()


def video_on(side: str, split: SplitOptions = DEFAULT_SPLIT) -> str:
    """A YouTube id the split draws into ``side`` (sides depend on the video alone)."""
    for n in itertools.count(next(NAMES)):
        video = f"lrn{n:08d}"
        if split.side(video_key("youtube", video)) == side:
            return video
    raise AssertionError("unreachable")


def make_cluster(side: str, texts: list[str]):
    segment = make_segment(youtube_id=video_on(side))
    for text in texts:
        make_description(segment, text)
    return segment


def make_corpus():
    test_segment = make_cluster("test", TEST_CLUSTER)
    for texts in TRAIN_CLUSTERS:
        make_cluster("train", texts)
    return test_segment


def run(command: str, *args) -> str:
    out = StringIO()
    call_command(command, *args, stdout=out, stderr=StringIO())
    return out.getvalue()


def test_a_table_learned_from_train_only_is_not_flagged_and_one_with_test_is(db, tmp_path):
    make_corpus()
    sources = tmp_path / "sources.txt"
    sources.write_text(SOURCE + "\n")
    found = {}
    for name, splits in [("train", []), ("leaky", ["--splits", "train,test"])]:
        table = tmp_path / f"{name}.gz"
        learned = run(
            "extract_paraphrases", "--from-db", "--output", str(table), *SMALL_CORPUS, *splits
        )
        outputs = tmp_path / f"{name}.tsv"
        outputs.write_text(
            run("paraphrase", "--sources", str(sources), "--table", str(table), "--from-db")
        )
        found[name] = (learned, ParaphraseTable.load(table), run("score_system", str(outputs)))

    learned, table, scored = found["train"]
    assert "Learned from train (by video, seed 0, test 0.1, dev 0; 2 clusters" in learned
    # The test cluster's own wording was not learned.
    assert ("cuts",) not in table.paraphrases("slices")
    assert "Pairs: 1, scored: 1" in scored
    assert "Learned from: the paraphrase table: train (by video" in scored
    assert "test leakage" not in scored

    learned, table, scored = found["leaky"]
    assert "Learned from train, test (by video, seed 0, test 0.1, dev 0; 3 clusters" in learned
    assert ("cuts",) in table.paraphrases("slices")
    assert "Pairs: 1, scored: 1" in scored
    assert (
        "Warning: test leakage: the paraphrase table was learned from train, test (by video, "
        "seed 0, test 0.1, dev 0) and saw the clusters of 1 of the 1 scored sources"
    ) in scored
    # The model learned from train alone (paraphrase's default): it is not flagged.
    assert "the language model was learned" not in scored


def test_the_table_keeps_its_record_in_a_gzip_header_every_reader_skips(db, tmp_path):
    make_corpus()
    table = tmp_path / "table.gz"
    run("extract_paraphrases", "--from-db", "--output", str(table), *SMALL_CORPUS)

    record = table_learned_from(header_comment(table))
    assert record.what == "paraphrase table" and record.splits == ("train",)
    assert record.clusters == 2 and len(record.digest) == 16
    # Plain gzip reads the table's METEOR text, and the same table saved without the comment
    # has the same checksum.
    loaded = ParaphraseTable.load(table)
    assert gzip.decompress(table.read_bytes()).decode() == loaded.text()
    loaded.save(tmp_path / "bare.gz")
    assert header_comment(tmp_path / "bare.gz") == ""
    assert table_learned_from("").splits is None


def test_the_same_clusters_give_the_same_digest_and_others_another(db, tmp_path):
    make_corpus()
    digests = []
    for splits in ["train", "train", "all"]:
        table = tmp_path / f"{len(digests)}.gz"
        run("extract_paraphrases", "--from-db", "--output", str(table), "--splits", splits)
        digests.append(table_learned_from(header_comment(table)).digest)
    assert digests[0] == digests[1] != digests[2]


def test_the_model_of_paraphrase_records_its_splits_too(db, tmp_path):
    make_corpus()
    table = tmp_path / "table.gz"
    run("extract_paraphrases", "--from-db", "--output", str(table), *SMALL_CORPUS)

    printed = run("paraphrase", SOURCE, "--table", str(table), "--from-db", "--splits", "all")

    table_line, model_line, header, *_ = printed.splitlines()
    assert table_line.startswith("# learned-from: ") and header == "source\toutput"
    model = LearnedFrom.from_json(model_line.removeprefix("# learned-from: "))
    assert model.what == "language model" and model.splits == ("train", "dev", "test")
    assert model.clusters == 3


def test_a_cluster_file_naming_no_video_is_refused_unless_every_side_is_learned(tmp_path):
    clusters = tmp_path / "clusters.jsonl"
    record = {"segment": {"id": 1}, "language": "en", "descriptions": [{"text": "a guy"}]}
    clusters.write_text(json.dumps(record) + "\n")
    with pytest.raises(CommandError, match=r"clusters.jsonl:1: the record names no video"):
        run("extract_paraphrases", str(clusters), "--output", str(tmp_path / "t.gz"))
    assert not (tmp_path / "t.gz").exists()


def test_a_cluster_export_is_split_by_the_videos_it_names(db, tmp_path):
    make_corpus()
    run("export_corpus", str(tmp_path / "c.jsonl"), "--format", "jsonl", "--no-progress")
    table = tmp_path / "t.gz"
    learned = run(
        "extract_paraphrases", str(tmp_path / "c.jsonl"), "--output", str(table), *SMALL_CORPUS
    )
    assert "Learned from train (by video, seed 0, test 0.1, dev 0; 2 clusters" in learned
    assert ("cuts",) not in ParaphraseTable.load(table).paraphrases("slices")


@pytest.mark.parametrize(
    "splits, message",
    [("train,exam", "exam is not a side"), ("", "nothing is not a side")],
)
def test_bad_splits_are_refused_before_any_work(tmp_path, splits, message):
    with pytest.raises(CommandError, match=message):
        run(
            "extract_paraphrases",
            "--from-db",
            "--output",
            str(tmp_path / "t.gz"),
            "--splits",
            splits,
        )
    assert list(tmp_path.iterdir()) == []


def test_splits_are_named_in_split_order_and_all_means_every_side():
    assert parse_splits("test, train") == ("train", "test")
    assert parse_splits("all") == ("train", "dev", "test")


def test_a_record_tells_which_videos_it_saw_under_another_split_too():
    learning = LearningSplits(splits=("train",), split=SplitOptions(seed=3))
    record = learning.learned_from("paraphrase table")
    scored_on = SplitOptions(seed=7)
    videos = [video_key("youtube", video_on("test", scored_on)) for _ in range(30)]
    seen = [video for video in videos if SplitOptions(seed=3).side(video) == "train"]
    assert 0 < len(seen) < len(videos)  # another seed draws other sides

    checked = leakage([record], videos)

    assert checked.saw_scored_clusters is True
    assert f"saw the clusters of {len(seen)} of the 30 scored sources" in checked.warnings[0]
    same_split = LearningSplits(splits=("train",), split=scored_on).learned_from("model")
    assert leakage([same_split], videos).saw_scored_clusters is False
    assert leakage([], videos).saw_scored_clusters is None
    unrecorded = leakage([LearnedFrom(what="paraphrase table")], videos)
    assert unrecorded.saw_scored_clusters is None
    assert "records no splits" in unrecorded.warnings[0]


def client_for(user) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


def test_the_api_says_when_a_system_saw_the_clusters_it_is_scored_on(db):
    make_corpus()
    api = client_for(make_researcher())
    leaky = LearningSplits(splits=("train", "test")).learned_from("paraphrase table")
    clean = LearningSplits().learned_from("paraphrase table")
    pairs = [{"source": SOURCE, "output": "a man slices a tomato"}]
    job = post_and_run(
        api,
        {
            "systems": [
                {"name": "leaky", "pairs": pairs, "learned_from": [leaky.as_dict()]},
                {"name": "clean", "pairs": pairs, "learned_from": [clean.as_dict()]},
                {"name": "silent", "pairs": pairs},
            ]
        },
    )

    rows = {row["name"]: row for row in job["result"]["systems"]}
    assert rows["leaky"]["saw_scored_clusters"] is True
    assert "test leakage: the paraphrase table" in rows["leaky"]["leakage"][0]
    assert rows["leaky"]["learned_from"] == [leaky.as_dict()]
    assert rows["clean"]["saw_scored_clusters"] is False and rows["clean"]["leakage"] == []
    assert rows["silent"]["saw_scored_clusters"] is None
    assert job["result"]["human"]["saw_scored_clusters"] is None


@pytest.mark.parametrize(
    "record, message",
    [
        ({"what": "table", "splits": ["exam"]}, "not a valid choice"),
        ({"splits": ["train"]}, "This field is required"),
        ({"what": "table", "test_fraction": 0.6, "dev_fraction": 0.5}, "below 1"),
        ({"what": "table", "systems": True}, "give each system its own learned_from"),
    ],
)
def test_a_bad_declaration_is_refused_and_no_job_stored(db, record, message):
    api = client_for(make_researcher())
    pairs = [{"source": SOURCE, "output": "x"}]
    body = {"pairs": pairs, "learned_from": [record]}
    if record.pop("systems", False):
        body = {"systems": [{"name": "a", "pairs": pairs}], "learned_from": [record]}
    response = api.post(reverse("research-api:system-scores"), body, format="json")
    assert response.status_code == 400
    assert message in json.dumps(response.json())
    assert not SystemScoreJob.objects.exists()


def test_the_comparison_page_warns_about_an_uploaded_system_that_saw_its_test_clusters(client, db):
    make_corpus()
    client.force_login(make_researcher())
    leaky = LearningSplits(splits=("train", "test")).learned_from("paraphrase table")
    lines = [declaration_line(leaky), "source\toutput", f"{SOURCE}\ta man slices a tomato"]
    upload = SimpleUploadedFile("leaky.tsv", "\n".join(lines).encode(), content_type="text/plain")
    form = {"outputs": [upload], "seed": 0, "test_fraction": 0.1}

    response = client.post(reverse("research:comparison_start"), form)

    assert response.status_code == 302
    job = SystemScoreJob.objects.get()
    services.system_score_job_run(job_id=job.pk)
    page = client.get(reverse("research:home")).content.decode()
    assert 'leaky (baseline) <span class="leakage">(saw test clusters)</span>' in page
    assert "leaky: test leakage: the paraphrase table was learned from train, test" in page


def test_a_malformed_declaration_line_is_named(db, tmp_path):
    outputs = tmp_path / "outputs.tsv"
    outputs.write_text("# learned-from: {not json\nsource\toutput\n")
    with pytest.raises(CommandError, match=r"outputs.tsv:1: a learned-from record is not JSON"):
        run("score_system", str(outputs))
