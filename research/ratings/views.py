"""The rating task (workers) and the ratings pages (researchers and staff).

Security behaviour: a worker opens and submits only their own rating assignments (any other id
answers 404); the task needs a login and a worker profile, except the platform entrance, whose
submissions carry a signed token bound to worker and assignment. The ratings pages and the CSV
are for staff and researchers (a visitor is sent to log in, a worker gets 403); accepting or
rejecting ratings, which pays or refuses a worker, is for staff only. Judges are shown (in
both of the batch page's tables) and exported as "<platform>-<our id>" (``Worker.label``),
never by username.
"""

import csv

from django.contrib import messages
from django.http import StreamingHttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse

from crowd import entrance
from crowd.access import own_assignment, researcher_required, worker_required
from crowd.models import Assignment, HitType
from crowd.next_task import after_submit, shows_task
from crowd.services import WorkRefused
from paracrowd.charts import grouped_bars

from ..api import system_score_jobs_visible_to
from ..models import Rating, RatingBatch
from .batches import rating_batch_create
from .consensus import batch_consensus, consensus_csv_rows, with_texts
from .exports import ratings_csv_rows
from .forms import RatingBatchForm
from .selectors import batch_summary, batches_with_progress, system_means
from .services import rating_review_queue, rating_submit

RELATED = ("hit__item__ratingitem__batch", "hit__item__ratingitem__segment", "rating")
KIND = HitType.Kind.RATING

# What each scale asks and what each point means, in the order the page shows them.
SCALES = [
    (
        "semantic",
        "Meaning",
        "Does the second sentence say what the first one says?",
        [
            (4, "Same meaning: nothing added, nothing lost"),
            (3, "Mostly the same: a small detail is added, lost or changed"),
            (2, "Partly the same: something important is missing or different"),
            (1, "Different meaning, or it makes no sense"),
        ],
    ),
    (
        "dissimilarity",
        "Wording",
        "How differently is the second sentence worded?",
        [
            (4, "Reworded throughout: hardly a phrase is kept"),
            (3, "Largely reworded: several words or the word order changed"),
            (2, "Slightly reworded: one or two small changes"),
            (1, "Not reworded: the same sentence, or nearly"),
        ],
    ),
    (
        "overall",
        "Overall",
        "How good is the second sentence as a paraphrase: the same meaning, in new words, "
        "well written?",
        [
            (4, "Excellent: same meaning, clearly new wording, reads well"),
            (3, "Good: a small flaw in meaning, wording or fluency"),
            (2, "Weak: barely reworded, or the meaning drifts"),
            (1, "Unusable: a copy, another meaning, or hard to read"),
        ],
    ),
]


@worker_required
def rate(request, pk, worker):
    """The worker's own rating assignment ``pk``: the two sentences and the three scales; POST
    stores the ratings and goes straight on to the next item (or back to the dashboard)."""
    if request.method != "POST":
        return rate_page(request, pk, worker)
    assignment = own_assignment(pk, worker, KIND, related=RELATED)
    saved = _save(assignment, worker, request.POST)
    if isinstance(saved, bool):
        return after_submit(
            request,
            worker,
            assignment_id=assignment.pk,
            kind=KIND,
            tier=assignment.hit.tier,
            created=saved,
            thanks="Your rating was saved.",
        )
    return _own_rate_page(request, assignment, values=request.POST, error=saved)


@shows_task(KIND)
def rate_page(request, pk, worker):
    """The rating task page: empty scales, or the ratings sent once submitted."""
    assignment = own_assignment(pk, worker, KIND, related=RELATED)
    return _own_rate_page(request, assignment, values={})


def _own_rate_page(request, assignment, *, values, error=""):
    return _rate_page(
        request,
        assignment.hit,
        assignment=assignment,
        values=values,
        error=error,
        action=reverse("research:rate", args=[assignment.pk]),
    )


def _save(assignment, worker, values) -> bool | str:
    """Store the ratings: whether stored now (or before), or why nothing was stored."""
    try:
        _, created = rating_submit(assignment_id=assignment.pk, worker=worker, values=values)
    except WorkRefused as refusal:
        return str(refusal)
    return created


def _rate_page(request, hit, *, assignment, values, action, error="", hidden=None, preview=False):
    item = hit.item.ratingitem
    submitted = assignment is not None and assignment.status == Assignment.Status.SUBMITTED
    if submitted:
        values = {d: str(getattr(assignment.rating, d)) for d in Rating.DIMENSIONS}
    chosen = {d: str(values.get(d, "")) for d in Rating.DIMENSIONS}
    context = {
        "assignment": assignment,
        "hit": hit,
        "item": item,
        "segment": item.segment if item.batch.show_video else None,
        "pay_cents": hit.hit_type.pay_cents(hit.tier),
        "scales": [
            (name, title, question, [(str(n), text) for n, text in points], chosen[name])
            for name, title, question, points in SCALES
        ],
        "error": error,
        "action": action,
        "submitted": submitted,
        "preview": preview,
        "platform": bool(hidden) or preview,
        "hidden": hidden or {},
    }
    return render(request, "research/rate.html", context, status=400 if error else 200)


class _RatingTask(entrance.PlatformTask):
    kind = KIND
    related = RELATED

    def preview(self, request):
        hit = self.preview_hit("item__ratingitem__batch", "There are no paraphrases to rate yet.")
        action = reverse("research:platform_rate")
        return _rate_page(request, hit, assignment=None, values={}, action=action, preview=True)

    def show(self, request, assignment, *, hidden, values=None, error=""):
        return _rate_page(
            request,
            assignment.hit,
            assignment=assignment,
            values=values or {},
            error=error,
            action=reverse("research:platform_rate"),
            hidden=hidden,
        )

    def save(self, request, assignment, *, hidden):
        saved = _save(assignment, assignment.worker, request.POST)
        if isinstance(saved, bool):
            return saved
        return self.show(request, assignment, hidden=hidden, values=request.POST, error=saved)


@entrance.platform_page
def platform_rate(request):
    """The rating task as a crowd platform opens it (Mechanical Turk's ExternalQuestion, a
    Prolific study): anyone the platform sends may preview; an accepted platform assignment
    gets an item to rate, and after submitting goes straight back to the platform.

    Security behaviour: as every platform entrance (crowd.entrance): malformed ids answer 400,
    work none of our campaigns published 403 once a connector is configured, one platform
    assignment is one local assignment, and a POST needs the signed token bound to worker and
    assignment."""
    return entrance.enter(request, _RatingTask())


@researcher_required
def batches(request):
    """The rating batches with their progress, the mean ratings per system, and the form that
    makes a batch (its items are offered to judges at once)."""
    jobs = system_score_jobs_visible_to(request.user).filter(state="done").order_by("-id")
    form = RatingBatchForm(request.POST or None, request.FILES or None, jobs=jobs)
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        batch = rating_batch_create(
            name=data["name"],
            origin=data["origin"],
            language=data["language"],
            items=data["items"],
            created_by=request.user,
            system=data["system"],
            judges=data["judges"],
            show_video=data["show_video"],
        )
        messages.success(request, f"Batch {batch.name!r} is offered to judges.")
        return redirect("research:rating_batch", batch.pk)
    context = {
        "form": form,
        "batches": batches_with_progress()[:100],
        "systems": system_means(),
        "dimensions": Rating.DIMENSIONS,
    }
    status = 400 if request.method == "POST" else 200
    return render(request, "research/rating_batches.html", context, status=status)


@researcher_required
def batch(request, pk):
    """One batch: progress, mean ratings and agreement between judges per dimension, the
    judges' reliability and the items' consensus (Dawid–Skene), and (for staff) the ratings
    waiting for review."""
    rating_batch = get_object_or_404(RatingBatch, pk=pk)
    summary = batch_summary(rating_batch)
    chart = None
    if summary.rated:
        chart = grouped_bars(
            "Agreement between judges",
            list(Rating.DIMENSIONS),
            {
                "Pearson r": [summary.agreement[d].pearson for d in Rating.DIMENSIONS],
                "Krippendorff α": [summary.agreement[d].alpha for d in Rating.DIMENSIONS],
            },
        )
    consensus = batch_consensus(rating_batch)
    context = {
        "batch": rating_batch,
        "summary": summary,
        "consensus": consensus,
        "departing": with_texts(consensus.departing()) if consensus else [],
        "rows": [(d, summary.means[d], summary.agreement[d]) for d in Rating.DIMENSIONS],
        "chart": chart,
        "waiting": rating_review_queue(batch=rating_batch) if request.user.is_staff else [],
    }
    return render(request, "research/rating_batch.html", context)


class _Echo:
    """A file that hands back what is written to it, so the CSV writer's lines stream."""

    def write(self, value):
        return value


def _csv_response(rows, name: str) -> StreamingHttpResponse:
    writer = csv.writer(_Echo())
    lines = (writer.writerow(row) for row in rows)
    response = StreamingHttpResponse(lines, content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{name}"'
    return response


@researcher_required
def consensus_csv(request, pk):
    """Batch ``pk``'s items with each dimension's plain mean and Dawid–Skene consensus."""
    rating_batch = get_object_or_404(RatingBatch, pk=pk)
    return _csv_response(consensus_csv_rows(rating_batch), f"consensus-batch-{pk}.csv")


@researcher_required
def ratings_csv(request, pk=None):
    """The ratings (of batch ``pk``, or of every batch) as CSV, one row per rating, streamed."""
    rating_batch = get_object_or_404(RatingBatch, pk=pk) if pk is not None else None
    name = f"ratings-batch-{pk}.csv" if pk is not None else "ratings.csv"
    return _csv_response(ratings_csv_rows(rating_batch), name)
