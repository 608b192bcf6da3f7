"""The demo ``make run`` loads: every feature has something real behind it, seen by the role
that uses it, and loading twice adds nothing."""

import html
import re

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.urls import resolve, reverse

from annotations import prealigner
from annotations.models import (
    AgreementReport,
    AlignerModel,
    Alignment,
    PairAgreement,
    SentencePair,
)
from collector import services as collector
from collector.models import Description, Paraphrase, ParaphraseSource, Segment
from crowd.models import Assignment, Campaign, GoldItem, Hit, HitType, Tier, Worker
from demo.loaders.accounts import LOGINS, WRITER_PREFIX
from demo.loaders.segments import CLIP_TITLE, YOUTUBE_SEGMENTS
from paracrowd_metrics.alignment import parse_pharaoh
from research.models import CorrelationReport, ExportJob, Rating, RatingBatch, RatingItem
from review.models import WorkerSignals
from scoring.models import ParaphraseComparisonReport, ReferenceCurveReport
from tests.pages import task_shown

pytestmark = pytest.mark.django_db

DEMO_MODELS = (
    get_user_model(),
    Worker,
    Segment,
    Hit,
    Assignment,
    Description,
    SentencePair,
    Alignment,
    AlignerModel,
    RatingBatch,
    RatingItem,
    ParaphraseSource,
    Campaign,
    ExportJob,
    CorrelationReport,
    AgreementReport,
    PairAgreement,
    ReferenceCurveReport,
    Paraphrase,
    Rating,
    GoldItem,
    ParaphraseComparisonReport,
)


# Suggestions the demo's pre-aligner made when a model judged on four pairs took over.
NONSENSE = {("on", "and"), ("and", "on"), ("some", "chews"), ("food", "quickly")}


@pytest.fixture
def demo(media_root):
    call_command("load_demo", verbosity=0)


def login(client, username):
    client.force_login(get_user_model().objects.get(username=username))


def next_task(client, kind, tier=Tier.ONE):
    """The page the dashboard's button for ``kind`` leads to."""
    return client.post(reverse("crowd:task_next"), {"kind": kind, "tier": tier})


def test_the_demo_prints_its_logins(media_root, capsys):
    call_command("load_demo")

    printed = capsys.readouterr().out
    assert "Demo loaded. Logins:" in printed
    for username, password, role in LOGINS:
        assert f"  {role:<14} {username} / {password}" in printed


def test_loading_the_demo_twice_adds_nothing(demo):
    before = {model.__name__: model.objects.count() for model in DEMO_MODELS}

    call_command("load_demo", verbosity=0)

    assert {model.__name__: model.objects.count() for model in DEMO_MODELS} == before
    assert Segment.objects.count() == 1 + len(YOUTUBE_SEGMENTS)
    assert Worker.objects.get(user__username="tier2").current_tier == Tier.TWO
    assert Worker.objects.get(user__username="tier1").current_tier == Tier.ONE
    clip = Segment.objects.get(source=Segment.Source.FILE).video_file
    assert clip.storage.exists(clip.name)


@pytest.mark.parametrize("username, tier", [("tier1", Tier.ONE), ("tier2", Tier.TWO)])
def test_a_demo_workers_first_description_task_is_the_clip_that_plays_offline(
    client, demo, username, tier
):
    login(client, username)

    page = next_task(client, HitType.Kind.DESCRIPTION, tier)

    clip = Segment.objects.get(title=CLIP_TITLE)
    assert page.status_code == 200
    assert resolve(task_shown(page)).view_name == "collector:describe"
    assert f'src="{clip.video_file.url}"' in page.content.decode()
    assert client.get(clip.video_file.url).status_code == 200


def test_the_clip_comes_first_over_a_demo_loaded_before_it_was_made_first(client, media_root):
    # Demos loaded before made the YouTube segments first, so their HITs are the oldest.
    for youtube_id, start, end, title in YOUTUBE_SEGMENTS:
        collector.segment_create(
            source=Segment.Source.YOUTUBE, youtube_id=youtube_id, start=start, end=end, title=title
        )
    call_command("load_demo", verbosity=0)
    login(client, "tier1")

    page = next_task(client, HitType.Kind.DESCRIPTION)

    assert page.context["segment"].title == CLIP_TITLE
    assert Segment.objects.count() == 1 + len(YOUTUBE_SEGMENTS)


def test_the_demo_corpus_is_described_accepted_and_scored(client, demo):
    descriptions = Description.objects.all()

    assert descriptions.count() == 4 * len(YOUTUBE_SEGMENTS)
    assert set(descriptions.values_list("status", flat=True)) == {Description.Status.ACCEPTED}
    assert not descriptions.filter(segment__title=CLIP_TITLE).exists()
    assert not descriptions.filter(score__isnull=True).exists()
    writers = {description.worker.user for description in descriptions}
    assert len(writers) == 4
    assert not any(writer.has_usable_password() for writer in writers)  # nobody logs in as them
    assert WorkerSignals.objects.filter(worker__user__in=writers).count() == 4
    login(client, "researcher")
    segment = descriptions.first().segment
    page = client.get(reverse("scoring:cluster", args=[segment.pk])).content.decode()
    for text in segment.descriptions.values_list("text", flat=True):
        assert text in page
    assert "Not scored yet" not in page


def test_the_demo_writers_took_long_enough_to_watch_their_segments(client, demo):
    signals = WorkerSignals.objects.filter(worker__user__username__startswith=WRITER_PREFIX)
    assert signals.count() == 4
    for row in signals:
        assert "speed" not in row.flags and row.median_time_ratio > 1
    login(client, "admin")
    page = client.get(reverse("review:queue")).content.decode()
    assert "0.0×" not in page


def test_the_demos_supervised_aligner_does_not_take_over_on_its_few_held_out_pairs(demo):
    supervised = AlignerModel.objects.get(kind=AlignerModel.Kind.SUPERVISED)
    judged = supervised.judgement

    assert not supervised.took_over
    assert judged["held_out_pairs"] < judged["held_out_minimum"] == 50
    assert "fewer than PREALIGNER_HELD_OUT_MINIMUM (50)" in judged["reason"]
    assert prealigner.aligner_usable() != supervised


def test_the_demo_pre_aligns_with_what_its_held_out_pairs_favour_and_links_sensibly(demo):
    in_use = prealigner.aligner_usable()
    judged = in_use.judgement
    better = max(judged["identical_words_f1"], judged["unsupervised_f1"])
    assert in_use.held_out_f1 == better and judged["took_over"]
    assert in_use.kind in {AlignerModel.Kind.IDENTICAL, AlignerModel.Kind.UNSUPERVISED}
    to_align = SentencePair.objects.filter(origin=SentencePair.Origin.CLUSTER)
    assert to_align.count() >= 3
    assert set(to_align.values_list("aligner", flat=True)) == {in_use.pk}
    for pair in to_align:
        links = parse_pharaoh(pair.pre_alignment).possible
        assert links  # every demo pair shares a word or more
        linked = {(pair.tokens_a[i].lower(), pair.tokens_b[j].lower()) for i, j in links}
        assert not linked & NONSENSE


def test_a_demo_alignment_task_opens_pre_aligned(client, demo):
    login(client, "tier1")

    page = next_task(client, HitType.Kind.ALIGNMENT)

    assert resolve(task_shown(page)).view_name == "annotations:align"
    pair = page.context["pair"]
    assert pair.origin == SentencePair.Origin.CLUSTER
    assert f'value="{pair.pre_alignment}"' in page.content.decode()


def test_a_demo_worker_has_a_rating_and_a_sentence_to_paraphrase(client, demo):
    batch = RatingBatch.objects.get()
    assert batch.items.count() >= 3
    login(client, "tier1")

    rating = next_task(client, HitType.Kind.RATING)
    paraphrase = next_task(client, HitType.Kind.PARAPHRASE)

    assert resolve(task_shown(rating)).view_name == "research:rate"
    assert rating.context["item"].batch == batch
    assert resolve(task_shown(paraphrase)).view_name == "collector:paraphrase"
    source = ParaphraseSource.objects.get(text=paraphrase.context["source"].text)
    assert source.text in paraphrase.content.decode()


def test_the_demo_researcher_sees_a_finished_export_to_download(client, demo):
    job = ExportJob.objects.get()
    assert job.state == ExportJob.State.DONE
    login(client, "researcher")

    page = client.get(reverse("research:home")).content.decode()
    (name,) = job.files
    download = client.get(reverse("research-api:export-file", args=[job.pk, name]))

    assert reverse("research-api:export-file", args=[job.pk, name]) in page
    assert download.status_code == 200
    exported = b"".join(download.streaming_content).decode()
    assert "A squirrel is eating a nut." in exported


def test_the_demo_researcher_sees_a_finished_ratings_analysis(client, demo):
    report = CorrelationReport.objects.get()
    assert report.state == CorrelationReport.State.DONE
    login(client, "researcher")

    listed = client.get(reverse("research:correlations")).content.decode()
    page = client.get(reverse("research:correlation", args=[report.pk]))

    assert reverse("research:correlation", args=[report.pk]) in listed
    assert page.context["rows"]
    assert set(page.context["dimensions"]) == {"semantic", "dissimilarity", "overall"}


def test_the_demo_researcher_sees_the_rating_batch_waiting_for_judges(client, demo):
    batch = RatingBatch.objects.get()
    login(client, "researcher")

    page = client.get(reverse("research:rating_batch", args=[batch.pk]))

    assert page.status_code == 200
    assert batch.name in page.content.decode()


def test_the_demo_admin_sees_a_draft_campaign(client, demo):
    campaign = Campaign.objects.get()
    assert campaign.state == Campaign.State.DRAFT
    assert campaign.postings.count() == 3
    # The demo's gold item is not work the campaign wants: its places are a few sessions.
    assert not campaign.postings.filter(hit__item__gold__isnull=False).exists()
    assert campaign.tasks_wanted < 100 and campaign.places == -(-campaign.tasks_wanted // 3)
    login(client, "admin")

    page = client.get(reverse("admin:crowd_campaign_changelist"))

    assert campaign.name in page.content.decode()


def test_the_demo_agreement_page_compares_three_writers_alignments(client, demo):
    aligned = Alignment.objects.filter(pair__origin=SentencePair.Origin.CLUSTER)
    assert aligned.count() == 9
    assert {alignment.worker.user.username for alignment in aligned} == {
        f"{WRITER_PREFIX}{name}" for name in ("ana", "ben", "dee")
    }
    assert PairAgreement.objects.count() == 3
    # Their work went through the task: the tasks are submitted, and waiting for review.
    assert {alignment.assignment.status for alignment in aligned} == {Assignment.Status.SUBMITTED}
    login(client, "researcher")

    page = client.get(reverse("annotations:agreement"))

    table = page.context["table"]
    assert table["brockett"]["sentence_pairs"] == 3  # aligned by all three
    # Named as the exports name them, never by username.
    labels = sorted({alignment.worker.label for alignment in aligned})
    assert [row["label"] for row in table["per_annotator"]] == labels
    assert table["corpus"]["observed"] > 0 and table["link_fleiss_kappa"] is not None
    assert page.context["chart"] is not None
    content = page.content.decode()
    assert "No sentence pair has two annotations yet" not in content
    assert f"{labels[0]} – {labels[1]}" in content and WRITER_PREFIX not in content


def test_demo_workers_still_have_pairs_to_align_after_the_writers(client, demo):
    aligned_by_writers = set(
        Alignment.objects.filter(worker__isnull=False).values_list("pair_id", flat=True)
    )
    login(client, "tier2")

    page = next_task(client, HitType.Kind.ALIGNMENT, Tier.TWO)

    assert resolve(task_shown(page)).view_name == "annotations:align"
    assert page.context["pair"].pk not in aligned_by_writers


def test_the_demo_admin_finds_the_writers_alignments_to_review(client, demo):
    login(client, "admin")

    page = client.get(reverse("review_pages:alignments")).content.decode()

    alignment = Alignment.objects.filter(worker__isnull=False).first()
    # Named as in the agreement tables; who the worker is, is on their page.
    assert f"Alignment {alignment.pk} by {alignment.worker.label}" in page
    assert reverse("review:worker", args=[alignment.worker_id]) in page


def test_the_demo_corpus_page_shows_the_reference_curve(client, demo):
    report = ReferenceCurveReport.objects.get()
    assert report.state == ReferenceCurveReport.State.DONE
    login(client, "researcher")

    page = client.get(reverse("scoring:corpus"))

    assert page.context["report"] == report
    assert page.context["curve_chart"] is not None
    by_references = {point["references"]: point for point in page.context["curve"]}
    # Four descriptions a cluster: one, two or all three others as references.
    assert by_references["1"]["sentences"] == by_references["all"]["sentences"] == 12
    assert by_references["all"]["mean_bleu"] > 0
    assert 'id="curve-computed"' in page.content.decode()
    assert 'id="curve-none"' not in page.content.decode()


def test_the_demo_writers_paraphrases_are_scored_and_some_wait_for_review(client, demo):
    paraphrases = Paraphrase.objects.all()
    assert paraphrases.count() == 6
    assert not paraphrases.filter(pinc__isnull=True).exists()
    waiting = paraphrases.pending()
    assert waiting.count() == 3
    login(client, "admin")

    page = client.get(reverse("review_pages:paraphrases")).content.decode()

    for paraphrase in waiting:
        assert f"Paraphrase {paraphrase.pk} by {paraphrase.worker}" in page
    assert "No paraphrase is waiting for review" not in page


def test_the_demo_corpus_page_compares_direct_paraphrases_with_descriptions(client, demo):
    report = ParaphraseComparisonReport.objects.get()
    assert report.state == ParaphraseComparisonReport.State.DONE
    login(client, "researcher")

    page = client.get(reverse("scoring:corpus")).content.decode()

    assert report.result["sentences"] == 3 and report.result["paraphrases"] == 6
    assert 'id="paraphrase-comparison"' in page
    assert 'id="comparison-none"' not in page


def test_the_demo_rating_batch_has_ratings_to_see_and_review(client, demo):
    batch = RatingBatch.objects.get()
    ratings = Rating.objects.filter(item__batch=batch)
    assert ratings.count() == 10
    login(client, "admin")

    page = client.get(reverse("research:rating_batch", args=[batch.pk]))

    assert page.context["summary"].rated and page.context["chart"] is not None
    assert set(page.context["waiting"]) == set(ratings)
    assert "No rating yet" not in page.content.decode()


def test_a_demo_worker_is_offered_a_pair_no_writer_rated(client, demo):
    rated = set(Rating.objects.values_list("item_id", flat=True))
    login(client, "tier1")

    page = next_task(client, HitType.Kind.RATING)

    assert page.context["item"].pk not in rated


def test_a_demo_worker_meets_every_segment_the_gold_one_last(demo):
    from crowd import services as crowd

    worker = Worker.objects.get(user__username="tier1")
    given = []
    while assignment := crowd.assignment_claim(worker=worker, tier=Tier.ONE):
        given.append(assignment.hit.item_id)
        crowd.assignment_return(assignment_id=assignment.pk, worker=worker)
    assert sorted(given) == sorted(Segment.objects.values_list("item_id", flat=True))
    assert given[-1] == GoldItem.objects.get().item_id


def test_the_demo_admin_finds_a_gold_item(client, demo):
    gold = GoldItem.objects.get()
    assert gold.kind == HitType.Kind.DESCRIPTION and gold.retired_at is None
    assert Segment.objects.get(item_id=gold.item_id).descriptions.count() == 4
    login(client, "admin")

    page = client.get(reverse("review:gold")).content.decode()

    assert 'id="gold-items"' in page
    assert f"<td>{gold.source_label}</td>" in page


# What a page says when it has nothing to show, for what the demo fills. Left empty on purpose
# (docs/operators/installation.md): system comparisons, releases, uploaded videos, proposed
# segments and the demo workers' own history.
EMPTY_STATES = (
    "None yet.",
    "No sentence pair has two annotations yet",
    "No curve computed yet",
    "No comparison computed yet",
    "No paraphrase is waiting for review",
    "No alignment is waiting for review",
    "No gold item yet",
    "No batches yet",
    "No ratings yet",
    "No rating yet",
    "Nothing is waiting",
    "No exports yet",
    "No analyses yet",
    "Not scored yet",
    "Nothing to draw yet",
)
NOT_FOLLOWED = ("/admin/", "/api/", "/media/", "/static/", "/accounts/", ".csv", "/files/")


def pages_reached(client, start: str, depth: int = 2) -> dict[str, object]:
    """Every page of the site linked from ``start`` (the home page) and its header, ``depth``
    links deep, by address."""
    reached, frontier = {}, [start]
    for _ in range(depth + 1):
        following = []
        for address in frontier:
            if address in reached:
                continue
            reached[address] = page = client.get(address, follow=True)
            if page.streaming or "text/html" not in page["Content-Type"]:
                continue
            for link in re.findall(r'href="(/[^"#]*)"', page.content.decode()):
                link = html.unescape(link)
                if not any(part in link for part in NOT_FOLLOWED):
                    following.append(link)
        frontier = following
    return reached


SHOWN_TO = {
    "admin": (
        "annotations:agreement",
        "scoring:corpus",
        "review_pages:alignments",
        "review_pages:paraphrases",
        "review:gold",
        "research:rating_batches",
    ),
    "tier1": ("collector:dashboard",),
    "tier2": ("collector:dashboard",),
    "researcher": ("annotations:agreement", "scoring:corpus", "research:rating_batches"),
}


@pytest.mark.parametrize("username", [username for username, _, _ in LOGINS])
def test_every_page_a_demo_user_reaches_has_something_to_show(client, demo, username):
    login(client, username)

    reached = pages_reached(client, reverse("home"))

    assert {reverse(name) for name in SHOWN_TO[username]} <= set(reached)
    for address, page in reached.items():
        assert page.status_code == 200, f"{username} is shown a link to {address}"
        if page.streaming:
            continue
        content = page.content.decode()
        shown = [empty for empty in EMPTY_STATES if empty in content]
        assert not shown, f"{address} shows {shown} to {username}"
