"""Staff pages for curating segments: the review queue of proposed segments, and uploaded videos
to cut segments from.

Security behaviour, for every view here: staff only (a visitor is sent to log in, others get 403);
every change is a POST checked by Django's CSRF protection, and records who made it.
"""

from django.contrib import messages
from django.core.paginator import Paginator
from django.db.models import Count, OuterRef, Subquery
from django.db.models.functions import Coalesce
from django.shortcuts import get_object_or_404, redirect, render

from collector import services
from collector.models import Segment, SegmentProposal, VideoFile
from collector.spans import LengthRule, format_time
from crowd.access import staff_required

from .forms import ProposalReviewForm, SegmentCutForm, VideoUploadForm

PAGE_SIZE = 50


@staff_required
def queue(request):
    """Proposals of one status (pending by default, oldest first) with the count of each."""
    status = request.GET.get("status", SegmentProposal.Status.PENDING)
    if status not in SegmentProposal.Status.values:
        status = SegmentProposal.Status.PENDING
    order = "created_at" if status == SegmentProposal.Status.PENDING else "-reviewed_at"
    proposals = (
        SegmentProposal.objects.filter(status=status)
        .select_related("worker__user", "reviewed_by")
        .order_by(order, "id")
    )
    counts = dict.fromkeys(SegmentProposal.Status.values, 0)
    counts.update(SegmentProposal.objects.values_list("status").annotate(n=Count("id")).order_by())
    context = {
        "status": status,
        "statuses": [
            (value, label, counts[value]) for value, label in SegmentProposal.Status.choices
        ],
        "page": Paginator(proposals, PAGE_SIZE).get_page(request.GET.get("page")),
    }
    return render(request, "segment_review/queue.html", context)


@staff_required
def proposal(request, pk):
    """One proposal: play it, then approve it or reject it with reasons (POST). After a
    decision the reviewer is taken to the next pending proposal."""
    proposal = get_object_or_404(
        SegmentProposal.objects.select_related("worker__user", "reviewed_by", "segment"), pk=pk
    )
    form = ProposalReviewForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        decision = request.POST.get("decision")
        reasons, note = form.cleaned_data["reasons"], form.cleaned_data["note"]
        try:
            if decision == "approve":
                if reasons:
                    raise services.WorkRefused(
                        "You ticked reasons for rejecting. Untick them to approve, or reject."
                    )
                services.proposal_approve(proposal_id=pk, reviewer=request.user, note=note)
            elif decision == "reject":
                services.proposal_reject(
                    proposal_id=pk, reviewer=request.user, reasons=reasons, note=note
                )
            else:
                raise services.WorkRefused("Approve or reject.")
        except services.WorkRefused as refusal:
            form.add_error(None, str(refusal))
        else:
            times = f"{format_time(proposal.start)}–{format_time(proposal.end)}"
            span = f"{proposal.youtube_id} {times}"
            if decision == "approve":
                messages.success(request, f"Approved {span}: it is now offered for description.")
            else:
                messages.info(request, f"Rejected {span}.")
            pending = SegmentProposal.objects.pending().exclude(pk=pk)
            following = pending.order_by("created_at", "id").first()
            if following:
                return redirect("segment_review:proposal", following.pk)
            return redirect("segment_review:queue")
    context = {
        "proposal": proposal,
        "form": form,
        "pending": SegmentProposal.objects.pending().count(),
        "corpus_segments": Segment.objects.filter(
            source=Segment.Source.YOUTUBE, youtube_id=proposal.youtube_id
        ).order_by("start"),
        "other_proposals": SegmentProposal.objects.filter(youtube_id=proposal.youtube_id)
        .exclude(pk=pk)
        .order_by("start"),
    }
    return render(request, "segment_review/proposal.html", context)


@staff_required
def videos(request):
    """Uploaded videos, newest first, and the upload form (POST, kept in the default storage)."""
    form = VideoUploadForm(request.POST or None, request.FILES or None)
    if request.method == "POST" and form.is_valid():
        video = services.video_upload(
            file=form.cleaned_data["file"],
            title=form.cleaned_data["title"],
            uploaded_by=request.user,
        )
        messages.success(request, f"Uploaded “{video.title}”. Now cut segments from it.")
        return redirect("segment_review:video", video.pk)
    segments = (
        Segment.objects.filter(source=Segment.Source.FILE, video_file=OuterRef("file"))
        .order_by()
        .values("video_file")
        .annotate(n=Count("id"))
        .values("n")
    )
    uploaded = VideoFile.objects.select_related("uploaded_by").annotate(
        segment_count=Coalesce(Subquery(segments), 0)
    )
    context = {
        "form": form,
        "page": Paginator(uploaded.order_by("-uploaded_at", "-id"), PAGE_SIZE).get_page(
            request.GET.get("page")
        ),
    }
    return render(request, "segment_review/videos.html", context)


@staff_required
def video(request, pk):
    """Cut segments from one uploaded video with the marking tool; each POST adds a segment,
    offered for description in both tiers."""
    video = get_object_or_404(VideoFile, pk=pk)
    form = SegmentCutForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            segment = services.segment_cut(
                video=video,
                start=form.cleaned_data["start"],
                end=form.cleaned_data["end"],
                title=form.cleaned_data["title"],
            )
        except services.WorkRefused as refusal:
            form.add_error(None, str(refusal))
        else:
            messages.success(
                request,
                f"Added {format_time(segment.start)}–{format_time(segment.end)}: it is now "
                "offered for description.",
            )
            return redirect("segment_review:video", pk)
    context = {
        "video": video,
        "form": form,
        "segments": video.segments.annotate(description_count=Count("descriptions")).order_by(
            "start"
        ),
        "rules": LengthRule.from_settings().as_json(),
    }
    return render(request, "segment_review/video.html", context)
