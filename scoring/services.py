"""Applying the metrics to the stored corpus."""

import math
from dataclasses import asdict, dataclass

from django.conf import settings
from django.db import transaction
from django.db.models import F, OuterRef, Subquery
from django.utils import timezone

import paracrowd_metrics as metrics
from collector.models import Description, Segment
from collector.selectors import cluster_descriptions
from paracrowd.reports import report_compute, report_request
from paracrowd_metrics.meteor import (
    ENGLISH,
    Meteor,
    MeteorParameters,
    ParaphraseTable,
    TableFormatError,
    meteor_signature,
)
from paracrowd_metrics.meteor.matchers import primary_language

from . import reports
from .models import (
    ClusterScore,
    CombinedSetting,
    DescriptionScore,
    MeteorSetting,
    ReferenceCurveReport,
)


def segments_score(*, segment_ids) -> int:
    """Rescore every cluster of the given segments; safe to run twice or concurrently.

    A cluster's scores are over its accepted descriptions alone (``ClusterScore``), with the
    descriptions awaiting review counted beside them; a cluster too small to score keeps its
    row, with null scores, so pages can say what it still needs. Each cluster is scored
    whole: when a description is accepted, every other member gains a reference, so every
    member's leave-one-out scores move. Returns the clusters scored.
    """
    segment_ids = sorted(set(segment_ids))
    with transaction.atomic():
        # Serialise scoring per segment without blocking new descriptions (which take
        # FOR KEY SHARE on the segment, compatible with NO KEY UPDATE).
        list(
            Segment.objects.filter(pk__in=segment_ids)
            .order_by("pk")
            .select_for_update(no_key=True)
            .values_list("pk", flat=True)
        )
        everyone = cluster_descriptions(segment_ids)
        accepted = cluster_descriptions(segment_ids, accepted_only=True)
        now = timezone.now()
        description_scores, cluster_scores = [], []
        for (segment_id, language), members in everyone.items():
            tokenize = metrics.default_tokenize(language)
            scored = accepted.get((segment_id, language), [])
            scores = _scores(scored, tokenize)
            description_scores += _description_scores(scored, scores, now)
            accepted_ids = {description_id for description_id, _ in scored}
            pending = [member for member in members if member[0] not in accepted_ids]
            if pending:
                # Work awaiting review is scored against everything not rejected, for its
                # reviewer; the cluster's own scores above never see it.
                with_pending = _scores(members, tokenize)
                description_scores += [
                    row
                    for row in _description_scores(members, with_pending, now)
                    if row.description_id not in accepted_ids
                ]
            cluster_scores.append(
                ClusterScore(
                    segment_id=segment_id,
                    language=language,
                    size=len(scored),
                    pending=len(pending),
                    corpus_bleu=scores.corpus_bleu,
                    mean_bleu=scores.mean_bleu,
                    mean_pinc=scores.mean_pinc,
                    bleu_signature=scores.bleu_signature,
                    pinc_signature=scores.pinc_signature,
                    computed_at=now,
                )
            )
        DescriptionScore.objects.bulk_create(
            description_scores,
            update_conflicts=True,
            unique_fields=["description"],
            update_fields=[
                "bleu",
                "pinc",
                "references",
                "bleu_signature",
                "pinc_signature",
                "computed_at",
            ],
            batch_size=5000,
        )
        ClusterScore.objects.bulk_create(
            cluster_scores,
            update_conflicts=True,
            unique_fields=["segment", "language"],
            update_fields=[
                "size",
                "pending",
                "corpus_bleu",
                "mean_bleu",
                "mean_pinc",
                "bleu_signature",
                "pinc_signature",
                "computed_at",
            ],
            batch_size=5000,
        )
        # Members that left (rejected) and languages no longer present lose their scores.
        DescriptionScore.objects.filter(
            description__segment_id__in=segment_ids,
            description__status=Description.Status.REJECTED,
        ).delete()
        ClusterScore.objects.filter(segment_id__in=segment_ids, computed_at__lt=now).delete()
    return len(cluster_scores)


def _scores(members, tokenize: str) -> metrics.ClusterScores:
    """Leave-one-out scores of ``members`` [(id, text), …] among themselves. With none, the
    signatures still say how the cluster would be scored (no references)."""
    if not members:
        settings = metrics.ClusterSettings(tokenize=tokenize)
        return metrics.ClusterScores(
            size=0,
            corpus_bleu=None,
            mean_bleu=None,
            mean_pinc=None,
            sentences=(),
            bleu_signature=settings.bleu_signature(0),
            pinc_signature=settings.pinc_signature(0),
        )
    return metrics.ClusterIndex.build(
        [text for _, text in members], tokenize=tokenize, growable=False
    ).cluster_scores()


def _description_scores(members, scores, now) -> list[DescriptionScore]:
    return [
        DescriptionScore(
            description_id=description_id,
            bleu=sentence.bleu,
            pinc=sentence.pinc,
            references=len(members) - 1,
            bleu_signature=scores.bleu_signature,
            pinc_signature=scores.pinc_signature,
            computed_at=now,
        )
        for (description_id, _), sentence in zip(members, scores.sentences, strict=True)
    ]


def segments_unscored(*, limit: int):
    """Segments holding a description that takes part in scoring but has no score yet."""
    return list(
        Description.objects.filter(score__isnull=True)
        .exclude(status=Description.Status.REJECTED)
        .order_by("segment_id")
        .values_list("segment_id", flat=True)
        .distinct()[:limit]
    )


def segments_stale(*, limit: int):
    """Segments whose scores are older than their newest review: an acceptance or a
    rejection (or its reversal) changes who is in a cluster, and the rescore it queued may
    have been lost. Also any segment where a rejected description still holds a score, and
    any scored before pending work was kept out of the scores (``ClusterScore.pending``
    null)."""
    # Every cluster of a segment is rescored together, so its oldest score stands for all.
    scored_at = (
        ClusterScore.objects.filter(segment=OuterRef("segment_id"))
        .order_by("computed_at")
        .values("computed_at")[:1]
    )
    reviewed_since = (
        Description.objects.filter(reviewed_at__isnull=False)
        .annotate(scored_at=Subquery(scored_at))
        .filter(reviewed_at__gt=F("scored_at"))
    )
    rejected_with_score = Description.objects.filter(
        status=Description.Status.REJECTED, score__isnull=False
    )
    scored_with_pending = ClusterScore.objects.filter(pending__isnull=True)
    return list(
        reviewed_since.values("segment_id")
        .union(rejected_with_score.values("segment_id"), scored_with_pending.values("segment_id"))
        .order_by("segment_id")
        .values_list("segment_id", flat=True)[:limit]
    )


def reference_curve_request(
    *, language: str, clusters: int, per_cluster: int, seed: int
) -> ReferenceCurveReport:
    """The reference-curve report for these parameters, created or queued again, with its
    computation queued for a Celery worker (on commit). Staff ask for it from the corpus page."""
    return report_request(
        ReferenceCurveReport,
        task="scoring.tasks.compute_reference_curve",
        language=language,
        clusters=clusters,
        per_cluster=per_cluster,
        seed=seed,
    )


def reference_curve_compute(*, report_id: int) -> bool:
    """Compute a queued reference-curve report and store its points with the time taken.
    Returns False when it is done already or another worker holds it."""

    def points(report: ReferenceCurveReport) -> list[dict]:
        curve = reports.bleu_by_reference_count(
            language=report.language,
            clusters=report.clusters,
            per_cluster=report.per_cluster,
            seed=report.seed,
        )
        return [asdict(point) for point in curve]

    return report_compute(ReferenceCurveReport, report_id=report_id, compute=points)


def meteor_setting_store(
    *,
    parameters: MeteorParameters,
    language: str = "en",
    table_path: str = "",
    table_checksum: str = "",
    ratings: int,
    held_out_correlation: float | None,
    learned_from: list[dict] | None = None,
) -> MeteorSetting:
    """Make ``parameters`` (tuned with the table of that checksum, if any) the site's;
    ``learned_from``: the records of what the ratings and the table came from."""
    if held_out_correlation is not None and math.isnan(held_out_correlation):
        held_out_correlation = None
    return MeteorSetting.objects.create(
        parameters=parameters.as_dict(),
        language=language,
        table_path=table_path,
        table_checksum=table_checksum,
        ratings=ratings,
        held_out_correlation=held_out_correlation,
        learned_from=learned_from or [],
    )


def meteor_setting_current() -> MeteorSetting | None:
    """The parameters in force, or None when none were stored (the paper's defaults apply)."""
    return MeteorSetting.objects.order_by("-stored_at", "-id").first()


@dataclass(frozen=True)
class MeteorConfiguration:
    """What the site scores METEOR with: parameters, and a table for one language."""

    parameters: MeteorParameters = ENGLISH
    language: str = "en"
    paraphrases: ParaphraseTable | None = None
    # Why the stored table is not used (moved, changed since tuning), or "".
    problem: str = ""

    def scorer(self, language: str) -> Meteor:
        same = primary_language(language) == primary_language(self.language)
        return Meteor(
            paraphrases=self.paraphrases if same else None,
            language=language,
            parameters=self.parameters,
        )

    def signature(self, language: str, nrefs: int | str) -> str:
        same = primary_language(language) == primary_language(self.language)
        return meteor_signature(
            nrefs=nrefs,
            language=language,
            parameters=self.parameters,
            paraphrases=self.paraphrases if same else None,
        )


# Tables read from disk, by (path, checksum): a 50,000-entry table takes about a second.
_TABLES: dict[tuple[str, str], ParaphraseTable] = {}


def meteor_configuration() -> MeteorConfiguration:
    """The site's METEOR parameters and table (the paper's English defaults when none were
    stored). A table that cannot be read, or whose checksum is no longer the one it was
    tuned with, is left out and ``problem`` says why."""
    setting = meteor_setting_current()
    if setting is None:
        return MeteorConfiguration()
    parameters = MeteorParameters.from_dict(setting.parameters)
    if not setting.table_checksum:
        return MeteorConfiguration(parameters, setting.language)
    key = (setting.table_path, setting.table_checksum)
    if key not in _TABLES:
        try:
            table = ParaphraseTable.load(setting.table_path)
        except (OSError, TableFormatError) as error:
            return MeteorConfiguration(parameters, setting.language, None, str(error))
        if table.checksum() != setting.table_checksum:
            return MeteorConfiguration(
                parameters,
                setting.language,
                None,
                f"{setting.table_path} changed since tuning (checksum {table.checksum()}, "
                f"tuned with {setting.table_checksum})",
            )
        _TABLES.clear()
        _TABLES[key] = table
    return MeteorConfiguration(parameters, setting.language, _TABLES[key])


def combined_setting_store(
    *,
    centre: float,
    slope: float,
    dimension: str,
    pairs: int,
    held_out_correlation,
    learned_from: list[dict] | None = None,
) -> CombinedSetting:
    """Make ``centre`` and ``slope`` the site's combined-score parameters (fitted to ``pairs``
    rated pairs; ``learned_from``: the record of the splits the ratings came from). ValueError
    when either is not a finite number."""
    if not (math.isfinite(centre) and math.isfinite(slope)):
        raise ValueError("the centre and slope must be finite numbers")
    if held_out_correlation is not None and not math.isfinite(held_out_correlation):
        held_out_correlation = None
    return CombinedSetting.objects.create(
        centre=centre,
        slope=slope,
        dimension=dimension,
        pairs=pairs,
        held_out_correlation=held_out_correlation,
        learned_from=learned_from or [],
    )


def combined_parameters() -> tuple[float, float]:
    """(centre, slope) of PINC × sigmoid(BLEU) in force: the latest stored fit, else the
    COMBINED_SCORE_CENTRE and COMBINED_SCORE_SLOPE settings."""
    setting = CombinedSetting.objects.order_by("-stored_at", "-id").first()
    if setting is None:
        return settings.COMBINED_SCORE_CENTRE, settings.COMBINED_SCORE_SLOPE
    return setting.centre, setting.slope
