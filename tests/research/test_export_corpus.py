"""export_corpus: the corpus out in the formats researchers use, filtered, to a path or to S3."""

import csv
import io
import json
from datetime import UTC, datetime, timedelta
from io import StringIO
from pathlib import Path

import pyarrow.parquet as pq
import pytest
import yaml
from django.core.management import CommandError, call_command

from annotations.models import Alignment, SentencePair
from collector.models import Description, Segment
from crowd.models import AuditEntry, LedgerEntry, Tier, Worker
from paracrowd_metrics.alignment import parse_pharaoh
from research.selection import worker_label
from research.splits import SplitOptions
from scoring.services import segments_score
from tests.factories import make_description, make_segment, make_worker

pytestmark = pytest.mark.django_db


def in_test(seed: int, segment, test_fraction: float) -> bool:
    split = SplitOptions(seed=seed, test_fraction=test_fraction)
    return split.side_of_segment(segment) == "test"


DATA = Path(__file__).parents[1] / "data"
CSV_FILE = DATA / "msvd_csv_tiny.csv"
ALIGNMENT_FILES = [str(DATA / "alignments" / f"pairs_{name}.align.txt") for name in "ABC"]
TOMATO = ["A man is slicing a tomato.", "Someone cuts a tomato.", "A tomato is being sliced."]
GUITAR = ["A man plays a guitar.", "Someone strums a guitar.", "A guitarist is playing."]


def export(output, export_format, *args) -> str:
    out = StringIO()
    call_command(
        "export_corpus", str(output), "--format", export_format, "--no-progress", *args, stdout=out
    )
    return out.getvalue()


def snapshot() -> set[tuple]:
    """The corpus as a researcher sees it: segment, worker, tier, time, language, text."""
    # Collected work comes back under import workers named by the export's worker labels.
    rows = Description.objects.annotate(label=worker_label()).values_list(
        "segment__youtube_id",
        "segment__start",
        "segment__end",
        "label",
        "tier",
        "time_spent",
        "language",
        "text",
        "status",
    )
    return set(rows)


@pytest.fixture
def hugging_face_offline(tmp_path, monkeypatch):
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf"))
    import datasets

    return lambda folder: datasets.load_dataset(str(folder), cache_dir=str(tmp_path / "cache"))


@pytest.fixture
def corpus():
    """The tiny MSVD CSV (imported, accepted) plus two collected clusters in both tiers."""
    call_command("import_corpus", str(CSV_FILE), "--format", "msvd-csv", stdout=StringIO())
    tomato = make_segment(start="3.25", end=9)
    guitar = make_segment(start=0, end="4.5")
    workers = [make_worker(tier=Tier.TWO), make_worker(), make_worker()]
    for segment, texts in ((tomato, TOMATO), (guitar, GUITAR)):
        for worker, text in zip(workers, texts, strict=True):
            make_description(
                segment,
                text,
                worker=worker,
                tier=worker.current_tier,
                time_spent=timedelta(seconds=12, microseconds=345678),
            )
    return {"tomato": tomato, "guitar": guitar, "workers": workers}


def test_an_msvd_csv_export_imports_back_as_the_same_corpus(tmp_path, corpus):
    before = snapshot()
    output = export(tmp_path / "corpus.csv", "msvd-csv")
    assert "Exported 14 descriptions in 9 clusters (msvd-csv)." in output

    # Empty the corpus: audit and ledger rows protect the workers they name.
    AuditEntry.objects.all().delete()
    LedgerEntry.objects.all().delete()
    Description.objects.all().delete()
    Segment.objects.all().delete()
    Worker.objects.all().delete()
    call_command(
        "import_corpus", str(tmp_path / "corpus.csv"), "--format", "msvd-csv", stdout=StringIO()
    )

    assert snapshot() == before


def test_the_msvd_csv_has_the_corpus_columns_and_marks_tier_two_clean(tmp_path, corpus):
    export(tmp_path / "corpus.csv", "msvd-csv")

    with (tmp_path / "corpus.csv").open(newline="", encoding="utf-8") as file:
        rows = list(csv.DictReader(file))
    assert list(rows[0]) == [
        "VideoID",
        "Start",
        "End",
        "WorkerID",
        "Source",
        "AnnotationTime",
        "Language",
        "Description",
        # How each was typed, after the corpus's own columns (tests/research/test_export_typing).
        "Typing",
        "KeyPresses",
        "Pastes",
        "PastedCharacters",
        "FirstKeyMs",
        "TypingMs",
        "FocusLosses",
        "BackgroundMs",
        "InputMethodCharacters",
        "PromptCopies",
        "PastesAfterCopy",
        "InsertedWithoutKeys",
        "UntrustedEvents",
        "Webdriver",
        "LeftAfterCopy",
        "KeyIntervals",
        "KeyIntervalVariation",
    ]
    tier2, tier1 = corpus["workers"][:2]
    by_text = {row["Description"]: row for row in rows}
    assert by_text[TOMATO[0]] == {
        "VideoID": corpus["tomato"].youtube_id,
        "Start": "3.25",
        "End": "9",
        "WorkerID": f"local-{tier2.pk}",
        "Source": "clean",
        "AnnotationTime": "12.345678",
        "Language": "English",
        "Description": TOMATO[0],
        "Typing": "unknown",
        **dict.fromkeys(list(rows[0])[9:], ""),
    }
    assert by_text[TOMATO[1]]["Source"] == "unverified"
    assert by_text["A man slices a tomato."]["WorkerID"] == "101"  # an imported worker's own id
    assert by_text["一个男人在切西红柿。"]["Language"] == "Chinese"


def test_descriptions_without_a_tier_are_exported_as_unverified(tmp_path):
    make_description(make_segment(), "An old corpus line.", tier=None)

    export(tmp_path / "corpus.csv", "msvd-csv")

    assert ",unverified,,English,An old corpus line." in (tmp_path / "corpus.csv").read_text()


def test_pending_descriptions_are_left_out_by_default_and_the_report_says_so(tmp_path, corpus):
    segment = corpus["tomato"]
    make_description(segment, "Awaiting review.", status=Description.Status.PENDING)
    make_description(segment, "Refused.", status=Description.Status.REJECTED)

    output = export(tmp_path / "accepted.csv", "msvd-csv")
    assert "Awaiting review." not in (tmp_path / "accepted.csv").read_text()
    assert "Left out: 1 pending descriptions (status filter)" in output
    assert "Left out: 1 rejected descriptions (status filter)" in output

    export(tmp_path / "pending.csv", "msvd-csv", "--status", "pending")
    assert "Awaiting review." in (tmp_path / "pending.csv").read_text()
    assert "A man slices a tomato." not in (tmp_path / "pending.csv").read_text()
    export(tmp_path / "all.csv", "msvd-csv", "--status", "all")
    assert "Refused." in (tmp_path / "all.csv").read_text()


def test_hosted_file_segments_are_left_out_of_the_msvd_csv_with_a_reason(tmp_path, media_root):
    from django.core.files.base import ContentFile

    hosted = Segment(source=Segment.Source.FILE, start=0, end=3)
    hosted.video_file.save("clip.webm", ContentFile(b"video"), save=True)
    make_description(hosted, "A hosted clip.")

    output = export(tmp_path / "corpus.csv", "msvd-csv")

    assert "A hosted clip." not in (tmp_path / "corpus.csv").read_text()
    assert "Left out: 1 descriptions of hosted-file segments" in output
    export(tmp_path / "corpus.jsonl", "jsonl")
    assert "A hosted clip." in (tmp_path / "corpus.jsonl").read_text()


def test_filters_select_by_language_tier_date_and_cluster_size(tmp_path, corpus):
    old = make_description(corpus["guitar"], "An old description.")
    Description.objects.filter(pk=old.pk).update(created_at=datetime(2020, 5, 1, tzinfo=UTC))

    def texts(*args):
        export(tmp_path / "out.csv", "msvd-csv", *args)
        with (tmp_path / "out.csv").open(newline="", encoding="utf-8") as file:
            return {row["Description"] for row in csv.DictReader(file)}

    assert texts("--language", "zh") == {"一个男人在切西红柿。"}
    assert texts("--tier", "2", "--language", "en") == {
        TOMATO[0],
        GUITAR[0],
        "A man slices a tomato.",
        'A dog, a "very" good one,\njumps over a fence.',
        "The last good row.",
    }
    assert texts("--until", "2020-05-01") == {"An old description."}
    assert "An old description." not in texts("--since", "2020-05-02")
    # Clusters of at least 3 in the selection: the two collected English ones, plus the old line.
    assert texts("--min-cluster-size", "3") == set(TOMATO) | set(GUITAR) | {"An old description."}
    assert texts("--min-cluster-size", "3", "--since", "2020-05-02") == set(TOMATO) | set(GUITAR)


def test_a_bad_filter_stops_the_command_with_a_message_naming_it(tmp_path):
    with pytest.raises(CommandError, match="since: 'yesterday' is not a date"):
        export(tmp_path / "out.csv", "msvd-csv", "--since", "yesterday")
    with pytest.raises(CommandError, match="min_cluster_size"):
        export(tmp_path / "out.csv", "msvd-csv", "--min-cluster-size", "0")


def test_jsonl_writes_one_cluster_per_line_with_segment_and_scores(tmp_path, corpus):
    segments_score(segment_ids=[corpus["tomato"].pk, corpus["guitar"].pk])

    export(tmp_path / "clusters.jsonl", "jsonl", "--language", "en")

    clusters = [json.loads(line) for line in (tmp_path / "clusters.jsonl").open(encoding="utf-8")]
    tomato = next(c for c in clusters if c["segment"]["id"] == corpus["tomato"].pk)
    assert tomato["segment"] == {
        "id": corpus["tomato"].pk,
        "video": corpus["tomato"].youtube_id,
        "source": "youtube",
        "start": 3.25,
        "end": 9.0,
        "title": "",
    }
    assert (tomato["language"], tomato["size"]) == ("en", 3)
    assert tomato["scores"]["size"] == 3 and tomato["scores"]["bleu_signature"].startswith(
        "nrefs:2"
    )
    assert [d["text"] for d in tomato["descriptions"]] == TOMATO
    first = tomato["descriptions"][0]
    assert (first["tier"], first["status"], first["time_spent"]) == (2, "accepted", 12.345678)
    assert first["scores"]["references"] == 2 and first["scores"]["bleu"] is not None
    unscored = next(
        c for c in clusters if c["segment"]["id"] != corpus["tomato"].pk and c["size"] == 2
    )
    assert unscored["scores"] is None


def test_pairs_pair_each_sentence_with_n_or_all_others_of_its_cluster_seeded(tmp_path, corpus):
    def pairs(*args):
        export(tmp_path / "pairs.tsv", "pairs", "--language", "en", *args)
        lines = (tmp_path / "pairs.tsv").read_text(encoding="utf-8").splitlines()
        assert lines[0] == "source\tparaphrase\tsegment_id\tlanguage"
        return [tuple(line.split("\t")) for line in lines[1:]]

    everything = pairs("--pairs-per-sentence", "all")
    # English clusters in the selection: sizes 3, 3 (collected), 2 and 1 (imported).
    assert len(everything) == 3 * 2 + 3 * 2 + 2 * 1
    assert all(source != paraphrase for source, paraphrase, *_ in everything)
    one = pairs("--pairs-per-sentence", "1", "--seed", "7")
    assert len(one) == 3 + 3 + 2
    assert set(one) <= set(everything)
    assert {source for source, *_ in one} == {source for source, *_ in everything}
    assert pairs("--pairs-per-sentence", "1", "--seed", "7") == one
    assert "Left out: 2 descriptions alone in their cluster" in export(
        tmp_path / "p.tsv", "pairs", "--language", "en"
    )


def test_tabs_and_line_breaks_become_spaces_in_tsv_pairs(tmp_path):
    segment = make_segment()
    make_description(segment, "A dog,\tthe\r\nbest one,\njumps.")
    make_description(segment, "A dog jumps.")

    export(tmp_path / "pairs.tsv", "pairs")

    lines = (tmp_path / "pairs.tsv").read_text(encoding="utf-8").splitlines()
    assert lines[1:] == [
        f"A dog, the best one, jumps.\tA dog jumps.\t{segment.pk}\ten",
        f"A dog jumps.\tA dog, the best one, jumps.\t{segment.pk}\ten",
    ]


def test_the_split_keeps_each_cluster_on_one_side_and_lists_test_references(tmp_path):
    # Ids, and so the split, differ from run to run: add segments until both sides have some.
    segments = []
    while len({in_test(3, s, 0.1) for s in segments}) < 2 or len(segments) < 20:
        segment = make_segment()
        for n in range(3):
            make_description(segment, f"Sentence {n} of segment {segment.pk}.")
        segments.append(segment)

    export(tmp_path / "split", "split", "--seed", "3", "--pairs-per-sentence", "1")

    train = (tmp_path / "split" / "train.tsv").read_text(encoding="utf-8").splitlines()[1:]
    tests = [json.loads(line) for line in (tmp_path / "split" / "test.jsonl").open()]
    train_segments = {int(line.split("\t")[2]) for line in train}
    test_segments = {record["segment_id"] for record in tests}
    assert train_segments.isdisjoint(test_segments)
    assert train_segments | test_segments == {segment.pk for segment in segments}
    assert test_segments == {s.pk for s in segments if in_test(3, s, 0.1)}
    assert len(train) == 3 * len(train_segments)
    record = tests[0]
    assert len(record["references"]) == 2 and record["source"] not in record["references"]
    assert {record["source"], *record["references"]} == {
        f"Sentence {n} of segment {record['segment_id']}." for n in range(3)
    }


def test_parquet_loads_with_the_datasets_library_from_its_dataset_card(
    tmp_path, corpus, hugging_face_offline
):
    # A seed that puts segments on both sides (ids, and so the split, vary from run to run).
    segments = list(Segment.objects.all())
    seed = next(
        s for s in range(1000) if len({in_test(s, segment, 0.5) for segment in segments}) > 1
    )

    export(tmp_path / "parquet", "parquet", "--test-fraction", "0.5", "--seed", str(seed))

    card = (tmp_path / "parquet" / "README.md").read_text(encoding="utf-8")
    assert card.startswith("---\n") and "configs:" in card and "# ParaCrowd" in card
    loaded = hugging_face_offline(tmp_path / "parquet")
    assert set(loaded) == {"train", "test"}
    assert loaded["train"].num_rows + loaded["test"].num_rows == 14
    rows = [*loaded["train"], *loaded["test"]]
    assert {row["text"] for row in rows} == set(Description.objects.values_list("text", flat=True))
    tomato = next(row for row in rows if row["text"] == TOMATO[0])
    assert (tomato["tier"], tomato["language"], tomato["cluster_size"]) == (2, "en", 3)
    assert tomato["time_spent"] == pytest.approx(12.345678)
    train_segments = {row["segment_id"] for row in loaded["train"]}
    assert train_segments.isdisjoint(row["segment_id"] for row in loaded["test"])


def test_the_dataset_card_gives_each_split_files_size_in_bytes(tmp_path, corpus):
    # num_bytes missing from a split makes the datasets library warn on every load.
    segments = list(Segment.objects.all())
    seed = next(
        s for s in range(1000) if len({in_test(s, segment, 0.5) for segment in segments}) > 1
    )

    export(tmp_path / "parquet", "parquet", "--test-fraction", "0.5", "--seed", str(seed))

    card = (tmp_path / "parquet" / "README.md").read_text(encoding="utf-8")
    splits = yaml.safe_load(card.split("---\n")[1])["dataset_info"]["splits"]
    assert {split["name"]: split["num_bytes"] for split in splits} == {
        side: (tmp_path / "parquet" / "data" / f"{side}-00000.parquet").stat().st_size
        for side in ("train", "test")
    }


def test_a_parquet_export_without_test_segments_loads_as_a_train_split(
    tmp_path, corpus, hugging_face_offline
):
    export(tmp_path / "parquet", "parquet", "--test-fraction", "0")

    loaded = hugging_face_offline(tmp_path / "parquet")
    assert set(loaded) == {"train"} and loaded["train"].num_rows == 14
    assert not (tmp_path / "parquet" / "data" / "test-00000.parquet").exists()


def test_exports_stream_to_s3_through_a_real_http_endpoint(tmp_path, corpus, s3_server, settings):
    endpoint, client, bucket = s3_server
    settings.EXPORT_S3_ENDPOINT_URL = endpoint

    output = export(f"s3://{bucket}/exports/corpus.csv", "msvd-csv")
    export(f"s3://{bucket}/exports/parquet", "parquet")
    export(tmp_path / "corpus.csv", "msvd-csv")

    assert f"s3://{bucket}/exports/corpus.csv: 14 rows" in output
    body = client.get_object(Bucket=bucket, Key="exports/corpus.csv")["Body"].read()
    assert body == (tmp_path / "corpus.csv").read_bytes()
    keys = {item["Key"] for item in client.list_objects_v2(Bucket=bucket)["Contents"]}
    assert "exports/parquet/README.md" in keys
    rows = 0
    for key in keys:
        if key.endswith(".parquet"):
            body = client.get_object(Bucket=bucket, Key=key)["Body"].read()
            rows += pq.read_table(io.BytesIO(body)).num_rows
    assert rows == 14


def test_a_missing_bucket_stops_the_command_with_a_message(corpus, s3_server, settings):
    settings.EXPORT_S3_ENDPOINT_URL = s3_server[0]

    with pytest.raises(CommandError, match="Could not write s3://no-such-bucket/corpus.csv"):
        export("s3://no-such-bucket/corpus.csv", "msvd-csv")


def links_by_pair() -> set[tuple]:
    return {
        (
            tuple(pair.tokens_a),
            tuple(pair.tokens_b),
            frozenset(parse_pharaoh(alignment.links).sure),
            frozenset(parse_pharaoh(alignment.links).possible),
        )
        for pair in SentencePair.objects.all()
        for alignment in pair.alignments.all()
        if alignment.links
    }


@pytest.mark.parametrize("alignment_format", ["pharaoh", "naacl"])
def test_exported_alignments_import_back_with_the_same_links(tmp_path, alignment_format):
    call_command("import_alignments", *ALIGNMENT_FILES, stdout=StringIO())
    before = links_by_pair()

    output = export(tmp_path / "alignments", alignment_format)
    Alignment.objects.all().delete()
    SentencePair.objects.all().delete()
    files = sorted(str(path) for path in (tmp_path / "alignments").glob("alignment-*"))
    call_command(
        "import_alignments",
        *files,
        "--format",
        alignment_format,
        "--source",
        str(tmp_path / "alignments" / "source.txt"),
        "--target",
        str(tmp_path / "alignments" / "target.txt"),
        "--corpus",
        "round-trip",
        stdout=StringIO(),
    )

    assert "Exported 2 aligned sentence pairs" in output
    assert links_by_pair() == before
    assert set(Alignment.objects.values_list("annotator", flat=True)) == {"A", "B", "C"}


def test_alignment_exports_take_the_tier_and_date_filters(tmp_path):
    call_command("import_alignments", *ALIGNMENT_FILES, stdout=StringIO())

    assert "Exported 0 aligned sentence pairs" in export(tmp_path / "a", "pharaoh", "--tier", "2")
    assert "Exported 2 aligned" in export(tmp_path / "b", "pharaoh", "--tier", "unrecorded")
    assert (tmp_path / "b" / "alignment-3.pharaoh").exists()


def test_an_msvd_json_export_imports_back_as_the_same_sentences(tmp_path):
    source = DATA / "msvd_json_tiny.json"
    call_command("import_corpus", str(source), "--format", "msvd-json", stdout=StringIO())
    before = set(
        Description.objects.values_list(
            "segment__youtube_id", "segment__start", "segment__end", "text"
        )
    )

    output = export(tmp_path / "corpus.json", "msvd-json")
    assert "Exported 6 descriptions" in output
    exported = json.loads((tmp_path / "corpus.json").read_text(encoding="utf-8"))
    assert exported["x-y_z012345_0_5.5"] == [
        "a dog runs on the beach",
        "a puppy runs along the shore",
    ]
    Description.objects.all().delete()
    Segment.objects.all().delete()
    call_command(
        "import_corpus", str(tmp_path / "corpus.json"), "--format", "msvd-json", stdout=StringIO()
    )

    after = set(
        Description.objects.values_list(
            "segment__youtube_id", "segment__start", "segment__end", "text"
        )
    )
    assert after == before
