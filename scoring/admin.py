from django.contrib import admin

from crowd.admin import ReadOnlyAdmin

from .models import (
    ClusterScore,
    DescriptionScore,
    ParaphraseComparisonReport,
    ReferenceCurveReport,
)


@admin.register(ClusterScore)
class ClusterScoreAdmin(admin.ModelAdmin):
    list_display = [
        "segment",
        "language",
        "size",
        "corpus_bleu",
        "mean_bleu",
        "mean_pinc",
        "computed_at",
    ]
    list_filter = ["language"]
    search_fields = ["segment__youtube_id"]
    raw_id_fields = ["segment"]
    list_select_related = ["segment"]


@admin.register(DescriptionScore)
class DescriptionScoreAdmin(admin.ModelAdmin):
    list_display = ["description", "bleu", "pinc", "references", "bleu_signature", "computed_at"]
    search_fields = ["description__text"]
    raw_id_fields = ["description"]
    list_select_related = ["description"]


@admin.register(ReferenceCurveReport)
class ReferenceCurveReportAdmin(ReadOnlyAdmin):
    list_display = [
        "language",
        "clusters",
        "per_cluster",
        "seed",
        "state",
        "requested_at",
        "computed_at",
        "seconds",
    ]
    list_filter = ["state", "language"]
    search_fields = ["language"]


@admin.register(ParaphraseComparisonReport)
class ParaphraseComparisonReportAdmin(ReadOnlyAdmin):
    list_display = ["language", "state", "requested_at", "computed_at", "seconds"]
    list_filter = ["state"]
