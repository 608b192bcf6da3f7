"""The word-alignment task, and the agreement pages.

Security behaviour: a worker opens and submits only their own alignment assignments (any other
id answers 404); the page needs a login and a worker profile, except the platform entrance,
whose submissions carry a signed token bound to worker and assignment. The agreement table is
for staff and researchers; a pair's annotations and its trial gold are for staff only.
"""

from django.contrib import messages
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST

from crowd import entrance
from crowd.access import own_assignment, researcher_required, staff_required, worker_required
from crowd.models import Assignment, HitType
from crowd.next_task import after_submit, shows_task
from crowd.services import WorkRefused
from paracrowd.charts import grouped_bars
from paracrowd_metrics.alignment import format_pharaoh, parse_pharaoh

from . import services
from . import trial as trials
from .models import AgreementReport, SentencePair


def guidelines(request):
    """The alignment guidelines, with examples.

    Security behaviour: anyone may read them, signed in or not (platform workers open them from
    a framed task); the page shows no data of ours."""
    return render(request, "annotations/guidelines.html")


@worker_required
def align(request, pk, worker):
    """Show the pair with its pre-alignment as an editable grid; POST stores the links."""
    if request.method != "POST":
        return align_page(request, pk, worker)
    assignment = own_assignment(pk, worker, HitType.Kind.ALIGNMENT, related=RELATED)
    links = request.POST.get("links", "")
    saved = _save(assignment, worker, links, NOTHING_CORRESPONDS in request.POST)
    if isinstance(saved, bool):
        return after_submit(
            request,
            worker,
            assignment_id=assignment.pk,
            kind=HitType.Kind.ALIGNMENT,
            tier=assignment.hit.tier,
            created=saved,
            thanks="Your alignment was saved.",
        )
    return _own_align_page(request, assignment, links=links, error=saved)


@shows_task(HitType.Kind.ALIGNMENT)
def align_page(request, pk, worker):
    """The alignment task page: the pre-alignment, or what was sent once submitted."""
    assignment = own_assignment(pk, worker, HitType.Kind.ALIGNMENT, related=RELATED)
    return _own_align_page(request, assignment, links=None)


def _own_align_page(request, assignment, *, links, error=""):
    return _align_page(
        request,
        assignment.hit,
        assignment=assignment,
        links=links,
        error=error,
        action=reverse("annotations:align", args=[assignment.pk]),
    )


RELATED = ("hit__item__sentencepair", "alignment")
# The task page's box confirming that an alignment has no link on purpose.
NOTHING_CORRESPONDS = "nothing_corresponds"
TRIAL_ANSWERS_SHOWN = 10


def _save(assignment, worker, links, nothing_corresponds=False) -> bool | str:
    """Store the links: whether stored now (or before), or why nothing was stored."""
    try:
        _, created = services.alignment_submit(
            assignment_id=assignment.pk,
            worker=worker,
            links=links,
            nothing_corresponds=nothing_corresponds,
        )
    except WorkRefused as refusal:
        return str(refusal)
    return created


@worker_required
def trial(request, worker):
    """The alignment trial: the worker's next trial pair as an alignment grid (unpaid); POST
    stores their answer and, after the last pair, tells them whether they qualified.

    Security behaviour: a signed-in worker only; they see the pairs and their own progress,
    never the gold alignments or anyone else's answers. An answer is stored once per pair (a
    repeat changes nothing); a pair outside the trial set is refused with a message."""
    error, links = "", None
    if request.method == "POST":
        links = request.POST.get("links", "")
        try:
            status = trials.trial_answer_submit(
                worker=worker, pair_id=_int(request.POST.get("pair")), links=links
            )
        except WorkRefused as refusal:
            error = str(refusal)
        else:
            if status.next_pair is not None:
                return redirect("annotations:trial")
            _trial_outcome(request, status)
            return redirect("collector:dashboard")
    status = trials.trial_status(worker=worker)
    if status.qualified and not error:
        messages.info(request, "You already hold the word-alignment qualification.")
        return redirect("collector:dashboard")
    if status.next_pair is None:
        _trial_outcome(request, status)
        return redirect("collector:dashboard")
    pair = status.next_pair
    suggestion = services.pair_suggestion(pair)  # none: a trial tests the worker's own links
    context = {
        "trial": status,
        "pair": pair,
        "alignment_task": {
            "source": pair.tokens_a,
            "target": pair.tokens_b,
            "preAlignment": suggestion,
            "links": suggestion if links is None else links,
        },
        "error": error,
        "action": reverse("annotations:trial"),
        "hidden": {"pair": pair.pk},
    }
    return render(request, "annotations/align.html", context, status=400 if error else 200)


def _int(value) -> int:
    try:
        return int(value or "")
    except ValueError:
        raise WorkRefused("Choose a sentence pair; reload the page.") from None


def _trial_outcome(request, status) -> None:
    if not status.total:
        messages.info(request, "There is no alignment trial at the moment.")
    elif status.qualified:
        messages.success(
            request, f"Trial done (F1 {status.f1:.2f}). You may now take alignment tasks."
        )
    else:
        messages.warning(
            request,
            f"Trial done: your F1 was {status.f1:.2f}, below the {status.min_f1:.2f} needed. "
            "Alignment tasks stay closed to you; staff may review your answers.",
        )


def _align_page(request, hit, *, assignment, links, action, error="", hidden=None, preview=False):
    pair = hit.item.sentencepair
    submitted = assignment is not None and assignment.status == Assignment.Status.SUBMITTED
    suggestion = services.pair_suggestion(pair)  # none on a gold item
    if links is None:
        # A submitted task reopens read-only, showing what was submitted.
        links = assignment.alignment.links if submitted else suggestion
    context = {
        "assignment": assignment,
        "hit": hit,
        "pair": pair,
        "pay_cents": hit.hit_type.pay_cents(hit.tier),
        "alignment_task": {
            "source": pair.tokens_a,
            "target": pair.tokens_b,
            "preAlignment": suggestion,
            "links": links,
        },
        "error": error,
        "action": action,
        "submitted": submitted,
        "preview": preview,
        # Kept ticked when the page comes back with a refusal.
        "nothing_corresponds": request.method == "POST" and NOTHING_CORRESPONDS in request.POST,
        # A crowd platform's page: framed, no site header, the signed token instead of CSRF's.
        "platform": bool(hidden) or preview,
        "hidden": hidden or {},
    }
    return render(request, "annotations/align.html", context, status=400 if error else 200)


class _AlignmentTask(entrance.PlatformTask):
    kind = HitType.Kind.ALIGNMENT
    related = RELATED

    def preview(self, request):
        hit = self.preview_hit("item__sentencepair", "There are no sentence pairs to align yet.")
        action = reverse("annotations:platform_align")
        return _align_page(request, hit, assignment=None, links=None, action=action, preview=True)

    def show(self, request, assignment, *, hidden, links=None, error=""):
        return _align_page(
            request,
            assignment.hit,
            assignment=assignment,
            links=links,
            error=error,
            action=reverse("annotations:platform_align"),
            hidden=hidden,
        )

    def save(self, request, assignment, *, hidden):
        links = request.POST.get("links", "")
        saved = _save(assignment, assignment.worker, links, NOTHING_CORRESPONDS in request.POST)
        if isinstance(saved, bool):
            return saved
        return self.show(request, assignment, hidden=hidden, links=links, error=saved)


@entrance.platform_page
def platform_align(request):
    """The word-alignment task as a crowd platform opens it (Mechanical Turk's
    ExternalQuestion, a Prolific study): anyone the platform sends may preview; an accepted
    platform assignment gets a sentence pair to align, and after submitting goes straight back
    to the platform.

    Security behaviour: malformed ids answer 400 and an address bringing too many new workers
    429, storing nothing; with a platform connector configured, work that none of our
    published campaigns offers answers 403, and a campaign's tier is enforced. One platform
    assignment is one local assignment (a reload gives the same pair, or once submitted the way
    back to the platform; the same assignment id under another worker answers 403). A POST
    needs the signed token bound to worker and assignment. Only the platforms in
    PLATFORM_FRAME_ANCESTORS may frame it."""
    return entrance.enter(request, _AlignmentTask())


@researcher_required
def agreement(request):
    """The corpus agreement table as last computed, with the length plot."""
    report = AgreementReport.objects.filter(pk=1).first()
    table = report.table if report else None
    chart = None
    if table and table["by_length"]:
        rows = table["by_length"]
        chart = grouped_bars(
            "Agreement by length of the shorter sentence",
            [row["label"] for row in rows],
            {
                "observed π̂": [row["observed"] for row in rows],
                "chance π̂₀": [row["chance"] for row in rows],
                "Ĉ": [row["c_hat"] for row in rows],
            },
        )
    pairs = SentencePair.objects.filter(alignments__isnull=False).distinct().order_by("-pk")
    context = {
        "report": report,
        "table": table,
        "corpus_rows": [table["corpus"]] if table else [],
        "chart": chart,
        "pairs": pairs[:50],
    }
    return render(request, "annotations/agreement.html", context)


@staff_required
def pair_alignments(request, pk, *, gold_links=None, error=""):
    """One sentence pair's alignments side by side: the pre-alignment, the gold (for a trial
    pair) and each annotator's; with the form that makes it a trial pair."""
    pair = get_object_or_404(SentencePair, pk=pk)
    versions = [("Pre-alignment", parse_pharaoh(pair.pre_alignment))]
    if pair.is_trial:
        versions.append(("Gold (trial)", parse_pharaoh(pair.gold_links)))
    versions += [
        (alignment.annotator_name, parse_pharaoh(alignment.links))
        for alignment in pair.alignments.select_related("worker__user").order_by("created_at")
    ]
    # A trial pair is answered by every new annotator: show the latest few, not all.
    versions += [
        (f"Trial: {answer.worker.label}", parse_pharaoh(answer.links))
        for answer in pair.trial_answers.select_related("worker__user").order_by("-pk")[
            :TRIAL_ANSWERS_SHOWN
        ]
    ]
    grids = [
        (
            name,
            [
                [
                    "S" if (i, j) in links.sure else "P" if (i, j) in links.possible else ""
                    for j in range(len(pair.tokens_b))
                ]
                for i in range(len(pair.tokens_a))
            ],
        )
        for name, links in versions
    ]
    rows = [
        (word, [(name, grid[i]) for name, grid in grids]) for i, word in enumerate(pair.tokens_a)
    ]
    context = {
        "pair": pair,
        "names": [name for name, _ in grids],
        "rows": rows,
        "versions": [(name, format_pharaoh(links)) for name, links in versions],
        "gold_links": gold_links if gold_links is not None else _default_gold(pair, versions),
        "error": error,
    }
    return render(request, "annotations/pair.html", context, status=400 if error else 200)


def _default_gold(pair, versions) -> str:
    """What the gold form starts from: the gold itself, else the first annotation."""
    if pair.is_trial:
        return pair.gold_links
    annotated = [links for _, links in versions[1:]] or [versions[0][1]]
    return format_pharaoh(annotated[0])


@require_POST
@staff_required
def pair_trial(request, pk):
    """Put the pair in the alignment trial set with the gold alignment given (or replace its
    gold), or take it out.

    Security behaviour: staff only; bad links are refused with the reason and change
    nothing."""
    get_object_or_404(SentencePair, pk=pk)
    gold_links = request.POST.get("gold_links", "")
    try:
        if request.POST.get("action") == "remove":
            trials.trial_pair_unmark(pair_id=pk)
            messages.success(request, f"Pair {pk} is no longer a trial pair.")
        else:
            trials.trial_pair_mark(pair_id=pk, gold_links=gold_links)
            messages.success(request, f"Pair {pk} is a trial pair with the gold alignment given.")
    except WorkRefused as refusal:
        return pair_alignments(request, pk, gold_links=gold_links, error=str(refusal))
    return redirect("annotations:pair", pk)
