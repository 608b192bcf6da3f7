"""Sentence pairs and their word alignments.

A pair's tokens are stored once and are what the annotator sees, what the aligner and the
agreement measures count positions in, and what is exported. Links are kept in the
Pharaoh/Moses form ("0-0 1-2 3p4", ``p`` for possible), which round-trips exactly through
``paracrowd_metrics.alignment``.
"""

import hashlib
import json

from django.db import models
from django.db.models import Q
from django.utils import timezone

from crowd.models import Offered, Reviewed
from paracrowd.wording import shortened


class AlignerModel(models.Model):
    """An automatic aligner, as JSON: unsupervised (translation tables trained on the corpus's
    sentence pairs), supervised (learnt from human alignments, using an unsupervised
    ``base`` model's posteriors as features) or identical words linked one to one (no
    parameters; put in use when held-out gold favours it over the unsupervised model, see
    ``prealigner.unsupervised_or_identical_choose``). ``trained_on`` records a supervised
    model's gold: the ids of the accepted alignments and of the trial pairs it learnt from,
    and those it was judged on (``held_out``). A supervised model pre-aligns only if it
    ``took_over``: judged on at least PREALIGNER_HELD_OUT_MINIMUM held-out pairs, its micro F1
    there (``held_out_f1``) beat both the aligner in use then and identical words;
    ``judgement`` says what it was compared with and why it did or did not take over."""

    class Kind(models.TextChoices):
        UNSUPERVISED = "unsupervised", "Unsupervised (sentence pairs)"
        SUPERVISED = "supervised", "Supervised (human alignments)"
        IDENTICAL = "identical", "Identical words (one to one)"

    kind = models.CharField(max_length=12, choices=Kind.choices, default=Kind.UNSUPERVISED)
    base = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.PROTECT, related_name="supervised"
    )
    parameters = models.JSONField()
    training_pairs = models.PositiveIntegerField()
    trained_on = models.JSONField(default=dict, blank=True)
    trained_at = models.DateTimeField(default=timezone.now)
    took_over = models.BooleanField(default=True)
    held_out_f1 = models.FloatField(null=True, blank=True)
    judgement = models.JSONField(default=dict, blank=True)

    class Meta:
        get_latest_by = "trained_at"
        constraints = [
            models.CheckConstraint(
                condition=Q(kind="supervised") | Q(base__isnull=True),
                name="aligner_base_only_when_supervised",
            )
        ]

    def __str__(self):
        return (
            f"{self.kind} aligner of {self.trained_at:%Y-%m-%d %H:%M} ({self.training_pairs} pairs)"
        )


# An imported corpus whose name has the word "test" (gold.test, RTE2_test, arxiv-test) is a
# benchmark's test set: aligners are measured on it, so they learn from it only when asked.
# The name is the import key's part before its last colon (corpus:id).
BENCHMARK_TEST_KEY = r"^(.*[^a-z0-9])?test([^a-z0-9].*)?:[^:]*$"


def benchmark_test_pairs() -> Q:
    """The imported pairs of benchmark test sets (see BENCHMARK_TEST_KEY)."""
    return Q(origin="import", import_key__iregex=BENCHMARK_TEST_KEY)


def pair_content(tokens_a, tokens_b) -> str:
    """What tells an imported pair's sentences apart from another's under the same id."""
    sentences = json.dumps([list(tokens_a), list(tokens_b)], ensure_ascii=False)
    return hashlib.sha256(sentences.encode("utf-8")).hexdigest()


class SentencePair(Offered):
    class Origin(models.TextChoices):
        CLUSTER = "cluster", "Two descriptions of one cluster"
        IMPORT = "import", "Imported"

    origin = models.CharField(max_length=10, choices=Origin.choices)
    description_a = models.ForeignKey(
        "collector.Description", null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    description_b = models.ForeignKey(
        "collector.Description", null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    tokens_a = models.JSONField()
    tokens_b = models.JSONField()
    # The automatic aligner's links (sure only), shown to annotators as their starting point.
    pre_alignment = models.TextField(blank=True)
    aligner = models.ForeignKey(AlignerModel, null=True, blank=True, on_delete=models.SET_NULL)
    import_key = models.CharField(max_length=200, blank=True)
    # The imported pair's sentences as a digest (``pair_content``): a corpus may use one id for
    # different sentence pairs (MultiMWA's test file does), and each is a pair of its own.
    import_content = models.CharField(max_length=64, blank=True)
    created_at = models.DateTimeField(default=timezone.now)
    # A trial pair tests annotators before they may take alignment HITs: its gold alignment
    # (Pharaoh form, made by staff or imported) is what their answer is scored against.
    is_trial = models.BooleanField(default=False)
    gold_links = models.TextField(blank=True)

    class Meta:
        constraints = [
            models.CheckConstraint(
                condition=Q(is_trial=False) | ~Q(gold_links=""), name="trial_pair_has_gold"
            ),
            models.UniqueConstraint(
                fields=["description_a", "description_b"],
                condition=Q(description_a__isnull=False),
                name="pair_once_per_descriptions",
            ),
            models.UniqueConstraint(
                fields=["import_key", "import_content"],
                condition=~Q(import_key=""),
                name="pair_import_once_per_sentences",
            ),
            models.CheckConstraint(
                condition=Q(origin="import") | Q(description_a__lt=models.F("description_b")),
                name="pair_descriptions_ordered",
            ),
        ]

    def __str__(self):
        sentences = (shortened(" ".join(tokens), 40) for tokens in (self.tokens_a, self.tokens_b))
        return " ↔ ".join(sentences)


class Alignment(Reviewed):
    """One annotator's links for one pair: a worker's submission, or an imported annotation
    (accepted as it is imported)."""

    review_noun = "alignments"

    pair = models.ForeignKey(SentencePair, on_delete=models.CASCADE, related_name="alignments")
    assignment = models.OneToOneField(
        "crowd.Assignment",
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="alignment",
    )
    worker = models.ForeignKey(
        "crowd.Worker",
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="alignments",
    )
    # For imported annotations, the annotator's name in the source (e.g. "A", "B", "C").
    annotator = models.CharField(max_length=64, blank=True)
    links = models.TextField(blank=True, help_text="Pharaoh form; p marks possible links")
    # Cells (i, j, type) that differ from the pre-alignment the annotator started from.
    changed_cells = models.PositiveIntegerField(default=0)
    # A pre-alignment was shown and sent back (nearly) as it was: the alignment's equivalent of a
    # pasted text (annotations.services.suggestion_unchanged), judged when it was stored.
    unchanged_suggestion = models.BooleanField(default=False)
    time_spent = models.DurationField(null=True, blank=True)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["pair", "worker"],
                condition=Q(worker__isnull=False),
                name="alignment_once_per_worker",
            ),
            models.UniqueConstraint(
                fields=["pair", "annotator"],
                condition=~Q(annotator=""),
                name="alignment_once_per_annotator",
            ),
            models.CheckConstraint(
                condition=Q(worker__isnull=False) | ~Q(annotator=""),
                name="alignment_has_an_annotator",
            ),
            models.CheckConstraint(
                condition=~Q(status="pending") | Q(reviewed_at__isnull=True),
                name="alignment_pending_is_unreviewed",
            ),
        ]
        indexes = [models.Index(fields=["status", "created_at"])]

    def __str__(self):
        return f"{self.annotator_name} on pair {self.pair_id}"

    @property
    def annotator_name(self) -> str:
        """The imported annotator's name, else the worker as research tables and exports
        name them (``Worker.label``): the agreement tables, the consensus weights and the
        alignment files all key annotators by it, so it must be one name everywhere."""
        return self.annotator or self.worker.label


class AgreementReport(models.Model):
    """The corpus agreement table, kept up to date in the background as alignments arrive.

    One row. ``totals`` is the exact sum of every ``PairAgreement`` row and ``table`` the
    table computed from it; both change in the transaction that replaces a pair's row, which
    holds this row's lock. ``edit_models`` are the annotators' edit models behind π̂₀, fitted
    by the last full recomputation (``calibrated_at``), or when an annotator first appears.
    ``refreshing_since`` is set while a full recomputation runs: one at a time, without
    holding a transaction open meanwhile.
    """

    table = models.JSONField(null=True)
    totals = models.JSONField(null=True)
    edit_models = models.JSONField(default=dict)
    through_alignment = models.BigIntegerField(default=0)
    computed_at = models.DateTimeField(null=True)
    calibrated_at = models.DateTimeField(null=True)
    seconds = models.FloatField(null=True)
    refreshing_since = models.DateTimeField(null=True)

    def __str__(self):
        return f"agreement through alignment {self.through_alignment}"


class PairAgreement(models.Model):
    """One sentence pair's share of the sums behind the agreement table.

    ``alignments`` is how many alignments the share was computed from: alignments are only
    ever added, so a pair whose count differs has a share to replace.
    """

    pair = models.OneToOneField(
        SentencePair, on_delete=models.CASCADE, primary_key=True, related_name="agreement"
    )
    alignments = models.PositiveIntegerField()
    share = models.JSONField()  # paracrowd_metrics.alignment.pair_share
    computed_at = models.DateTimeField(default=timezone.now)

    def __str__(self):
        return f"agreement share of pair {self.pair_id} ({self.alignments} alignments)"


class TrialAnswer(models.Model):
    """A worker's alignment of one trial pair, scored against the pair's gold alignment.

    Counts (not ratios) are stored so that a worker's trial score is the micro-average over
    their answers, as corpus figures are everywhere else."""

    worker = models.ForeignKey("crowd.Worker", on_delete=models.CASCADE, related_name="+")
    pair = models.ForeignKey(SentencePair, on_delete=models.CASCADE, related_name="trial_answers")
    links = models.TextField(blank=True)
    # The gold alignment it was scored against, as it was then.
    gold_links = models.TextField()
    f1 = models.FloatField()
    counts = models.JSONField()
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["worker", "pair"], name="trial_answer_once_per_pair")
        ]

    def __str__(self):
        return f"{self.worker} on trial pair {self.pair_id}: F1 {self.f1:.2f}"
