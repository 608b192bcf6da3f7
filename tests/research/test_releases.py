"""manage.py release: numbered, immutable releases of a growing corpus, their manifests and
what changed between them, loaded with the datasets library; written to S3 as well."""

import hashlib
import json
from io import StringIO
from pathlib import Path

import pytest
import yaml
from django.core.management import CommandError, call_command

from collector.models import Description
from research.models import Release, ReleaseDescription
from research.splits import SplitOptions, video_key
from scoring.models import DescriptionScore
from tests.factories import make_description, make_researcher, make_segment

pytestmark = pytest.mark.django_db

VIDEOS = ["releaseAAAA", "releaseBBBB", "releaseCCCC", "releaseDDDD"]
BIBTEX = "@misc{paracrowd, title = {ParaCrowd video descriptions}}"


def side(seed: int, video: str) -> str:
    return SplitOptions(seed=seed, test_fraction=0.5).side(video_key("youtube", video))


# The first seed that puts the videos on both sides (the video ids are fixed, so this is too).
SEED = next(s for s in range(1000) if len({side(s, video) for video in VIDEOS}) == 2)
TRAIN = [video for video in VIDEOS if side(SEED, video) == "train"]
TEST = [video for video in VIDEOS if side(SEED, video) == "test"]


@pytest.fixture(autouse=True)
def site_licence(settings):
    settings.RELEASE_LICENSE = "cc-by-4.0"
    settings.RELEASE_CITATION = BIBTEX


@pytest.fixture
def corpus():
    segments = {video: make_segment(youtube_id=video) for video in VIDEOS}
    for video, segment in segments.items():
        for n in range(2):
            make_description(segment, f"{video} described, take {n}.")
    return segments


@pytest.fixture
def hugging_face_offline(tmp_path, monkeypatch):
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf"))
    import datasets

    return lambda folder: datasets.load_dataset(str(folder), cache_dir=str(tmp_path / "cache"))


def release(*args) -> str:
    out = StringIO()
    split = ["--seed", str(SEED), "--test-fraction", "0.5"]
    call_command("release", *split, *args, stdout=out)
    return out.getvalue()


def manifest_of(folder: Path) -> dict:
    return json.loads((folder / "manifest.json").read_text(encoding="utf-8"))


def test_two_releases_of_a_growing_corpus_say_what_changed_and_load_with_datasets(
    tmp_path, corpus, hugging_face_offline
):
    first, second = tmp_path / "release-1", tmp_path / "release-2"
    out = release("--output", str(first), "--format", "msvd-json", "--format", "jsonl")
    assert "Release 1: 8 descriptions in 4 clusters (parquet, msvd-json, jsonl)" in out
    assert "The first release." in out

    added_train = make_description(corpus[TRAIN[0]], "Added on the train side.")
    added_test = make_description(corpus[TEST[0]], "Added on the test side.")
    withdrawn = Description.objects.filter(segment=corpus[TEST[-1]]).first()
    withdrawn.status = Description.Status.REJECTED
    withdrawn.save()
    out = release("--output", str(second), "--format", "msvd-json", "--format", "jsonl")

    assert "Release 2: 9 descriptions" in out and "Since release 1:" in out
    assert "  train: 1 added, 0 removed" in out and "  test: 1 added, 1 removed" in out
    one, two = manifest_of(first), manifest_of(second)
    assert (one["release"], two["release"]) == (1, 2)
    assert one["changes"] == {"since": None, "file": None, "splits": {}}
    assert two["changes"] == {
        "since": 1,
        "file": "changes.tsv",
        "splits": {"train": {"added": 1, "removed": 0}, "test": {"added": 1, "removed": 1}},
    }
    changes = (second / "changes.tsv").read_text().splitlines()
    assert changes == [
        "change\tsplit\tdescription_id",
        f"added\ttest\t{added_test.pk}",
        f"removed\ttest\t{withdrawn.pk}",
        f"added\ttrain\t{added_train.pk}",
    ]
    train_size = 2 * len(TRAIN)
    assert one["counts"]["splits"]["train"]["descriptions"] == train_size
    assert two["counts"]["splits"]["train"]["descriptions"] == train_size + 1
    assert two["counts"]["splits"]["test"]["descriptions"] == 2 * len(TEST)
    assert two["split"] == {"by": "video", "seed": SEED, "test_fraction": 0.5, "dev_fraction": 0.0}
    assert two["filter_text"] == "status accepted" and two["licence"] == "cc-by-4.0"
    assert two["citation"] == BIBTEX

    # Every file, its size and SHA-256, as written; nothing in the folder is left out.
    for folder, manifest in ((first, one), (second, two)):
        listed = {file["path"]: file for file in manifest["files"]}
        on_disk = {str(path.relative_to(folder)) for path in folder.rglob("*") if path.is_file()}
        assert set(listed) | {"manifest.json"} == on_disk
        for name, file in listed.items():
            body = (folder / name).read_bytes()
            assert (file["bytes"], file["sha256"]) == (len(body), hashlib.sha256(body).hexdigest())
    listed = {file["path"]: file for file in two["files"]}
    assert listed["msvd-json/test.json"]["rows"] == 2 * len(TEST)
    assert listed["jsonl/train.jsonl"]["split"] == "train"
    test_json = json.loads((second / "msvd-json" / "test.json").read_text())
    assert "Added on the test side." in test_json[f"{TEST[0]}_1_6"]

    # The database keeps what each release holds.
    assert ReleaseDescription.objects.filter(release__number=1).count() == 8
    assert (
        ReleaseDescription.objects.get(release__number=2, description_id=added_train.pk).split
        == "train"
    )

    for folder, sizes in (
        (first, (train_size, 2 * len(TEST))),
        (second, (train_size + 1, 2 * len(TEST))),
    ):
        loaded = hugging_face_offline(folder)
        assert (loaded["train"].num_rows, loaded["test"].num_rows) == sizes
    texts = {row["text"] for row in hugging_face_offline(second)["test"]}
    assert "Added on the test side." in texts and withdrawn.text not in texts


def test_the_dataset_card_declares_the_sites_licence_citation_and_changes(tmp_path, corpus):
    release("--output", str(tmp_path / "one"))
    make_description(corpus[TRAIN[0]], "One more.")
    release("--output", str(tmp_path / "two"))

    card = (tmp_path / "two" / "README.md").read_text(encoding="utf-8")
    front_matter = card.split("---\n")[1]
    assert 'license: "cc-by-4.0"' in front_matter and "configs:" in front_matter
    assert "## Release 2" in card and "### Changes since release 1" in card
    assert "| train | 1 | 0 |" in card
    assert f"```bibtex\n{BIBTEX}\n```" in card


def test_the_release_card_gives_each_split_files_size_in_bytes(tmp_path, corpus):
    release("--output", str(tmp_path / "one"))

    card = (tmp_path / "one" / "README.md").read_text(encoding="utf-8")
    splits = yaml.safe_load(card.split("---\n")[1])["dataset_info"]["splits"]
    files = {item["path"]: item["bytes"] for item in manifest_of(tmp_path / "one")["files"]}
    assert splits and {split["name"]: split["num_bytes"] for split in splits} == {
        split["name"]: (tmp_path / "one" / f"data/{split['name']}-00000.parquet").stat().st_size
        for split in splits
    }
    assert all(
        files[f"data/{split['name']}-00000.parquet"] == split["num_bytes"] for split in splits
    )


def test_the_manifest_names_the_signature_and_tokenisation_of_every_score(tmp_path, corpus):
    signature = "nrefs:1|case:mixed|eff:yes|tok:13a|smooth:exp|version:2.6.0"
    for description in Description.objects.all():
        DescriptionScore.objects.create(
            description=description,
            bleu=10.0,
            pinc=50.0,
            references=1,
            bleu_signature=signature,
            pinc_signature="nsources:1|case:lc|tok:13a|order:4",
        )

    release("--output", str(tmp_path / "one"))

    scores = manifest_of(tmp_path / "one")["scores"]
    assert {
        "score": "bleu",
        "of": "description",
        "formats": ["parquet"],
        "signature": signature,
        "tokenize": "13a",
        "descriptions": 8,
    } in scores
    assert {(score["score"], score["tokenize"]) for score in scores} == {
        ("bleu", "13a"),
        ("pinc", "13a"),
    }


def test_a_release_never_overwrites_and_numbers_are_never_reused(tmp_path, corpus):
    release("--output", str(tmp_path / "one"))
    before = (tmp_path / "one" / "manifest.json").read_bytes()

    with pytest.raises(CommandError, match="holds release 1 already; a release never overwrites"):
        release("--output", str(tmp_path / "one"))
    (tmp_path / "occupied").mkdir()
    (tmp_path / "occupied" / "notes.txt").write_text("mine")
    with pytest.raises(CommandError, match="already holds files"):
        release("--output", str(tmp_path / "occupied"))

    assert (tmp_path / "one" / "manifest.json").read_bytes() == before
    assert list(Release.objects.values_list("number", flat=True)) == [1]
    assert "Release 2:" in release("--output", str(tmp_path / "two"))


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--format", "xml"], "'xml' is not a release format; a release holds parquet, "),
        (["--format", "pharaoh"], "'pharaoh' is not a release format"),
        (["--test-fraction", "1.5"], "test_fraction must be at least 0 and below 1"),
        (["--tier", "2"], "nothing to release: no description is status accepted; tier 2"),
        (["--by", "nobody"], "--by: there is no user 'nobody'"),
        (["--since", "yesterday"], "since: 'yesterday' is not a date"),
    ],
)
def test_bad_requests_are_refused_with_a_clear_message_and_nothing_made(
    tmp_path, corpus, args, message
):
    with pytest.raises(CommandError, match=message.replace("(", r"\(")):
        release("--output", str(tmp_path / "out"), *args)

    assert not Release.objects.exists() and not (tmp_path / "out").exists()


def test_no_release_is_made_until_the_site_sets_its_licence(tmp_path, corpus, settings):
    settings.RELEASE_LICENSE = ""

    with pytest.raises(CommandError, match="RELEASE_LICENSE"):
        release("--output", str(tmp_path / "out"))
    assert not Release.objects.exists()


def test_the_release_records_who_made_it(tmp_path, corpus):
    researcher = make_researcher()

    release("--output", str(tmp_path / "one"), "--by", researcher.username)

    made = Release.objects.get()
    assert made.created_by == researcher and made.state == "done"
    assert made.manifest["created_by"] == researcher.username
    assert made.location == str(tmp_path / "one") and made.folder == ""


def test_releases_are_written_to_s3_through_a_real_http_endpoint(corpus, s3_server, settings):
    endpoint, client, bucket = s3_server
    settings.EXPORT_S3_ENDPOINT_URL = endpoint

    out = release("--output", f"s3://{bucket}/releases/1", "--format", "msvd-csv")

    assert f"written to s3://{bucket}/releases/1." in out
    manifest = json.loads(
        client.get_object(Bucket=bucket, Key="releases/1/manifest.json")["Body"].read()
    )
    # The bucket is shared with the other S3 tests: only this release's place is ours.
    listing = client.list_objects_v2(Bucket=bucket, Prefix="releases/1/")
    keys = {item["Key"] for item in listing["Contents"]}
    assert keys == {f"releases/1/{file['path']}" for file in manifest["files"]} | {
        "releases/1/manifest.json"
    }
    for file in manifest["files"]:
        body = client.get_object(Bucket=bucket, Key=f"releases/1/{file['path']}")["Body"].read()
        assert hashlib.sha256(body).hexdigest() == file["sha256"]
    assert {"msvd-csv/train.csv", "msvd-csv/test.csv", "README.md"} <= {
        file["path"] for file in manifest["files"]
    }
    with pytest.raises(CommandError, match="holds release 1 already"):
        release("--output", f"s3://{bucket}/releases/1/")
    client.put_object(Bucket=bucket, Key="theirs/notes.txt", Body=b"not ours")
    with pytest.raises(CommandError, match="theirs already holds files"):
        release("--output", f"s3://{bucket}/theirs")
    # A prefix that merely begins the same way is another place.
    assert "Release 2:" in release("--output", f"s3://{bucket}/releases/1-more")
