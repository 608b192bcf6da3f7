from django.contrib import admin

from .models import CorrelationReport, ExportJob, Rating, RatingBatch, Release, SystemScoreJob


@admin.register(ExportJob)
class ExportJobAdmin(admin.ModelAdmin):
    list_display = ["id", "format", "requested_by", "state", "created_at", "finished_at"]
    list_filter = ["state", "format", "created_at"]
    search_fields = ["requested_by__username"]
    readonly_fields = [
        "requested_by",
        "format",
        "parameters",
        "state",
        "folder",
        "files",
        "report",
        "error",
        "created_at",
        "started_at",
        "finished_at",
    ]

    def has_add_permission(self, request):
        return False  # researchers start exports from their page or the API


@admin.register(Release)
class ReleaseAdmin(admin.ModelAdmin):
    """Releases, to read, and to make public or private: they are made with ``manage.py
    release`` or on the research page, and a release once made never changes (the database
    refuses it); who may download its files (``public``) is the one thing staff may change."""

    list_display = ["number", "state", "public", "created_by", "created_at", "finished_at"]
    list_filter = ["state", "public", "created_at"]
    readonly_fields = [
        "number",
        "state",
        "created_by",
        "created_at",
        "started_at",
        "finished_at",
        "parameters",
        "folder",
        "location",
        "manifest",
        "error",
    ]
    fields = ["public", *readonly_fields]

    def has_add_permission(self, request):
        return False

    def has_delete_permission(self, request, obj=None):
        return False

    def save_model(self, request, obj, form, change):
        # Only the flag is written: every other column of a made release stays as it is.
        obj.save(update_fields=["public"])


@admin.register(SystemScoreJob)
class SystemScoreJobAdmin(admin.ModelAdmin):
    list_display = ["id", "requested_by", "state", "requested_at", "computed_at", "seconds"]
    list_filter = ["state", "requested_at"]
    search_fields = ["requested_by__username"]
    # The systems' outputs stay out of the form: thousands of pairs, and they are what the
    # researcher typed (the result, shown as JSON, is escaped like every read-only field).
    exclude = ["systems"]
    readonly_fields = [
        "requested_by",
        "parameters",
        "state",
        "result",
        "error",
        "requested_at",
        "started_at",
        "computed_at",
        "seconds",
    ]

    def has_add_permission(self, request):
        return False  # researchers start scoring jobs from their page or the API


@admin.register(RatingBatch)
class RatingBatchAdmin(admin.ModelAdmin):
    list_display = ["id", "name", "origin", "system", "language", "judges", "created_at"]
    list_filter = ["origin", "language", "created_at"]
    search_fields = ["name", "system"]
    readonly_fields = ["origin", "language", "judges", "created_by", "created_at"]

    def has_add_permission(self, request):
        return False  # made on the ratings page or by rating_batch, which offer the items


@admin.register(Rating)
class RatingAdmin(admin.ModelAdmin):
    """Ratings are read here; staff decide them on the batch's page, which pays or rejects
    through the ledger."""

    list_display = ["id", "item", "worker", "semantic", "dissimilarity", "overall", "status"]
    list_filter = ["status", "item__batch"]
    list_select_related = ["item", "worker__user"]
    readonly_fields = [
        "item",
        "assignment",
        "worker",
        "semantic",
        "dissimilarity",
        "overall",
        "status",
        "review_reason",
        "created_at",
    ]

    def has_add_permission(self, request):
        return False


@admin.register(CorrelationReport)
class CorrelationReportAdmin(admin.ModelAdmin):
    list_display = ["id", "name", "requested_by", "state", "requested_at", "seconds"]
    list_filter = ["state", "requested_at"]
    search_fields = ["requested_by__username", "name"]
    # The uploaded ratings stay out of the form: large, and typed by researchers.
    exclude = ["ratings_csv"]
    readonly_fields = [
        "requested_by",
        "name",
        "parameters",
        "state",
        "result",
        "error",
        "requested_at",
        "started_at",
        "computed_at",
        "seconds",
    ]

    def has_add_permission(self, request):
        return False  # researchers start analyses from their page or the API
