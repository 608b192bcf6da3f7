from django.contrib import admin

from crowd.admin import ReadOnlyAdmin

from . import dead_letters
from .models import FailedTask, OverviewReport, WorkerSignals


@admin.register(WorkerSignals)
class WorkerSignalsAdmin(ReadOnlyAdmin):
    list_display = ["worker", "descriptions", "languages", "flags", "computed_at"]
    search_fields = ["worker__user__username", "worker__external_id"]
    list_select_related = ["worker__user"]


@admin.register(OverviewReport)
class OverviewReportAdmin(ReadOnlyAdmin):
    list_display = ["since", "until", "state", "requested_at", "computed_at", "seconds"]
    list_filter = ["state"]


@admin.register(FailedTask)
class FailedTaskAdmin(admin.ModelAdmin):
    """The dead letters: background tasks that failed for good. Staff may run them again or,
    once understood, delete them; nothing else changes them."""

    list_display = ["task", "arguments", "failures", "error", "first_failed_at", "last_failed_at"]
    list_filter = ["task"]
    search_fields = ["task", "error"]
    readonly_fields = [f.name for f in FailedTask._meta.fields]
    actions = ["run_again"]

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    @admin.action(description="Run the selected tasks again")
    def run_again(self, request, queryset):
        queued = dead_letters.failed_tasks_retry(
            failed_task_ids=queryset.values_list("pk", flat=True)
        )
        self.message_user(request, f"Queued {queued} task(s) again.")
