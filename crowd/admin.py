from django.contrib import admin
from django.db import transaction
from django.db.models import Count

from . import campaign_admin  # noqa: F401  (registers the campaign pages)
from .models import (
    Assignment,
    AuditEntry,
    GoldItem,
    Hit,
    HitType,
    LedgerEntry,
    Payout,
    Qualification,
    QualityCheck,
    QualityRule,
    Worker,
)
from .services import (
    ledger_entry_platform_payment,
    work_settings_delete,
    work_settings_save,
)


class ReadOnlyAdmin(admin.ModelAdmin):
    """Records written only by the services (so that every change is audited and paid once):
    the admin shows them and never changes them. Decisions are taken on the review pages."""

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


class WorkSettingsAdmin(admin.ModelAdmin):
    """Settings that decide what is asked of workers and how they are judged: every create,
    change and delete goes through the work-settings services, which audit-log it."""

    def save_model(self, request, obj, form, change):
        work_settings_save(record=obj, saved_by=request.user)

    def delete_model(self, request, obj):
        work_settings_delete(record=obj, deleted_by=request.user)

    def delete_queryset(self, request, queryset):
        # The list's "delete selected" action: one audit entry per record, as one by one, and
        # all of them or none.
        with transaction.atomic():
            for record in queryset:
                work_settings_delete(record=record, deleted_by=request.user)


class QualificationInline(admin.TabularInline):
    model = Qualification
    fk_name = "worker"
    extra = 0
    can_delete = False

    # Promote and demote on the review pages, which write the audit log.
    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    fields = [
        "kind",
        "tier",
        "granted_by",
        "granted_at",
        "reason",
        "revoked_by",
        "revoked_at",
        "revoke_reason",
    ]
    raw_id_fields = ["granted_by", "revoked_by"]


@admin.register(Worker)
class WorkerAdmin(admin.ModelAdmin):
    list_display = ["__str__", "platform", "external_id", "tier", "assignment_count", "created_at"]
    list_filter = ["platform", "created_at"]
    search_fields = ["user__username", "external_id", "user__email"]
    raw_id_fields = ["user"]
    readonly_fields = ["blocked_at"]
    inlines = [QualificationInline]

    def get_queryset(self, request):
        return (
            super()
            .get_queryset(request)
            .with_tier()
            .select_related("user")
            .annotate(assignment_count=Count("assignments"))
        )

    @admin.display(ordering="tier")
    def tier(self, worker):
        return worker.tier

    @admin.display(ordering="assignment_count", description="tasks taken")
    def assignment_count(self, worker):
        return worker.assignment_count


@admin.register(Qualification)
class QualificationAdmin(ReadOnlyAdmin):
    list_display = ["worker", "kind", "tier", "granted_by", "granted_at", "revoked_at"]
    list_filter = ["kind", "tier", "granted_at", "revoked_at"]
    search_fields = ["worker__user__username", "worker__external_id", "reason"]
    raw_id_fields = ["worker", "granted_by", "revoked_by"]


@admin.register(HitType)
class HitTypeAdmin(WorkSettingsAdmin):
    list_display = [
        "kind",
        "title",
        "pay_tier1_cents",
        "pay_tier2_cents",
        "target_tier1",
        "target_tier2",
        "assignment_duration",
        "auto_accept_after",
        "paste_allowed",
        "gold_percent",
    ]


@admin.register(Hit)
class HitAdmin(admin.ModelAdmin):
    list_display = [
        "id",
        "hit_type",
        "tier",
        "item",
        "opened_for",
        "submitted_count",
        "max_assignments",
    ]
    list_filter = ["hit_type", "tier"]
    search_fields = ["opened_for__user__username"]
    raw_id_fields = ["item", "opened_for"]
    list_select_related = ["hit_type", "item", "opened_for__user"]


@admin.register(Assignment)
class AssignmentAdmin(admin.ModelAdmin):
    list_display = ["id", "worker", "hit", "status", "accepted_at", "expires_at", "submitted_at"]
    list_filter = ["status", "hit__tier", "hit__hit_type", "accepted_at"]
    search_fields = ["worker__user__username", "worker__external_id", "external_assignment_id"]
    raw_id_fields = ["hit", "worker"]
    list_select_related = ["worker__user", "hit__hit_type", "hit__item"]
    date_hierarchy = "accepted_at"


@admin.register(AuditEntry)
class AuditEntryAdmin(ReadOnlyAdmin):
    list_display = ["at", "actor", "action", "worker", "reason"]
    list_filter = ["action", "at"]
    search_fields = ["reason", "worker__user__username", "worker__external_id"]
    list_select_related = ["actor", "worker__user"]
    date_hierarchy = "at"


@admin.register(LedgerEntry)
class LedgerEntryAdmin(ReadOnlyAdmin):
    list_display = [
        "created_at",
        "worker",
        "kind",
        "tier",
        "amount_cents",
        "source",
        "payout",
        "paid_on_platform",
    ]
    list_filter = ["kind", "tier", "created_at", "platform_payment__state"]
    search_fields = ["source", "reason", "worker__user__username", "worker__external_id"]
    list_select_related = ["worker__user", "payout", "platform_payment"]
    readonly_fields = ["paid_on_platform"]
    date_hierarchy = "created_at"

    @admin.display(description="paid by the platform")
    def paid_on_platform(self, entry):
        return ledger_entry_platform_payment(entry)


@admin.register(Payout)
class PayoutAdmin(ReadOnlyAdmin):
    list_display = ["created_at", "created_by", "through", "total_cents", "reason"]
    search_fields = ["reason"]


@admin.register(QualityRule)
class QualityRuleAdmin(WorkSettingsAdmin):
    """The warn and stop rule of each kind of quality check (see crowd.services.quality)."""

    list_display = ["check_kind", "warn_after", "stop_after", "window"]


@admin.register(GoldItem)
class GoldItemAdmin(ReadOnlyAdmin):
    list_display = ["id", "kind", "source", "created_by", "created_at", "retired_at"]
    list_filter = ["kind"]


@admin.register(QualityCheck)
class QualityCheckAdmin(ReadOnlyAdmin):
    list_display = ["id", "worker", "kind", "source", "passed", "score", "at"]
    list_filter = ["kind", "passed"]
    raw_id_fields = ["worker", "assignment"]
