"""The alignment trial set: gold pairs, unpaid trial answers, the qualification they earn."""

import pytest
from django.core.management import call_command
from django.urls import reverse

from annotations import services, trial
from annotations.models import SentencePair, TrialAnswer
from crowd import services as crowd
from crowd.models import AuditEntry, Hit, HitType, LedgerEntry, Qualification, Tier
from crowd.services import WorkRefused
from tests.factories import make_staff, make_worker

pytestmark = pytest.mark.django_db

TOKENS_A = ["A", "man", "plays", "a", "guitar", "."]
TOKENS_B = ["A", "guy", "strums", "a", "guitar", "."]
# Identical words (A, a, guitar, .) are left out of the score, so "man-guy" and
# "plays-strums" are what the trial really tests.
GOLD = "0-0 1-1 2-2 3-3 4-4 5-5"
GOOD = "1-1 2-2"
BAD = "1-2 2-1"


def store_pair(key: str, *, open_hits: bool = True) -> SentencePair:
    (pair,) = services.pairs_store(
        [
            SentencePair(
                origin=SentencePair.Origin.IMPORT,
                import_key=key,
                tokens_a=TOKENS_A,
                tokens_b=TOKENS_B,
            )
        ],
        open_hits=open_hits,
    )
    return pair


def claim(worker):
    return crowd.assignment_claim(worker=worker, tier=Tier.ONE, kind=HitType.Kind.ALIGNMENT)


@pytest.fixture
def task():
    return store_pair("task:1")


@pytest.fixture
def trial_pair(task):
    pair = store_pair("trial:1", open_hits=False)
    return trial.trial_pair_mark(pair_id=pair.pk, gold_links=GOLD)


def test_with_no_trial_pair_alignment_tasks_stay_open_to_every_worker(task, client):
    worker = make_worker()

    assert claim(worker) is not None
    client.force_login(worker.user)
    page = client.get(reverse("collector:dashboard")).content.decode()
    assert "Align two sentences" in page and "alignment trial" not in page


def test_with_a_trial_set_an_unqualified_worker_is_refused_and_sent_to_the_trial(
    trial_pair, client
):
    worker = make_worker()

    with pytest.raises(WorkRefused, match="Take the short trial from your dashboard"):
        claim(worker)
    client.force_login(worker.user)
    page = client.get(reverse("collector:dashboard")).content.decode()
    assert "Take the alignment trial" in page and "Align two sentences" not in page
    response = client.post(reverse("crowd:task_next"), {"kind": "alignment", "tier": "1"})
    assert response.status_code == 302


def test_passing_the_trial_grants_the_qualification_by_the_automatic_rule(trial_pair, client):
    worker = make_worker()
    client.force_login(worker.user)
    page = client.get(reverse("annotations:trial"))
    assert page.status_code == 200 and "Trial pair 1 of 1" in page.content.decode()

    response = client.post(reverse("annotations:trial"), {"pair": trial_pair.pk, "links": GOOD})

    assert response.status_code == 302
    grant = Qualification.objects.active().get(worker=worker)
    assert grant.kind == Qualification.Kind.ALIGNMENT and grant.tier is None
    assert grant.granted_by is None
    entry = AuditEntry.objects.get(worker=worker)
    assert entry.actor is None and entry.action == AuditEntry.Action.PROMOTE
    assert entry.reason.startswith("Automatic rule: alignment trial F1 1.00 ≥ 0.60")
    # The trial is unpaid, and the worker's tier is unchanged.
    assert not LedgerEntry.objects.exists() and worker.current_tier == Tier.ONE
    assert claim(worker) is not None


def test_failing_the_trial_keeps_alignment_closed_and_a_second_answer_changes_nothing(
    trial_pair,
):
    worker = make_worker()

    status = trial.trial_answer_submit(worker=worker, pair_id=trial_pair.pk, links=BAD)
    again = trial.trial_answer_submit(worker=worker, pair_id=trial_pair.pk, links=GOOD)

    assert status.finished and not status.passed and status.f1 == 0.0
    assert again.f1 == 0.0 and not again.qualified
    assert TrialAnswer.objects.get(worker=worker).links == BAD
    assert not Qualification.objects.filter(worker=worker).exists()
    with pytest.raises(WorkRefused):
        claim(worker)


def test_the_score_is_over_every_trial_pair_and_given_only_after_the_last(trial_pair):
    second = store_pair("trial:2", open_hits=False)
    trial.trial_pair_mark(pair_id=second.pk, gold_links=GOLD)
    worker = make_worker()

    first = trial.trial_answer_submit(worker=worker, pair_id=trial_pair.pk, links=GOOD)
    assert not first.finished and not first.qualified and first.next_pair == second
    last = trial.trial_answer_submit(worker=worker, pair_id=second.pk, links="1-1")

    # Micro-averaged: 3 of 3 sure links right, 3 of 4 gold links found.
    assert last.f1 == pytest.approx(2 * 1 * 0.75 / 1.75)
    assert last.qualified


def test_a_bad_answer_or_a_pair_outside_the_trial_is_refused_and_stores_nothing(trial_pair, task):
    worker = make_worker()

    with pytest.raises(WorkRefused, match="points past the end"):
        trial.trial_answer_submit(worker=worker, pair_id=trial_pair.pk, links="9-9")
    with pytest.raises(WorkRefused, match="not part of the trial"):
        trial.trial_answer_submit(worker=worker, pair_id=task.pk, links=GOOD)
    assert not TrialAnswer.objects.exists()


def test_marking_a_trial_pair_stops_its_hits_taking_workers(task):
    trial.trial_pair_mark(pair_id=task.pk, gold_links=GOLD)

    assert all(hit.is_full for hit in Hit.objects.filter(item_id=task.item_id))


def test_taking_the_last_pair_out_of_the_set_opens_alignment_to_all_again(trial_pair):
    worker = make_worker()
    trial.trial_pair_unmark(pair_id=trial_pair.pk)

    assert not HitType.objects.for_kind(HitType.Kind.ALIGNMENT).qualification_required
    assert claim(worker) is not None


def test_staff_make_a_trial_pair_on_the_pair_page_and_bad_links_change_nothing(client, task):
    client.force_login(make_staff())
    url = reverse("annotations:pair_trial", args=[task.pk])

    refused = client.post(url, {"gold_links": "0-x", "action": "mark"})
    task.refresh_from_db()
    assert refused.status_code == 400 and not task.is_trial
    assert "could not be read" in refused.content.decode()

    client.post(url, {"gold_links": GOLD, "action": "mark"})
    task.refresh_from_db()
    assert task.is_trial and task.gold_links == GOLD
    page = client.get(reverse("annotations:pair", args=[task.pk])).content.decode()
    assert "Gold (trial)" in page

    client.post(url, {"action": "remove"})
    task.refresh_from_db()
    assert not task.is_trial


def test_workers_cannot_change_the_trial_set_nor_see_the_gold(client, trial_pair):
    worker = make_worker()
    client.force_login(worker.user)

    response = client.post(
        reverse("annotations:pair_trial", args=[trial_pair.pk]), {"action": "remove"}
    )
    page = client.get(reverse("annotations:trial")).content.decode()

    assert response.status_code == 403
    trial_pair.refresh_from_db()
    assert trial_pair.is_trial
    assert "0-0 1-1 2-2" not in page


def test_staff_grant_and_revoke_alignment_on_the_worker_page_audited(client, trial_pair):
    staff = make_staff()
    worker = make_worker()
    client.force_login(staff)
    url = reverse("review:standing", args=[worker.pk])

    client.post(url, {"action": "grant_alignment", "reason": "Trained in person."})
    assert claim(worker) is not None
    page = client.get(reverse("review:worker", args=[worker.pk])).content.decode()
    assert "Word alignment: granted" in page and "Revoke word alignment" in page
    client.post(url, {"action": "revoke_alignment", "reason": "Careless links."})

    assert not crowd.worker_has_access(worker=worker, kind=Qualification.Kind.ALIGNMENT)
    actions = list(
        AuditEntry.objects.filter(worker=worker).order_by("at").values_list("action", "actor")
    )
    assert actions == [
        (AuditEntry.Action.PROMOTE, staff.pk),
        (AuditEntry.Action.DEMOTE, staff.pk),
    ]
    # The tier is a separate grant: the worker is still in Tier 1.
    assert worker.current_tier == Tier.ONE


def test_import_alignments_with_trial_stores_gold_pairs_without_hits(tmp_path, task):
    (tmp_path / "a.txt").write_text(" ".join(TOKENS_A) + "\n", encoding="utf-8")
    (tmp_path / "b.txt").write_text(" ".join(TOKENS_B) + "\n", encoding="utf-8")
    (tmp_path / "gold.txt").write_text("0-0 1-1 2p2\n", encoding="utf-8")

    call_command(
        "import_alignments",
        str(tmp_path / "gold.txt"),
        "--format=pharaoh",
        f"--source={tmp_path / 'a.txt'}",
        f"--target={tmp_path / 'b.txt'}",
        "--trial",
    )

    pair = SentencePair.objects.get(is_trial=True)
    assert pair.gold_links == "0-0 1-1 2p2" and pair.item_id is None
    assert not pair.alignments.exists()
    assert HitType.objects.for_kind(HitType.Kind.ALIGNMENT).qualification_required


def test_staff_see_a_workers_trial_answers_beside_the_gold(client, trial_pair):
    worker = make_worker()
    trial.trial_answer_submit(worker=worker, pair_id=trial_pair.pk, links=BAD)
    client.force_login(make_staff())

    panel = client.get(reverse("review:worker", args=[worker.pk])).content.decode()
    pair_page = client.get(reverse("annotations:pair", args=[trial_pair.pk])).content.decode()

    assert "Alignment trial answers" in panel and "F1 0.00 against the gold" in panel
    # Named as beside it in the agreement tables and the exports, never by username.
    assert f"Trial: local-{worker.pk}" in pair_page and "Gold (trial)" in pair_page
    assert worker.user.username not in pair_page


def test_a_platform_worker_without_the_qualification_is_asked_to_return_the_task(trial_pair):
    worker = crowd.worker_from_platform(platform="mturk", external_id="A1TRIAL")

    with pytest.raises(WorkRefused, match="Please return the task on your crowd platform"):
        crowd.assignment_for_platform(
            worker=worker,
            tier=Tier.ONE,
            kind=HitType.Kind.ALIGNMENT,
            external_assignment_id="ASSIGN1",
        )


def test_a_qualified_worker_opening_the_trial_goes_back_to_the_dashboard(client, trial_pair):
    worker = make_worker()
    crowd.qualification_grant(
        worker=worker, kind=Qualification.Kind.ALIGNMENT, granted_by=None, reason="Test."
    )
    client.force_login(worker.user)

    response = client.get(reverse("annotations:trial"), follow=True)

    assert "You already hold the word-alignment qualification." in response.content.decode()
    assert not TrialAnswer.objects.exists()
