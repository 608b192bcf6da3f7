"""The word-alignment task, and the agreement pages.

Security behaviour: a worker opens and submits only their own alignment assignments (any other
id answers 404); the page needs a login and a worker profile. Agreement pages are staff only.
"""

from django.contrib import messages
from django.contrib.admin.views.decorators import staff_member_required
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse

from crowd.access import own_assignment, worker_required
from crowd.models import Assignment, HitType
from crowd.services import WorkRefused
from paracrowd.charts import grouped_bars
from scoring.metrics.alignment import parse_pharaoh

from . import services
from .models import AgreementReport, SentencePair


@worker_required
def align(request, pk, worker):
    """Show the pair with its pre-alignment as an editable grid; POST stores the links."""
    assignment = own_assignment(
        pk, worker, HitType.Kind.ALIGNMENT, related=("hit__item__sentencepair", "alignment")
    )
    pair = assignment.hit.item.sentencepair
    error = ""
    submitted = assignment.status == Assignment.Status.SUBMITTED
    # A submitted task reopens read-only, showing what was submitted.
    links = assignment.alignment.links if submitted else pair.pre_alignment
    if request.method == "POST":
        links = request.POST.get("links", "")
        try:
            _, created = services.alignment_submit(
                assignment_id=assignment.pk, worker=worker, links=links
            )
        except WorkRefused as refusal:
            error = str(refusal)
        else:
            messages.success(
                request,
                "Thank you! Your alignment was saved."
                if created
                else "You had already submitted this task; it was saved once.",
            )
            return redirect("collector:dashboard")
    context = {
        "assignment": assignment,
        "hit": assignment.hit,
        "pair": pair,
        "pay_cents": assignment.hit.hit_type.pay_cents(assignment.hit.tier),
        "alignment_task": {
            "source": pair.tokens_a,
            "target": pair.tokens_b,
            "preAlignment": pair.pre_alignment,
            "links": links,
        },
        "error": error,
        "action": reverse("annotations:align", args=[pk]),
        "submitted": submitted,
    }
    return render(request, "annotations/align.html", context, status=400 if error else 200)


@staff_member_required
def agreement(request):
    """The corpus agreement table as last computed, with the length plot."""
    report = AgreementReport.objects.filter(pk=1).first()
    table = report.table if report else None
    chart = None
    if table and table["by_length"]:
        rows = table["by_length"]
        chart = grouped_bars(
            "Agreement by length of the longer sentence",
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


@staff_member_required
def pair_alignments(request, pk):
    """One sentence pair's alignments side by side: the pre-alignment and each annotator's."""
    pair = get_object_or_404(SentencePair, pk=pk)
    versions = [("Pre-alignment", parse_pharaoh(pair.pre_alignment))] + [
        (alignment.annotator_name, parse_pharaoh(alignment.links))
        for alignment in pair.alignments.select_related("worker__user").order_by("created_at")
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
    context = {"pair": pair, "names": [name for name, _ in grids], "rows": rows}
    return render(request, "annotations/pair.html", context)
