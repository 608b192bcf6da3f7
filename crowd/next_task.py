"""Going on to the next task, for every kind: the dashboard's buttons, *Skip*, and *submit and
next* on each task page all end here, so a worker always lands on the same task for the same
request.

A worker who holds an open task of the kind is given it back (continue where you left off):
the one in the tier asked for, else a new one there, else the one held in another tier.

The answer is the task's page itself, not a redirect to it: one request where a redirect made
the browser send two, on the path every task of a crowd takes. The page names its own address
(``request.page_address``, a canonical link in base.html) and static/js/page-address.js puts it
in the address bar, so reloading or bookmarking opens the task, never the form again. The pages
belong to the apps that collect each kind of work: each registers the view that shows its page
(``shows_task``), so this module names them without importing them.
"""

from collections.abc import Callable

from django.contrib import messages
from django.shortcuts import redirect
from django.urls import reverse

from . import services
from .models import HitType

# Where each kind of task is done, and what runs out when there is none left.
TASK_PAGES = {
    HitType.Kind.DESCRIPTION: ("collector:describe", "segments to describe"),
    HitType.Kind.ALIGNMENT: ("annotations:align", "sentence pairs to align"),
    HitType.Kind.VIDEO_COLLECTION: ("collector:propose", "video-collection tasks"),
    HitType.Kind.RATING: ("research:rate", "paraphrases to rate"),
    HitType.Kind.PARAPHRASE: ("collector:paraphrase", "sentences to paraphrase"),
}
DASHBOARD = "collector:dashboard"
# The second submit button of a task page: save, then back to the dashboard.
STOP = ("then", "dashboard")

# kind -> view(request, pk, worker) showing the worker's own assignment pk, as a GET of its page
# does. Filled as the apps' view modules are imported, which resolving any URL does first.
_PAGE_VIEWS: dict[str, Callable] = {}


def shows_task(kind):
    """Register the decorated view as the one showing a task of ``kind``."""

    def register(view):
        _PAGE_VIEWS[kind] = view
        return view

    return register


def task_page(assignment) -> str:
    """The address of the page where ``assignment`` is done."""
    return reverse(TASK_PAGES[assignment.hit.hit_type.kind][0], args=[assignment.pk])


def next_task(request, worker, *, kind, tier):
    """Answer with the worker's next task of ``kind``: the one they hold, else a new one in
    ``tier``; redirect to the dashboard, saying why, when there is none."""
    items = TASK_PAGES[kind][1]
    try:
        # Gives back what the worker holds of this kind in this tier, in the same round trip.
        assignment = services.assignment_claim(worker=worker, tier=tier, kind=kind)
    except services.WorkRefused as refusal:
        messages.error(request, str(refusal))
        return redirect(DASHBOARD)
    if assignment is None:
        # Nothing new in this tier, but a task of the kind held in the other one is theirs.
        assignment = services.assignments_held(worker=worker, kind=kind).first()
    if assignment is None:
        messages.info(request, f"There are no Tier-{tier} {items} left for you. Thank you!")
        return redirect(DASHBOARD)
    return show_task(request, worker, assignment.pk, kind=kind)


def show_task(request, worker, pk, *, kind):
    """The page of the worker's own assignment ``pk`` of ``kind``, answered to whatever request
    led to it."""
    request.page_address = reverse(TASK_PAGES[kind][0], args=[pk])
    return _PAGE_VIEWS[kind](request, pk, worker)


def draft_stored(request, assignment_id: int) -> None:
    """Say on the page answering ``request`` that the worker's work on ``assignment_id`` is
    stored (or given up): static/js/drafts.js then forgets the draft it kept in the browser."""
    request.draft_stored = f"assignment:{assignment_id}"


def after_submit(request, worker, *, assignment_id, kind, tier, created, thanks):
    """Submit and next: after saving ``assignment_id``, a task of ``kind`` in ``tier``, thank
    the worker (``thanks``, when it was ``created`` now rather than sent before) and answer with
    the next one like it, or the dashboard when the worker pressed the page's second button
    (``STOP``)."""
    draft_stored(request, assignment_id)
    if created:
        messages.success(request, f"Thank you! {thanks}")
    else:
        messages.info(request, "You had already submitted this task; it was saved once.")
    if request.POST.get(STOP[0]) == STOP[1]:
        return redirect(DASHBOARD)
    return next_task(request, worker, kind=kind, tier=tier)
