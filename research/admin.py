from django.contrib import admin

from .models import ExportJob


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
