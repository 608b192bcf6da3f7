from django.contrib import admin
from django.db.models import Count
from django.urls import reverse
from django.utils.html import format_html

from .models import (
    Assignment,
    AuditEntry,
    Description,
    Hit,
    HitType,
    LedgerEntry,
    Payout,
    Qualification,
    Segment,
    SegmentProposal,
    VideoFile,
    Worker,
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


@admin.register(Segment)
class SegmentAdmin(admin.ModelAdmin):
    list_display = [
        "id",
        "video_label",
        "start",
        "end",
        "source",
        "description_count",
        "created_at",
    ]
    list_filter = ["source", "created_at"]
    search_fields = ["youtube_id", "video_file", "title"]
    date_hierarchy = "created_at"

    def get_queryset(self, request):
        return super().get_queryset(request).annotate(description_count=Count("descriptions"))

    @admin.display(ordering="description_count", description="descriptions")
    def description_count(self, segment):
        return segment.description_count


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
    list_display = ["__str__", "platform", "external_id", "tier", "description_count", "created_at"]
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
            .annotate(description_count=Count("descriptions"))
        )

    @admin.display(ordering="tier")
    def tier(self, worker):
        return worker.tier

    @admin.display(ordering="description_count", description="descriptions")
    def description_count(self, worker):
        return worker.description_count


@admin.register(Qualification)
class QualificationAdmin(ReadOnlyAdmin):
    list_display = ["worker", "tier", "granted_by", "granted_at", "revoked_at"]
    list_filter = ["tier", "granted_at", "revoked_at"]
    search_fields = ["worker__user__username", "worker__external_id", "reason"]
    raw_id_fields = ["worker", "granted_by", "revoked_by"]


@admin.register(HitType)
class HitTypeAdmin(admin.ModelAdmin):
    list_display = [
        "kind",
        "title",
        "pay_tier1_cents",
        "pay_tier2_cents",
        "target_tier1",
        "target_tier2",
        "assignment_duration",
        "auto_accept_after",
    ]


@admin.register(Hit)
class HitAdmin(admin.ModelAdmin):
    list_display = [
        "id",
        "hit_type",
        "tier",
        "segment",
        "proposer",
        "submitted_count",
        "max_assignments",
    ]
    list_filter = ["hit_type", "tier"]
    search_fields = ["segment__youtube_id", "proposer__user__username"]
    raw_id_fields = ["segment", "sentence_pair", "proposer"]
    list_select_related = ["hit_type", "segment", "proposer__user"]


@admin.register(Assignment)
class AssignmentAdmin(admin.ModelAdmin):
    list_display = ["id", "worker", "hit", "status", "accepted_at", "expires_at", "submitted_at"]
    list_filter = ["status", "hit__tier", "hit__hit_type", "accepted_at"]
    search_fields = ["worker__user__username", "worker__external_id", "external_assignment_id"]
    raw_id_fields = ["hit", "worker"]
    list_select_related = ["worker__user", "hit__hit_type", "hit__segment"]
    date_hierarchy = "accepted_at"


@admin.register(Description)
class DescriptionAdmin(admin.ModelAdmin):
    list_display = [
        "id",
        "text",
        "language",
        "worker",
        "tier",
        "status",
        "segment",
        "time_spent",
        "created_at",
    ]
    list_filter = ["status", "tier", "language", "created_at"]
    search_fields = ["text", "worker__user__username", "worker__external_id", "segment__youtube_id"]
    raw_id_fields = ["segment", "assignment", "worker"]
    # Accept and reject on the review pages, which pay and audit.
    readonly_fields = ["status", "reviewed_by", "reviewed_at", "review_reason"]
    list_select_related = ["worker__user", "segment", "score"]
    date_hierarchy = "created_at"

    @admin.display(ordering="score__bleu", description="BLEU")
    def bleu(self, description):
        return _score(description, "bleu")

    @admin.display(ordering="score__pinc", description="PINC")
    def pinc(self, description):
        return _score(description, "pinc")

    @admin.display(ordering="segment", description="segment")
    def segment_link(self, description):
        url = reverse("scoring:cluster", args=[description.segment_id])
        return format_html('<a href="{}">{}</a>', url, description.segment)


@admin.register(SegmentProposal)
class SegmentProposalAdmin(admin.ModelAdmin):
    """Read only: decisions are made on the review page, which records them in full."""

    list_display = [
        "id",
        "youtube_id",
        "start",
        "end",
        "event",
        "worker",
        "tier",
        "status",
        "reviewed_by",
        "pay_cents",
        "created_at",
        "review_link",
    ]
    list_filter = ["status", "tier", "reasons", "created_at"]
    search_fields = ["youtube_id", "event", "worker__user__username", "review_note"]
    list_select_related = ["worker__user", "reviewed_by"]
    date_hierarchy = "created_at"

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False

    @admin.display(description="review")
    def review_link(self, proposal):
        url = reverse("segment_review:proposal", args=[proposal.pk])
        return format_html('<a href="{}">open</a>', url)


@admin.register(VideoFile)
class VideoFileAdmin(admin.ModelAdmin):
    list_display = ["id", "title", "file", "uploaded_by", "uploaded_at", "cut_link"]
    search_fields = ["title", "file"]
    raw_id_fields = ["uploaded_by"]
    date_hierarchy = "uploaded_at"

    @admin.display(description="segments")
    def cut_link(self, video):
        url = reverse("segment_review:video", args=[video.pk])
        return format_html('<a href="{}">cut segments</a>', url)


def _score(description, name):
    value = getattr(getattr(description, "score", None), name, None)
    return "—" if value is None else f"{value:.1f}"


@admin.register(AuditEntry)
class AuditEntryAdmin(ReadOnlyAdmin):
    list_display = ["at", "actor", "action", "worker", "reason"]
    list_filter = ["action", "at"]
    search_fields = ["reason", "worker__user__username", "worker__external_id"]
    list_select_related = ["actor", "worker__user"]
    date_hierarchy = "at"


@admin.register(LedgerEntry)
class LedgerEntryAdmin(ReadOnlyAdmin):
    list_display = ["created_at", "worker", "kind", "tier", "amount_cents", "source", "payout"]
    list_filter = ["kind", "tier", "created_at"]
    search_fields = ["source", "reason", "worker__user__username", "worker__external_id"]
    list_select_related = ["worker__user", "payout"]
    date_hierarchy = "created_at"


@admin.register(Payout)
class PayoutAdmin(ReadOnlyAdmin):
    list_display = ["created_at", "created_by", "through", "total_cents", "reason"]
    search_fields = ["reason"]
