"""The periodic work beat sends (settings.CELERY_BEAT_SCHEDULE): the sweeps that queue again what
a lost message left behind, the upkeep, and the read-back from the crowd platforms."""

from datetime import timedelta

# (name, task, every)
PERIODIC = (
    ("expire-assignments", "crowd.tasks.expire_assignments", timedelta(minutes=1)),
    ("retrain-aligner", "annotations.tasks.retrain_aligner", timedelta(hours=1)),
    ("refresh-agreement", "annotations.tasks.refresh_agreement", timedelta(minutes=10)),
    ("recompute-agreement", "annotations.tasks.recompute_agreement", timedelta(days=1)),
    ("score-unscored", "scoring.tasks.sweep_unscored", timedelta(minutes=2)),
    ("queue-stalled-exports", "research.tasks.sweep_export_jobs", timedelta(minutes=5)),
    ("queue-stalled-releases", "research.tasks.sweep_releases", timedelta(minutes=5)),
    ("queue-stalled-system-scores", "research.tasks.sweep_system_score_jobs", timedelta(minutes=5)),
    (
        "queue-stalled-correlation-reports",
        "research.tasks.sweep_correlation_reports",
        timedelta(minutes=5),
    ),
    ("auto-accept-descriptions", "collector.tasks.auto_accept_descriptions", timedelta(minutes=10)),
    ("auto-accept-paraphrases", "collector.tasks.auto_accept_paraphrases", timedelta(minutes=10)),
    ("forget-past-arrival-counts", "crowd.tasks.forget_arrival_counts", timedelta(hours=1)),
    ("pay-unreviewed-work", "annotations.tasks.pay_alignments", timedelta(minutes=10)),
    ("pay-unreviewed-ratings", "research.tasks.pay_ratings", timedelta(minutes=10)),
    ("check-unchecked-gold", "review.tasks.sweep_unchecked_gold", timedelta(minutes=10)),
    ("refresh-stale-signals", "review.tasks.sweep_stale_signals", timedelta(minutes=10)),
    ("refresh-overview", "review.tasks.refresh_overview", timedelta(minutes=10)),
    ("sync-campaigns", "crowd.tasks.sync_campaigns", timedelta(minutes=5)),
    ("send-platform-actions", "crowd.tasks.send_platform_actions", timedelta(minutes=2)),
)
BEAT_SCHEDULE = {name: {"task": task, "schedule": every} for name, task, every in PERIODIC}
