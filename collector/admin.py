from django.contrib import admin
from django.db.models import Count
from django.urls import reverse
from django.utils.html import format_html

from crowd.admin import ReadOnlyAdmin

from .models import Description, Paraphrase, ParaphraseSource, Segment, SegmentProposal, VideoFile


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


@admin.register(SegmentProposal)
class SegmentProposalAdmin(ReadOnlyAdmin):
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
    search_fields = ["youtube_id", "event", "worker__user__username", "review_reason"]
    list_select_related = ["worker__user", "reviewed_by"]
    date_hierarchy = "created_at"

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


@admin.register(ParaphraseSource)
class ParaphraseSourceAdmin(ReadOnlyAdmin):
    """Sentences are chosen on the staff page or with choose_paraphrase_sentences."""

    list_display = ["text", "language", "origin", "segment", "created_at"]
    list_filter = ["origin", "language"]
    search_fields = ["text"]


@admin.register(Paraphrase)
class ParaphraseAdmin(ReadOnlyAdmin):
    list_display = ["text", "worker", "tier", "status", "pinc", "created_at"]
    list_filter = ["status", "tier", "language"]
    search_fields = ["text"]
