from django.contrib import admin
from django.urls import reverse
from django.utils.html import format_html

from .models import AgreementReport, AlignerModel, Alignment, SentencePair, TrialAnswer


class AlignmentInline(admin.TabularInline):
    model = Alignment
    extra = 0
    fields = ["annotator", "worker", "links", "changed_cells", "time_spent", "created_at"]
    raw_id_fields = ["worker", "assignment"]


@admin.register(SentencePair)
class SentencePairAdmin(admin.ModelAdmin):
    list_display = ["id", "__str__", "origin", "annotations", "compare", "created_at"]
    list_filter = ["origin", "is_trial", "created_at"]
    search_fields = ["import_key", "tokens_a", "tokens_b"]
    raw_id_fields = ["description_a", "description_b", "aligner"]
    # The trial set changes on the pair page, which also closes the pair's HITs and turns the
    # alignment qualification requirement on or off.
    readonly_fields = ["is_trial", "gold_links"]
    inlines = [AlignmentInline]

    @admin.display(description="annotations")
    def annotations(self, pair):
        return pair.alignments.count()

    @admin.display(description="side by side")
    def compare(self, pair):
        return format_html('<a href="{}">compare</a>', reverse("annotations:pair", args=[pair.pk]))


@admin.register(Alignment)
class AlignmentAdmin(admin.ModelAdmin):
    list_display = [
        "id",
        "pair",
        "annotator",
        "worker",
        "changed_cells",
        "time_spent",
        "created_at",
    ]
    list_filter = ["created_at"]
    search_fields = ["annotator", "worker__user__username", "worker__external_id"]
    raw_id_fields = ["pair", "assignment", "worker"]
    list_select_related = ["pair", "worker__user"]


@admin.register(AlignerModel)
class AlignerModelAdmin(admin.ModelAdmin):
    list_display = [
        "id",
        "kind",
        "base",
        "training_pairs",
        "trained_at",
        "took_over",
        "held_out_f1",
    ]
    list_filter = ["kind", "took_over"]
    exclude = ["parameters"]  # megabytes of translation tables
    raw_id_fields = ["base"]
    # What a supervised model learnt from and how it was judged, as they were.
    readonly_fields = ["trained_on", "took_over", "held_out_f1", "judgement"]


@admin.register(AgreementReport)
class AgreementReportAdmin(admin.ModelAdmin):
    list_display = ["id", "through_alignment", "computed_at", "calibrated_at", "seconds"]
    exclude = ["table", "totals"]  # the table is on its own page; the sums are for the code


@admin.register(TrialAnswer)
class TrialAnswerAdmin(admin.ModelAdmin):
    """Workers' answers to the alignment trial: read only, they are what a grant rests on."""

    list_display = ["id", "worker", "pair", "f1", "created_at"]
    list_filter = ["created_at"]
    search_fields = ["worker__user__username", "worker__external_id"]

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False
