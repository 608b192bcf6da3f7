"""Scores computed from the corpus, kept beside it.

A *cluster*, for scoring, is the accepted descriptions of one segment in one declared language:
BLEU and PINC between sentences of different languages mean nothing, and work nobody has
accepted yet (pasted text waiting for a decision, say) must not move a cluster's scores.
Descriptions awaiting review are counted beside the scores; rejected ones take no part.
"""

from django.db import models
from django.utils import timezone

from paracrowd.reports import Report


class ClusterScore(models.Model):
    # A leave-one-out score needs another accepted description to compare with.
    MIN_SIZE = 2

    segment = models.ForeignKey(
        "collector.Segment", on_delete=models.CASCADE, related_name="cluster_scores"
    )
    language = models.CharField(max_length=40)
    # Accepted descriptions: the members the scores are computed over.
    size = models.PositiveIntegerField()
    # Descriptions awaiting review when the cluster was scored, not counted in its scores.
    # Null: scored before pending work was kept out, so ``size`` and the scores may count it;
    # such a cluster is due to be scored again (``segments_stale``).
    pending = models.PositiveIntegerField(null=True)
    # Corpus BLEU of every member against the others (leave-one-out), and the sentence mean.
    corpus_bleu = models.FloatField(null=True)
    mean_bleu = models.FloatField(null=True)
    # Mean PINC over all ordered pairs of members.
    mean_pinc = models.FloatField(null=True)
    bleu_signature = models.CharField(max_length=200)
    pinc_signature = models.CharField(max_length=200)
    computed_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["segment", "language"], name="cluster_score_once")
        ]

    def __str__(self):
        return f"{self.segment} [{self.language}]: {self.size} accepted descriptions"

    @property
    def scored(self) -> bool:
        """Whether the cluster has enough accepted descriptions for its scores to mean
        anything (below that they are null, and pages say how many more are needed)."""
        return self.size >= self.MIN_SIZE


class DescriptionScore(models.Model):
    """One description against the rest of its cluster. Null scores: nothing to compare with.

    An accepted description is scored against the other accepted ones, as the cluster is; one
    awaiting review against every other description not rejected, for its reviewer (it takes
    no part in the cluster's scores until accepted)."""

    description = models.OneToOneField(
        "collector.Description", on_delete=models.CASCADE, primary_key=True, related_name="score"
    )
    # Sentence BLEU against every other member of the cluster.
    bleu = models.FloatField(null=True)
    # Mean PINC of this description against each other member as the source.
    pinc = models.FloatField(null=True)
    references = models.PositiveIntegerField()
    bleu_signature = models.CharField(max_length=200)
    pinc_signature = models.CharField(max_length=200)
    computed_at = models.DateTimeField(default=timezone.now)

    def __str__(self):
        return f"BLEU {self.bleu} PINC {self.pinc}"


class ReferenceCurveReport(Report):
    """Leave-one-out BLEU against the number of references (scoring.reports), for one seeded
    sample: ``result`` holds its points. Computed by a Celery worker, never by a page."""

    language = models.CharField(max_length=40)
    clusters = models.PositiveIntegerField()
    per_cluster = models.PositiveIntegerField()
    seed = models.PositiveIntegerField()

    class Meta(Report.Meta):
        constraints = [
            *Report.Meta.constraints,
            models.UniqueConstraint(
                fields=["language", "clusters", "per_cluster", "seed"],
                name="reference_curve_report_once",
            ),
        ]
        indexes = [models.Index(fields=["language", "-requested_at"])]

    def __str__(self):
        return (
            f"reference curve [{self.language}] {self.clusters} clusters × {self.per_cluster}"
            f", seed {self.seed} ({self.state})"
        )


class MeteorSetting(models.Model):
    """The site's METEOR-style parameters as ``tune_meteor --store`` chose them; the latest
    row is in force, earlier ones stay as the history of what was used when."""

    parameters = models.JSONField()
    # The language the ratings and the table are in; other languages are scored without it.
    language = models.CharField(max_length=35, default="en")
    table_path = models.CharField(max_length=500, blank=True)
    table_checksum = models.CharField(max_length=12, blank=True)
    ratings = models.PositiveIntegerField()
    held_out_correlation = models.FloatField(null=True)
    # What the parameters were tuned on: the ratings' and the table's learned-from records
    # (research.learning, as_dict()); empty for settings stored before they were recorded.
    learned_from = models.JSONField(default=list, blank=True)
    stored_at = models.DateTimeField(default=timezone.now)

    class Meta:
        get_latest_by = ["stored_at", "id"]

    def __str__(self):
        return f"METEOR parameters of {self.stored_at:%Y-%m-%d %H:%M}"


class ParaphraseComparisonReport(Report):
    """Direct paraphrases against video descriptions of the same segments, by PINC against the
    sentence paraphrased, for one language (scoring.paraphrases): ``result`` holds the means,
    counts and the paired bootstrap. Computed by a Celery worker, never by a page."""

    language = models.CharField(max_length=40, unique=True)

    def __str__(self):
        return f"direct paraphrases against descriptions [{self.language}] ({self.state})"


class CombinedSetting(models.Model):
    """The centre and slope of PINC × sigmoid(BLEU) as ``correlate_ratings --store-combined``
    (or the research page) fitted them to human ratings; the latest row is in force, earlier
    ones stay as the history. With none stored, COMBINED_SCORE_CENTRE/SLOPE apply."""

    centre = models.FloatField()
    slope = models.FloatField()
    # The rating dimension fitted (overall, or rating) and how many rated pairs it rests on.
    dimension = models.CharField(max_length=20)
    pairs = models.PositiveIntegerField()
    # Pearson's r of the score with the ratings, out of fold (None when undefined).
    held_out_correlation = models.FloatField(null=True)
    # The ratings' learned-from record (research.learning, as_dict()) when the fit recorded
    # the splits its ratings came from; empty otherwise.
    learned_from = models.JSONField(default=list, blank=True)
    stored_at = models.DateTimeField(default=timezone.now)

    class Meta:
        get_latest_by = ["stored_at", "id"]

    def __str__(self):
        return f"combined score centre {self.centre:g}, slope {self.slope:g}"
