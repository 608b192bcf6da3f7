"""Promoting, demoting and blocking workers, the rule for other languages, and the audit log."""

import pytest

from collector import services
from crowd import services as crowd
from crowd.models import AuditEntry, Qualification, Tier
from review.models import DescriptionCheck, WorkerSignals
from review.services import worker_signals_refresh, workers_with_stale_signals
from review.text_checks import CHECKS_VERSION
from scoring.models import DescriptionScore
from scoring.services import segments_score
from tests.factories import make_segment, make_submitted_description, make_worker

pytestmark = pytest.mark.django_db

HINDI = [
    "एक आदमी गिटार बजा रहा है।",
    "एक महिला टमाटर काट रही है।",
    "दो कुत्ते मैदान में दौड़ रहे हैं।",
]
ENGLISH = ["A man is playing a guitar.", "A woman slices a tomato.", "Two dogs run in a field."]


@pytest.fixture
def rule(settings):
    settings.AUTO_PROMOTE_OTHER_LANGUAGES = True
    settings.AUTO_PROMOTE_AFTER = 3
    return settings


def test_promoting_a_worker_records_who_when_and_why(admin_user):
    worker = make_worker()
    crowd.qualification_grant(
        worker=worker, tier=Tier.TWO, granted_by=admin_user, reason="Clean grammar."
    )
    assert worker.current_tier == Tier.TWO
    entry = AuditEntry.objects.get(worker=worker)
    assert (entry.actor, entry.action, entry.reason) == (admin_user, "promote", "Clean grammar.")
    assert entry.details["tier"] == Tier.TWO and entry.at is not None


def test_a_promotion_needs_a_reason(admin_user):
    worker = make_worker()
    with pytest.raises(crowd.WorkRefused, match="reason"):
        crowd.qualification_grant(worker=worker, tier=Tier.TWO, granted_by=admin_user, reason=" ")
    assert worker.current_tier == Tier.ONE and not AuditEntry.objects.exists()


def test_demoting_revokes_the_grant_and_keeps_it(admin_user):
    worker = make_worker(tier=Tier.TWO)
    crowd.qualification_revoke(
        worker=worker, tier=Tier.TWO, revoked_by=admin_user, reason="Spelling slipped."
    )
    assert worker.current_tier == Tier.ONE
    grant = Qualification.objects.get(worker=worker)
    assert (grant.revoked_by, grant.revoke_reason) == (admin_user, "Spelling slipped.")
    assert list(AuditEntry.objects.filter(worker=worker).values_list("action", flat=True)) == [
        "promote",
        "demote",
    ]


def test_demoting_a_tier_one_worker_is_refused(admin_user):
    with pytest.raises(crowd.WorkRefused, match="does not hold"):
        crowd.qualification_revoke(
            worker=make_worker(), tier=Tier.TWO, revoked_by=admin_user, reason="x"
        )


def test_a_blocked_worker_takes_no_new_task_but_may_submit_the_one_they_hold(admin_user):
    make_segment(), make_segment()
    worker = make_worker()
    held = crowd.assignment_claim(worker=worker, tier=Tier.ONE)
    crowd.worker_block(worker=worker, blocked_by=admin_user, reason="Pastes one sentence.")
    with pytest.raises(crowd.WorkRefused, match="no longer take new tasks"):
        crowd.assignment_claim(worker=worker, tier=Tier.ONE, kind="alignment")
    _, created = services.description_submit(
        assignment_id=held.pk, worker=worker, text=ENGLISH[0], language="en"
    )
    assert created
    with pytest.raises(crowd.WorkRefused, match="no longer take new tasks"):
        crowd.assignment_claim(worker=worker, tier=Tier.ONE)


def test_unblocking_lets_a_worker_work_again_and_both_are_audited(admin_user):
    make_segment()
    worker = make_worker()
    crowd.worker_block(worker=worker, blocked_by=admin_user, reason="Copying.")
    with pytest.raises(crowd.WorkRefused, match="already blocked"):
        crowd.worker_block(worker=worker, blocked_by=admin_user, reason="Copying.")
    crowd.worker_unblock(worker=worker, unblocked_by=admin_user, reason="Explained; fine.")
    assert crowd.assignment_claim(worker=worker, tier=Tier.ONE) is not None
    reasons = AuditEntry.objects.filter(worker=worker).order_by("pk")
    assert [(e.action, e.reason) for e in reasons] == [
        ("block", "Copying."),
        ("unblock", "Explained; fine."),
    ]


def test_a_worker_who_writes_only_hindi_is_promoted_by_the_rule(rule):
    worker = make_worker()
    for text in HINDI[:2]:
        make_submitted_description(worker, text, language="hi")
    worker_signals_refresh(worker_id=worker.pk)
    assert worker.current_tier == Tier.ONE  # not yet: AUTO_PROMOTE_AFTER is 3
    make_submitted_description(worker, HINDI[2], language="hi")
    worker_signals_refresh(worker_id=worker.pk)
    assert worker.current_tier == Tier.TWO
    entry = AuditEntry.objects.get(worker=worker)
    assert entry.actor is None and entry.action == "promote"
    assert entry.reason.startswith("Writes in Hindi, not English")


def test_the_rule_for_other_languages_can_be_turned_off(rule):
    rule.AUTO_PROMOTE_OTHER_LANGUAGES = False
    worker = make_worker()
    for text in HINDI:
        make_submitted_description(worker, text, language="hi")
    worker_signals_refresh(worker_id=worker.pk)
    assert worker.current_tier == Tier.ONE


def test_the_rule_leaves_english_writers_to_an_admin(rule):
    worker = make_worker()
    for text in HINDI:
        make_submitted_description(worker, text, language="hi")
    make_submitted_description(worker, ENGLISH[0])
    worker_signals_refresh(worker_id=worker.pk)
    assert worker.current_tier == Tier.ONE


def test_the_rule_does_not_promote_a_worker_whose_declared_language_is_doubted(rule):
    worker = make_worker()
    for text in ENGLISH:
        make_submitted_description(worker, text, language="hi")
    signals = worker_signals_refresh(worker_id=worker.pk)
    assert "language" in signals.flags
    assert worker.current_tier == Tier.ONE


def test_the_rule_never_overrides_an_admins_demotion(rule, admin_user):
    worker = make_worker(tier=Tier.TWO)
    crowd.qualification_revoke(
        worker=worker, tier=Tier.TWO, revoked_by=admin_user, reason="Writes nonsense."
    )
    for text in HINDI:
        make_submitted_description(worker, text, language="hi")
    worker_signals_refresh(worker_id=worker.pk)
    assert worker.current_tier == Tier.ONE


def test_refreshing_stores_every_signal_with_its_explanation_and_flags_a_paster():
    worker = make_worker()
    for _ in range(4):
        make_submitted_description(worker, "A man is doing something in the video.")
    signals = worker_signals_refresh(worker_id=worker.pk)
    assert signals.descriptions == 4 and signals.languages == ["en"]
    assert signals.duplicate_rate == 1.0 and "duplicates" in signals.flags
    assert set(signals.details) == {
        "spelling",
        "shape",
        "language",
        "duplicates",
        "bleu",
        "pinc",
        "speed",
        "rejections",
        "typing",
    }
    assert all(detail["explanation"] for detail in signals.details.values())
    assert signals.through_description == worker.descriptions.order_by("-pk").first().pk


def test_refreshing_scores_the_latest_description_first():
    make_segment()  # the only segment: both workers describe it
    for worker in (first := make_worker(), second := make_worker()):
        assignment = crowd.assignment_claim(worker=worker, tier=Tier.ONE)
        services.description_submit(
            assignment_id=assignment.pk, worker=worker, text=ENGLISH[0], language="en"
        )
    assert not DescriptionScore.objects.exists()  # nothing ran the queued scoring
    signals = worker_signals_refresh(worker_id=second.pk)
    assert signals.mean_bleu == pytest.approx(100.0)
    assert DescriptionScore.objects.filter(description__worker=first).exists()


def test_a_worker_with_nothing_written_has_no_signals():
    assert worker_signals_refresh(worker_id=make_worker().pk) is None
    assert not WorkerSignals.objects.exists()


def test_the_sweep_finds_workers_with_work_newer_than_their_signals():
    fresh, stale, never = make_worker(), make_worker(), make_worker()
    for worker in (fresh, stale, never):
        make_submitted_description(worker, ENGLISH[0])
    worker_signals_refresh(worker_id=fresh.pk)
    worker_signals_refresh(worker_id=stale.pk)
    make_submitted_description(stale, ENGLISH[1])
    assert workers_with_stale_signals(limit=10) == [stale.pk, never.pk]


def test_signals_go_stale_when_others_descriptions_rescore_the_workers_clusters():
    """A new description of a segment moves every member's leave-one-out BLEU: the signals
    computed before it no longer say what the examples beside them show."""
    first, second = make_worker(), make_worker()
    make_segment()
    for worker, text in ((first, ENGLISH[0]), (second, ENGLISH[1])):
        assignment = crowd.assignment_claim(worker=worker, tier=Tier.ONE)
        services.description_submit(
            assignment_id=assignment.pk, worker=worker, text=text, language="en"
        )
        if worker == first:
            worker_signals_refresh(worker_id=first.pk)
    assert first.pk not in workers_with_stale_signals(limit=10)
    segments_score(segment_ids=list(first.descriptions.values_list("segment_id", flat=True)))
    assert first.pk in workers_with_stale_signals(limit=10)


def test_text_checks_are_computed_once_and_kept():
    worker = make_worker()
    description = make_submitted_description(worker, "A man is plaing a gitar.")
    worker_signals_refresh(worker_id=worker.pk)
    stored = DescriptionCheck.objects.get(description=description)
    assert stored.misspelt == ["plaing", "gitar"] and stored.version == CHECKS_VERSION
    # What is stored is what counts (the text never changes)…
    DescriptionCheck.objects.filter(pk=stored.pk).update(misspelt=[])
    assert worker_signals_refresh(worker_id=worker.pk).spelling_error_rate == 0
    # …until the checks themselves change.
    DescriptionCheck.objects.filter(pk=stored.pk).update(version=CHECKS_VERSION - 1)
    assert worker_signals_refresh(worker_id=worker.pk).spelling_error_rate == pytest.approx(2 / 6)
