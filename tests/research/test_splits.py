"""The train/dev/test split by video, through export_corpus (split and parquet formats)."""

import json
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from collector.models import Segment
from crowd.models import Tier
from research.splits import SplitOptions, video_key
from tests.factories import make_description, make_segment

pytestmark = pytest.mark.django_db


def export(output, *args) -> str:
    out = StringIO()
    call_command(
        "export_corpus", str(output), "--format", "split", "--no-progress", *args, stdout=out
    )
    return out.getvalue()


def described_segment(youtube_id: str, start: int, *, tiers=(Tier.ONE, Tier.ONE, Tier.ONE)):
    segment = make_segment(youtube_id=youtube_id, start=start, end=start + 5)
    for n, tier in enumerate(tiers):
        make_description(segment, f"Sentence {n} of {youtube_id} at {start}.", tier=tier)
    return segment


def sides(folder) -> dict[int, str]:
    """Each exported segment's side, read back from the files."""
    found = {}
    for name in ("train", "dev"):
        path = folder / f"{name}.tsv"
        if path.exists():
            for line in path.read_text(encoding="utf-8").splitlines()[1:]:
                found[int(line.split("\t")[2])] = name
    for line in (folder / "test.jsonl").read_text(encoding="utf-8").splitlines():
        found[json.loads(line)["segment_id"]] = "test"
    return found


def test_every_segment_of_a_video_lands_on_the_same_side(tmp_path):
    videos = [f"video{n:06d}" for n in range(12)]
    segments = {v: [described_segment(v, 0), described_segment(v, 10)] for v in videos}

    export(tmp_path / "split", "--test-fraction", "0.4", "--dev-fraction", "0.3")

    found = sides(tmp_path / "split")
    for first, second in segments.values():
        assert found[first.pk] == found[second.pk]
    # Twelve videos at these fractions spread over all three sides for seed 0.
    assert set(found.values()) == {"train", "dev", "test"}


def test_a_video_keeps_its_side_when_the_corpus_grows(tmp_path):
    early = [described_segment(f"early{n:06d}", 0) for n in range(10)]
    export(tmp_path / "before", "--seed", "7", "--test-fraction", "0.5")
    before = sides(tmp_path / "before")

    later = [described_segment(f"later{n:06d}", 0) for n in range(30)]
    # A new segment of an early video joins that video's side.
    extra = described_segment(early[0].youtube_id, 20)
    export(tmp_path / "after", "--seed", "7", "--test-fraction", "0.5")
    after = sides(tmp_path / "after")

    assert {s.pk: after[s.pk] for s in early} == before
    assert after[extra.pk] == before[early[0].pk]
    assert len(after) == len(early) + len(later) + 1


def test_the_dev_fraction_never_moves_a_video_in_or_out_of_test():
    videos = [video_key("youtube", f"v{n:09d}") for n in range(500)]
    without_dev = SplitOptions(seed=3, test_fraction=0.2)
    with_dev = SplitOptions(seed=3, test_fraction=0.2, dev_fraction=0.3)
    test = {v for v in videos if without_dev.side(v) == "test"}
    assert test == {v for v in videos if with_dev.side(v) == "test"}
    assert 0 < len(test) < len(videos)


def test_the_report_gives_each_sides_videos_clusters_and_descriptions(tmp_path):
    for n in range(8):
        described_segment(f"sized{n:06d}", 0)
        described_segment(f"sized{n:06d}", 10)

    out = export(tmp_path / "split", "--test-fraction", "0.5", "--seed", "1")

    found = sides(tmp_path / "split")
    test_segments = sum(1 for side in found.values() if side == "test")
    assert 0 < test_segments < 16
    assert (
        f"test: {test_segments // 2} videos, {test_segments} clusters, "
        f"{3 * test_segments} descriptions" in out
    )
    train_segments = 16 - test_segments
    assert f"train: {train_segments // 2} videos, {train_segments} clusters" in out


def test_a_hosted_file_is_one_video_too():
    split = SplitOptions(seed=0, test_fraction=0.5)
    first = Segment(source=Segment.Source.FILE, video_file="videos/clip.mp4", start=0, end=5)
    second = Segment(source=Segment.Source.FILE, video_file="videos/clip.mp4", start=9, end=14)
    assert split.side_of_segment(first) == split.side_of_segment(second)
    assert video_key("file", first.video_label) == "file:clip.mp4"


def all_in_test(tmp_path, *args):
    """Export with every video in test (a fraction just below 1) and read the test file."""
    export(tmp_path / "split", "--test-fraction", "0.999999", *args)
    lines = (tmp_path / "split" / "test.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines]


def test_test_references_can_be_limited_to_tier_two(tmp_path):
    segment = described_segment("tiered00001", 0, tiers=(Tier.ONE, Tier.TWO, Tier.TWO))

    records = all_in_test(tmp_path, "--tier2-references")

    by_source = {record["source"]: record["references"] for record in records}
    assert by_source[f"Sentence 0 of {segment.youtube_id} at 0."] == [
        f"Sentence 1 of {segment.youtube_id} at 0.",
        f"Sentence 2 of {segment.youtube_id} at 0.",
    ]
    assert by_source[f"Sentence 1 of {segment.youtube_id} at 0."] == [
        f"Sentence 2 of {segment.youtube_id} at 0."
    ]


def test_the_source_can_be_a_reference_for_itself(tmp_path):
    described_segment("itself00001", 0)

    records = all_in_test(tmp_path, "--source-as-reference")

    assert len(records) == 3
    for record in records:
        assert record["references"][0] == record["source"]
        assert len(record["references"]) == 3


@pytest.mark.parametrize(
    "args",
    [
        ("--test-fraction", "1"),
        ("--dev-fraction", "-0.1"),
        ("--test-fraction", "0.6", "--dev-fraction", "0.4"),
    ],
)
def test_fractions_that_make_no_split_are_refused_and_nothing_is_written(tmp_path, args):
    with pytest.raises(CommandError, match="fraction"):
        export(tmp_path / "split", *args)
    assert not (tmp_path / "split").exists()
