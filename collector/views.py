"""Worker-facing pages: sign-up, dashboard, the video-description and video-collection tasks.

Security behaviour, for every view here: a worker sees and acts on their own assignments only
(another worker's assignment id answers 404); local pages need a login; pages for crowd-platform
workers authenticate each submission with a signed token bound to that worker and assignment.
"""

import functools

from django.conf import settings
from django.contrib import messages
from django.core.exceptions import ValidationError
from django.http import JsonResponse
from django.shortcuts import render
from django.template.loader import render_to_string
from django.urls import reverse

from crowd import entrance
from crowd import services as crowd
from crowd.access import own_assignment, worker_required
from crowd.models import Assignment, HitType, Tier
from crowd.next_task import after_submit, shows_task

from . import selectors, services
from .forms import DescriptionForm, ProposalForm
from .models import Description
from .spans import LengthRule, format_time
from .validators import SECOND_SENTENCE, URL
from .youtube import parse_youtube_link


@worker_required
def dashboard(request, worker):
    """A worker's own counts, earnings (from the ledger), bonuses, standing, recent work with
    review reasons, and the next-task buttons. Only their own data."""
    return render(request, "collector/dashboard.html", selectors.worker_dashboard(worker))


@worker_required
def describe(request, pk, worker):
    """The description task for the worker's own assignment ``pk``; POST submits it."""
    # No form object for a page that shows the empty form: its fields are rendered already.
    form = DescriptionForm(request.POST) if request.method == "POST" else None
    if form is not None:
        # The service finds the worker's own assignment itself, so a good submission costs no
        # look-up here; a refused one (another worker's task included) is shown below.
        result = _submit(pk, worker, form)
        if result is not None:
            description, created = result
            return after_submit(
                request,
                worker,
                assignment_id=pk,
                kind=HitType.Kind.DESCRIPTION,
                tier=description.tier,
                created=created,
                thanks="Your description was saved.",
            )
    return describe_page(request, pk, worker, form)


@shows_task(HitType.Kind.DESCRIPTION)
def describe_page(request, pk, worker, form=None):
    """The description task page, with ``form``'s errors when a submission was refused."""
    assignment = _own_task(pk, worker, HitType.Kind.DESCRIPTION)
    return _render_task(request, assignment, form, action=reverse("collector:describe", args=[pk]))


@worker_required
def propose(request, pk, worker):
    """The video-collection task for the worker's own assignment ``pk``: find a YouTube video,
    mark a segment, say what happens. POST submits it for review."""
    if request.method != "POST":
        return propose_page(request, pk, worker)
    assignment = _own_task(pk, worker, HitType.Kind.VIDEO_COLLECTION)
    form = ProposalForm(request.POST)
    created = _propose(assignment, worker, form)
    if created is None:
        return _own_proposal_page(request, assignment, form)
    return after_submit(
        request,
        worker,
        assignment_id=assignment.pk,
        kind=HitType.Kind.VIDEO_COLLECTION,
        tier=assignment.hit.tier,
        created=created,
        thanks="Your segment was sent for review.",
    )


@shows_task(HitType.Kind.VIDEO_COLLECTION)
def propose_page(request, pk, worker):
    """The video-collection task page: an empty form, or what was sent once submitted."""
    assignment = _own_task(pk, worker, HitType.Kind.VIDEO_COLLECTION)
    if assignment.status != Assignment.Status.SUBMITTED:
        return _own_proposal_page(request, assignment, ProposalForm())
    proposal = assignment.proposal
    messages.info(request, "You already submitted this segment; it is waiting for review.")
    form = ProposalForm(
        initial={
            "url": f"https://youtu.be/{proposal.youtube_id}",
            "start": format_time(proposal.start),
            "end": format_time(proposal.end),
            "event": proposal.event,
        }
    )
    return _own_proposal_page(request, assignment, form)


def _own_proposal_page(request, assignment, form):
    return _proposal_page(
        request,
        form,
        assignment=assignment,
        hit_type=assignment.hit.hit_type,
        tier=assignment.hit.tier,
        action=reverse("collector:propose", args=[assignment.pk]),
    )


def _propose(assignment, worker, form) -> bool | None:
    """Validate and store a proposal; on refusal, attach the reason to the form. Whether it
    was stored now (or before), or None when nothing was stored."""
    if not form.is_valid():
        return None
    try:
        _, created = services.proposal_submit(
            assignment_id=assignment.pk,
            worker=worker,
            youtube_id=form.cleaned_data["url"].video_id,
            start=form.cleaned_data["start"],
            end=form.cleaned_data["end"],
            event=form.cleaned_data["event"],
        )
    except crowd.WorkRefused as refusal:
        form.add_error(None, str(refusal))
        return None
    return created


def _proposal_page(
    request, form, *, assignment, hit_type, tier, action, hidden=None, preview=False
):
    context = {
        "assignment": assignment,
        "tier": tier,
        "form": form,
        "submitted": assignment is not None and assignment.status == Assignment.Status.SUBMITTED,
        "preview": preview,
        # A crowd platform's page: framed, no site header, the signed token instead of CSRF's.
        "platform": bool(hidden) or preview,
        "action": action,
        "hidden": hidden or {},
        "pay_cents": hit_type.pay_cents(tier),
        "rules": {
            **LengthRule.from_settings().as_json(),
            "videoLinkUrl": reverse("collector:video_link"),
        },
    }
    return render(request, "collector/propose.html", context)


def video_link(request):
    """The video id and start time of a pasted YouTube link, as JSON, so that the marking tool
    loads the video the server will accept. Anyone, platform workers (who have no login)
    included: it only parses the link, and reads and stores nothing."""
    try:
        link = parse_youtube_link(request.GET.get("url", ""))
    except ValidationError as error:
        return JsonResponse({"error": error.messages[0]}, status=400)
    start = float(link.start) if link.start is not None else None
    return JsonResponse({"videoId": link.video_id, "start": start, "url": link.url})


class _DescriptionTask(entrance.PlatformTask):
    kind = HitType.Kind.DESCRIPTION
    related = ("hit__item__segment",)

    def preview(self, request):
        hit = self.preview_hit("item__segment", "There are no segments to describe yet.")
        context = _task_context(hit, DescriptionForm(), preview=True)
        return render(request, "collector/describe.html", {**context, "platform": True})

    def show(self, request, assignment, *, hidden, form=None):
        action = reverse("collector:platform_describe")
        context = _task_context(
            assignment.hit,
            form or DescriptionForm(),
            assignment=assignment,
            action=action,
            hidden=hidden,
        )
        return render(request, "collector/describe.html", {**context, "platform": True})

    def save(self, request, assignment, *, hidden):
        form = DescriptionForm(request.POST)
        result = _submit(assignment.pk, assignment.worker, form)
        if result is None:
            return self.show(request, assignment, hidden=hidden, form=form)
        return result[1]


class _CollectionTask(entrance.PlatformTask):
    kind = HitType.Kind.VIDEO_COLLECTION
    related = ("proposal",)

    def preview(self, request):
        return self._page(request, ProposalForm(), assignment=None, preview=True)

    def show(self, request, assignment, *, hidden, form=None):
        return self._page(request, form or ProposalForm(), assignment=assignment, hidden=hidden)

    def save(self, request, assignment, *, hidden):
        form = ProposalForm(request.POST)
        created = _propose(assignment, assignment.worker, form)
        if created is None:
            return self.show(request, assignment, hidden=hidden, form=form)
        return created

    def _page(self, request, form, *, assignment, hidden=None, preview=False):
        hit_type = HitType.objects.for_kind(self.kind)
        return _proposal_page(
            request,
            form,
            assignment=assignment,
            hit_type=hit_type,
            tier=assignment.hit.tier if assignment else Tier.ONE,
            action=reverse("collector:platform_collect"),
            hidden=hidden,
            preview=preview,
        )


@entrance.platform_page
def platform_describe(request):
    """The description task as a crowd platform opens it (Mechanical Turk's ExternalQuestion,
    a Prolific study): anyone the platform sends may preview; an accepted platform assignment
    gets a real task, and after submitting goes straight back to the platform.

    Security behaviour: malformed ids answer 400 and an address bringing too many new workers
    429, storing nothing; with a platform connector configured, work that none of our
    published campaigns offers answers 403, and a campaign's tier is enforced. One platform
    assignment is one local assignment: a reload gives the same task (or, once submitted, the
    way back to the platform), and the same assignment id under another worker answers 403.
    A POST needs the signed token bound to worker and assignment. Only the platforms in
    PLATFORM_FRAME_ANCESTORS may frame it."""
    return entrance.enter(request, _DescriptionTask())


@entrance.platform_page
def platform_collect(request):
    """The video-collection task as a crowd platform opens it: each accepted platform
    assignment opens a HIT of its own, and the worker proposes a YouTube segment for review.

    Security behaviour: as ``platform_describe`` — malformed ids 400, too many new workers
    from one address 429, work no published campaign offers 403, one local assignment per
    platform assignment (another worker with the same assignment id: 403), POSTs only with
    the signed token bound to worker and assignment, framed only by known platforms."""
    return entrance.enter(request, _CollectionTask())


def _own_task(pk, worker, kind):
    related = {
        HitType.Kind.DESCRIPTION: ("hit__item__segment",),
        HitType.Kind.VIDEO_COLLECTION: ("proposal",),
    }[kind]
    return own_assignment(pk, worker, kind, related=related)


def _submit(assignment_id, worker, form):
    """Validate and store; on refusal, attach the reason to the form. ``(description,
    created)``, or None when nothing was stored."""
    if not form.is_valid():
        return None
    try:
        description, created = services.description_submit(
            assignment_id=assignment_id,
            worker=worker,
            text=form.cleaned_data["text"],
            language=form.declared_language,
            comment=form.cleaned_data["comment"],
            typing=form.cleaned_data["typing"],
        )
    except crowd.WorkRefused as refusal:
        form.show_refusal(refusal)
        return None
    return description, created


def _task_context(hit, form, *, assignment=None, preview=False, action="", hidden=None):
    return {
        "hit": hit,
        "segment": hit.item.segment,
        "assignment": assignment,
        "form": form,
        # A form not yet sent (None, or unbound) looks the same on every task page.
        "form_fields": _blank_form_fields() if form is None or not form.is_bound else None,
        "pay_cents": hit.hit_type.pay_cents(hit.tier),
        "preview": preview,
        "action": action,
        "hidden": hidden or {},
        "paste_allowed": hit.hit_type.paste_allowed,
        "rules": {
            "maxLength": settings.DESCRIPTION_MAX_LENGTH,
            "secondSentence": SECOND_SENTENCE.pattern,
            "url": URL.pattern,
        },
    }


@functools.cache
def _blank_form_fields() -> str:
    """The description form's fields, empty, rendered once per process: they were a third of
    the task page's rendering, and are the same for every worker and segment."""
    return render_to_string("collector/sentence_fields.html", {"form": DescriptionForm()})


def _render_task(request, assignment, form, *, action, hidden=None):
    context = _task_context(
        assignment.hit, form, assignment=assignment, action=action, hidden=hidden
    )
    if assignment.status == Assignment.Status.SUBMITTED:
        # Reopened after submitting: show what was sent, not an empty form and a countdown.
        context["submitted"] = Description.objects.filter(assignment=assignment).first()
    return render(request, "collector/describe.html", context)
