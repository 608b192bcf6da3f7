"""import_corpus: loading MSVD-style corpora (S2VT sentence files and the original CSV)."""

import shutil
from datetime import timedelta
from decimal import Decimal
from io import StringIO
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command

from collector.corpus_formats import LONGEST_DESCRIPTION, read_corpus, youtube_span
from collector.corpus_import import corpus_import
from collector.models import Description, Segment
from crowd.models import Hit, Worker
from crowd.services import worker_create, worker_from_platform

DATA = Path(__file__).parents[1] / "data"
S2VT_FOLDER = DATA / "msvd_s2vt_tiny"
S2VT_FILE = S2VT_FOLDER / "sents_tiny_lc_nopunc.txt"
CSV_FILE = DATA / "msvd_csv_tiny.csv"

HINDI = "एक आदमी टमाटर काट रहा है।"
CHINESE = "一个男人在切西红柿。"
ARABIC = "رجل يقطع الطماطم."
QUOTED = 'A dog, a "very" good one,\njumps over a fence.'
# A decomposed accent, an emoji and trailing spaces: nothing may be normalised or trimmed.
DECOMPOSED = "Cafe\u0301 🍅 naïve — trailing spaces kept.  "

pytestmark = pytest.mark.django_db


def run(path, corpus_format, *args):
    out = StringIO()
    call_command("import_corpus", str(path), "--format", corpus_format, *args, stdout=out)
    return out.getvalue()


def load(path, corpus_format, **options):
    return corpus_import(records=read_corpus(path, corpus_format), **options)


def segment(youtube_id, start, end):
    return Segment.objects.get(youtube_id=youtube_id, start=Decimal(start), end=Decimal(end))


def test_it_splits_youtube_ids_with_underscores_and_dashes_at_the_last_two_underscores():
    assert youtube_span("Ab_cD-eF_gH_5_12") == ("Ab_cD-eF_gH", Decimal("5.00"), Decimal("12.00"))
    assert youtube_span("-_hbAbCdEfG_18_25.5") == ("-_hbAbCdEfG", Decimal(18), Decimal("25.5"))


def test_it_loads_an_s2vt_folder_as_english_accepted_descriptions_without_worker_or_tier():
    output = run(S2VT_FOLDER, "msvd-s2vt")

    assert "Segments: 3 new, 0 existing" in output
    assert "Descriptions: 4 added, 0 already present" in output
    tomato = segment("Ab_cD-eF_gH", 5, 12)
    assert tomato.source == Segment.Source.YOUTUBE
    assert sorted(tomato.descriptions.values_list("text", flat=True)) == [
        "a man slices a tomato",
        "someone is cutting a tomato",
    ]
    assert segment("-_hbAbCdEfG", 18, 25).descriptions.count() == 1
    assert segment("plainVideo1", 0, "4.5").descriptions.count() == 1
    assert set(Description.objects.values_list("language", "status", "worker", "tier")) == {
        ("en", Description.Status.ACCEPTED, None, None)
    }
    assert Description.objects.get(text="a man slices a tomato").import_key == (
        "msvd-s2vt:sents_tiny_lc_nopunc:1"
    )


def test_it_loads_one_s2vt_file_with_the_mapping_beside_it_or_named_by_mapping(tmp_path):
    run(S2VT_FILE, "msvd-s2vt")
    assert Description.objects.count() == 4

    lone = tmp_path / "sents_other_lc_nopunc.txt"
    shutil.copy(S2VT_FILE, lone)
    with pytest.raises(CommandError, match="--mapping"):
        run(lone, "msvd-s2vt")
    output = run(
        lone, "msvd-s2vt", "--mapping", str(S2VT_FOLDER / "youtube_video_to_id_mapping.txt")
    )
    assert "Segments: 0 new, 3 existing" in output
    # The same sentences under another file name: matched by content, not by name.
    assert "Descriptions: 0 added, 4 already present" in output
    assert Description.objects.count() == 4


def test_it_loads_the_msvd_csv_with_import_workers_tiers_languages_and_times():
    output = run(CSV_FILE, "msvd-csv")

    assert "Segments: 3 new, 0 existing" in output
    assert "Workers: 6 new" in output
    assert "Descriptions: 8 added, 0 already present" in output
    first = Description.objects.get(text="A man slices a tomato.")
    assert first.worker.platform == Worker.Platform.IMPORT
    assert first.worker.external_id == "101"
    assert first.worker.user.get_username() == "import:101"
    assert not first.worker.user.has_usable_password()
    assert (first.tier, first.time_spent, first.language) == (2, timedelta(seconds=17), "en")
    assert first.import_key == "msvd-csv:msvd_csv_tiny:2"
    arabic = Description.objects.get(text=ARABIC)
    assert (arabic.tier, arabic.time_spent, arabic.language) == (1, timedelta(seconds=21.5), "ar")
    assert Description.objects.get(text=CHINESE).time_spent is None
    languages = dict(Description.objects.values_list("text", "language"))
    assert languages[HINDI] == "hi"
    assert languages[CHINESE] == "zh"
    assert languages["tlhIngan Hol Dajatlh'a'"] == "Klingon"
    assert languages[DECOMPOSED] == "en"
    assert Worker.objects.get(external_id="101").descriptions.count() == 3


def test_it_keeps_hindi_chinese_arabic_and_quoted_multiline_text_exactly():
    load(CSV_FILE, "msvd-csv")

    stored = set(Description.objects.values_list("text", flat=True))
    for text in (HINDI, CHINESE, ARABIC, QUOTED, DECOMPOSED):
        assert text in stored


def test_it_skips_a_description_too_long_to_be_one_sentence(tmp_path):
    folder = tmp_path / "corpus"
    shutil.copytree(S2VT_FOLDER, folder)
    sentences = folder / "sents_tiny_lc_nopunc.txt"
    lines = sentences.read_text(encoding="utf-8").splitlines()
    longest = LONGEST_DESCRIPTION
    sentences.write_text(
        "\n".join([f"vid1\t{'a' * longest}", f"vid1\t{'b' * (longest + 1)}", *lines]) + "\n",
        encoding="utf-8",
    )

    result = load(folder, "msvd-s2vt")

    assert Description.objects.filter(text="a" * longest).exists()
    assert not Description.objects.filter(text="b" * (longest + 1)).exists()
    assert ("sents_tiny_lc_nopunc.txt", 2) in [(row.source, row.line) for row in result.refused]
    too_long = next(row for row in result.refused if row.line == 2)
    assert "5,001 characters long" in too_long.reason and "one sentence" in too_long.reason


def test_it_reuses_a_worker_the_platform_service_already_made():
    worker = worker_from_platform(platform=Worker.Platform.IMPORT, external_id="101")

    report = load(CSV_FILE, "msvd-csv")

    assert report.workers_new == 5
    assert worker.descriptions.count() == 3
    assert Worker.objects.filter(platform=Worker.Platform.IMPORT).count() == 6


def test_it_skips_rows_whose_worker_account_name_belongs_to_someone_else():
    worker_create(username="import:105", password="not-an-import-worker")

    report = load(CSV_FILE, "msvd-csv")

    assert [row.line for row in report.refused if "account name is taken" in row.reason] == [8]
    assert not Worker.objects.filter(platform=Worker.Platform.IMPORT, external_id="105").exists()
    assert report.descriptions_added == 7


@pytest.mark.parametrize(
    ("path", "corpus_format", "descriptions"),
    [(S2VT_FOLDER, "msvd-s2vt", 4), (CSV_FILE, "msvd-csv", 8)],
)
def test_it_loads_the_same_file_twice_without_doubling(path, corpus_format, descriptions):
    run(path, corpus_format)
    users = get_user_model().objects.count()

    output = run(path, corpus_format, "--open-hits")

    assert "Segments: 0 new, 3 existing" in output
    assert f"Descriptions: 0 added, {descriptions} already present" in output
    assert Segment.objects.count() == 3
    assert Description.objects.count() == descriptions
    assert get_user_model().objects.count() == users


def test_it_gives_the_same_result_whatever_the_batch_size():
    report = load(CSV_FILE, "msvd-csv", batch_size=2)

    assert (report.segments_new, report.workers_new, report.descriptions_added) == (3, 6, 8)
    assert len(report.refused) == 7
    assert Description.objects.count() == 8


def test_it_matches_segments_already_stored():
    Segment.objects.create(
        source=Segment.Source.YOUTUBE, youtube_id="Ab_cD-eF_gH", start=5, end=12, title="Tomato"
    )

    report = load(S2VT_FOLDER, "msvd-s2vt")

    assert (report.segments_new, report.segments_existing) == (2, 1)
    assert segment("Ab_cD-eF_gH", 5, 12).descriptions.count() == 2


def test_it_reports_malformed_rows_with_their_line_numbers_and_skips_them():
    s2vt = load(S2VT_FOLDER, "msvd-s2vt")
    csv = load(CSV_FILE, "msvd-csv")

    assert [(row.source, row.line) for row in s2vt.refused] == [
        ("youtube_video_to_id_mapping.txt", 4),
        ("youtube_video_to_id_mapping.txt", 5),
        ("sents_tiny_lc_nopunc.txt", 4),
        ("sents_tiny_lc_nopunc.txt", 5),
        ("sents_tiny_lc_nopunc.txt", 7),
        ("sents_tiny_lc_nopunc.txt", 8),
    ]
    assert "'vid77' is not in the clip mapping" in s2vt.refused[2].reason
    reasons = {row.line: row.reason for row in csv.refused}
    assert sorted(reasons) == [10, 11, 12, 13, 14, 15, 16]
    assert "ends" in reasons[10] and "before it starts" in reasons[10]
    assert "'sandbox'" in reasons[11]
    assert "expected 8 fields, found 7" in reasons[12]
    assert "'ten'" in reasons[13]
    assert "not a YouTube video id" in reasons[14]
    assert "empty" in reasons[15]
    assert "not valid CSV" in reasons[16]
    # The row after the broken quoting is read normally.
    assert Description.objects.filter(import_key="msvd-csv:msvd_csv_tiny:17").exists()


def test_the_command_lists_skipped_rows_with_file_and_line():
    output = run(CSV_FILE, "msvd-csv")

    assert "Rows refused: 7" in output
    assert "msvd_csv_tiny.csv:11: source 'sandbox' is neither 'clean' nor 'unverified'" in output


@pytest.mark.parametrize(
    ("path", "corpus_format"), [(S2VT_FOLDER, "msvd-s2vt"), (CSV_FILE, "msvd-csv")]
)
def test_strict_refuses_the_first_bad_row_and_changes_nothing(path, corpus_format):
    users = get_user_model().objects.count()

    # Batches of one would each be committed already if strict did not hold them all back.
    with pytest.raises(CommandError, match="--strict"):
        run(path, corpus_format, "--strict", "--batch-size", "1")

    assert Segment.objects.count() == 0
    assert Description.objects.count() == 0
    assert Worker.objects.count() == 0
    assert get_user_model().objects.count() == users


def test_open_hits_offers_every_imported_segment_in_both_tiers():
    output = run(S2VT_FOLDER, "msvd-s2vt", "--open-hits")

    assert "HITs opened: 6" in output
    assert sorted(Hit.objects.values_list("item__segment__youtube_id", "tier")) == sorted(
        (youtube_id, tier)
        for youtube_id in ("Ab_cD-eF_gH", "-_hbAbCdEfG", "plainVideo1")
        for tier in (1, 2)
    )


def test_opening_hits_again_reports_none_opened():
    run(S2VT_FOLDER, "msvd-s2vt", "--open-hits")
    output = run(S2VT_FOLDER, "msvd-s2vt", "--open-hits")

    assert "HITs opened: 0" in output
    assert Hit.objects.count() == 6


def test_it_opens_no_hits_unless_asked():
    run(S2VT_FOLDER, "msvd-s2vt")

    assert not Hit.objects.exists()


def test_the_status_option_sets_the_status_of_imported_descriptions():
    run(CSV_FILE, "msvd-csv", "--status", "pending")

    assert set(Description.objects.values_list("status", flat=True)) == {"pending"}


def test_it_refuses_a_csv_whose_header_lacks_a_column(tmp_path):
    broken = tmp_path / "broken.csv"
    broken.write_text("VideoID,Start,End,Description\nAb_cD-eF_gH,5,12,A man.\n", encoding="utf-8")

    with pytest.raises(CommandError, match="WorkerID"):
        run(broken, "msvd-csv")
    assert Description.objects.count() == 0


JSON_FILE = DATA / "msvd_json_tiny.json"


def test_it_loads_the_msvd_json_form_as_english_descriptions_and_reports_bad_entries():
    output = run(JSON_FILE, "msvd-json")

    assert "Descriptions: 6 added" in output
    segment = Segment.objects.get(youtube_id="x-y_z012345")
    assert (segment.start, segment.end) == (Decimal("0"), Decimal("5.5"))
    texts = set(Description.objects.filter(segment=segment).values_list("text", flat=True))
    assert texts == {"a dog runs on the beach", "a puppy runs along the shore"}
    assert set(Description.objects.values_list("language", flat=True)) == {"en"}
    # The bad key, the reversed span, the empty list, the empty and non-text sentences.
    assert "Rows refused: 5" in output
    assert "is not <YouTubeID>_<start>_<end>" in output or "is not a YouTube video id" in output
    assert "before it starts" in output
    assert "expected a list of sentences" in output
    assert "a sentence must be text, found 42" in output
    assert "msvd_json_tiny.json:" in output
    assert run(JSON_FILE, "msvd-json").count("6 already present") == 1


@pytest.mark.parametrize(
    "content, message", [("[1, 2]", "expected one object"), ("{oops", "not JSON text")]
)
def test_a_json_file_of_the_wrong_shape_is_refused_before_anything_is_loaded(
    tmp_path, content, message
):
    path = tmp_path / "bad.json"
    path.write_text(content)

    with pytest.raises(CommandError, match=message):
        run(path, "msvd-json")
    assert not Description.objects.exists()
