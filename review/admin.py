from django.contrib import admin

from crowd.admin import ReadOnlyAdmin

from .models import OverviewReport, WorkerSignals


@admin.register(WorkerSignals)
class WorkerSignalsAdmin(ReadOnlyAdmin):
    list_display = ["worker", "descriptions", "languages", "flags", "computed_at"]
    search_fields = ["worker__user__username", "worker__external_id"]
    list_select_related = ["worker__user"]


@admin.register(OverviewReport)
class OverviewReportAdmin(ReadOnlyAdmin):
    list_display = ["since", "until", "state", "requested_at", "computed_at", "seconds"]
    list_filter = ["state"]
