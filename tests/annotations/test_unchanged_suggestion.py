"""Suggestions are not answers: an alignment that sends back the pre-alignment it was shown
(or changes at most ``ALIGNMENT_UNCHANGED_MAX_CELLS`` cells of it) is flagged unchanged
suggestion and counts under the typing rule as a pasted text does; gold alignment items are
shown without a pre-alignment."""

import json

import pytest
from django.urls import reverse

from annotations import services, trial
from annotations.alignment_files import alignments_export, folder_files
from annotations.models import Alignment, SentencePair
from collector import services as collector_services
from collector.services.typing import TYPING_CHECK
from crowd import services as crowd
from crowd.models import AuditEntry, HitType, QualityCheck, QualityRule, Tier
from review.gold import gold_from_work
from tests.factories import make_segment, make_staff, make_worker

pytestmark = pytest.mark.django_db

PRE_ALIGNMENT = "0-0 1-1 5-3"


@pytest.fixture
def pair():
    make_segment()
    for text in ("A man is playing a guitar.", "A man plays the guitar."):
        worker = make_worker()
        assignment = crowd.assignment_claim(worker=worker, tier=Tier.ONE)
        collector_services.description_submit(
            assignment_id=assignment.pk, worker=worker, text=text, language="en"
        )
    (pair,) = services.pairs_sample(per_cluster=1, seed=0)
    SentencePair.objects.filter(pk=pair.pk).update(pre_alignment=PRE_ALIGNMENT)
    pair.refresh_from_db()
    return pair


def align(links, worker=None):
    worker = worker or make_worker()
    assignment = crowd.assignment_claim(worker=worker, tier=Tier.ONE, kind=HitType.Kind.ALIGNMENT)
    alignment, _ = services.alignment_submit(
        assignment_id=assignment.pk, worker=worker, links=links
    )
    return alignment


def typing_failures(worker):
    return QualityCheck.objects.filter(worker=worker, kind=TYPING_CHECK, passed=False)


def test_a_pre_alignment_sent_back_unchanged_is_flagged_and_counts_like_a_paste(pair):
    alignment = align(PRE_ALIGNMENT)
    assert (alignment.changed_cells, alignment.unchanged_suggestion) == (0, True)
    (check,) = typing_failures(alignment.worker)
    assert check.source == f"alignment:{alignment.pk}"
    assert check.details == {"signals": ["unchanged_suggestion"]}


def test_an_alignment_that_corrects_the_suggestion_is_not_flagged(pair):
    alignment = align("0-0 1p1 3-2")
    assert (alignment.changed_cells, alignment.unchanged_suggestion) == (3, False)
    assert not typing_failures(alignment.worker).exists()


def test_nearly_unchanged_is_flagged_up_to_the_threshold_set(pair, settings):
    settings.ALIGNMENT_UNCHANGED_MAX_CELLS = 1
    one_cell = align("0-0 1-1")  # dropped 5-3 only
    two_cells = align("0-0 1-1 2-2")  # dropped 5-3 and added 2-2
    assert (one_cell.changed_cells, one_cell.unchanged_suggestion) == (1, True)
    assert (two_cells.changed_cells, two_cells.unchanged_suggestion) == (2, False)


def test_without_a_pre_alignment_nothing_can_be_kept_unchanged(pair):
    SentencePair.objects.filter(pk=pair.pk).update(pre_alignment="")
    alignment = align("0-0 1-1")
    assert not alignment.unchanged_suggestion
    assert not typing_failures(alignment.worker).exists()


def test_an_unchanged_suggestion_warns_and_stops_a_worker_under_the_typing_rule(pair):
    QualityRule.objects.create(check_kind=TYPING_CHECK, warn_after=1, stop_after=1, window=10)
    alignment = align(PRE_ALIGNMENT)
    worker = alignment.worker
    assert AuditEntry.objects.filter(worker=worker, action=AuditEntry.Action.WARN).exists()
    worker.refresh_from_db()
    assert worker.blocked_at is not None
    assert "a suggested alignment was sent back unchanged" in crowd.quality_stop_message(worker)


def test_a_gold_alignment_item_is_shown_without_its_pre_alignment(pair, client):
    made = align("0-0 1-1 2-2 3-4")
    gold_from_work(kind=HitType.Kind.ALIGNMENT, work_id=made.pk, created_by=None)
    HitType.objects.filter(kind=HitType.Kind.ALIGNMENT).update(gold_percent=100)
    assert services.pair_suggestion(pair) == ""
    worker = make_worker()
    assignment = crowd.assignment_claim(worker=worker, tier=Tier.ONE, kind=HitType.Kind.ALIGNMENT)
    assert assignment.hit.item_id == pair.item_id
    client.force_login(worker.user)
    page = client.get(reverse("annotations:align", args=[assignment.pk])).content.decode()
    assert PRE_ALIGNMENT not in page
    task = json.loads(page.split('id="alignment-task"')[1].split(">", 1)[1].split("</script>")[0])
    assert (task["preAlignment"], task["links"]) == ("", "")
    # Its answer is judged against nothing it was shown: the pre-alignment is no suggestion.
    alignment, _ = services.alignment_submit(
        assignment_id=assignment.pk, worker=worker, links=PRE_ALIGNMENT
    )
    assert (alignment.changed_cells, alignment.unchanged_suggestion) == (3, False)


def test_the_flag_is_shown_in_review_and_on_the_worker_panel(pair, client):
    alignment = align(PRE_ALIGNMENT)
    client.force_login(make_staff())
    queue = client.get(reverse("review_pages:alignments")).content.decode()
    assert f'id="unchanged-{alignment.pk}"' in queue
    assert "Unchanged suggestion" in queue
    panel = client.get(reverse("review:worker", args=[alignment.worker_id])).content.decode()
    assert "1 of 1 alignment sent back the pre-alignment unchanged" in panel


def test_exports_say_which_alignments_kept_the_suggestion(pair, tmp_path):
    kept = align(PRE_ALIGNMENT)
    align("0-0 1p1 3-2")
    alignments_export(folder_files(tmp_path), format="pharaoh")
    lines = [(tmp_path / f"suggestions-{k}.txt").read_text() for k in (1, 2)]
    assert lines == ["unchanged\n", "\n"]
    assert Alignment.objects.get(unchanged_suggestion=True) == kept


def test_a_trial_pair_is_shown_without_its_pre_alignment(client):
    (pair,) = services.pairs_store(
        [
            SentencePair(
                origin=SentencePair.Origin.IMPORT,
                import_key="trial:1",
                tokens_a=["A", "man", "plays", "."],
                tokens_b=["A", "guy", "strums", "."],
                pre_alignment="0-0 1-1 2-2 3-3",
            )
        ],
        open_hits=False,
    )
    trial.trial_pair_mark(pair_id=pair.pk, gold_links="0-0 1-1 2-2 3-3")
    worker = make_worker()
    client.force_login(worker.user)
    page = client.get(reverse("annotations:trial")).content.decode()
    task = json.loads(page.split('id="alignment-task"')[1].split(">", 1)[1].split("</script>")[0])
    assert (task["preAlignment"], task["links"]) == ("", "")
