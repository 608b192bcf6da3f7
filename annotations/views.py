"""The word-alignment task.

Security behaviour: a worker opens and submits only their own alignment assignments (any other
id answers 404); the page needs a login and a worker profile.
"""

from django.contrib import messages
from django.shortcuts import redirect, render
from django.urls import reverse

from collector.models import Assignment, HitType
from collector.services import WorkRefused
from collector.views import own_assignment, worker_required

from . import services


@worker_required
def align(request, pk, worker):
    """Show the pair with its pre-alignment as an editable grid; POST stores the links."""
    assignment = own_assignment(pk, worker, HitType.Kind.ALIGNMENT)
    pair = assignment.hit.sentence_pair
    error = ""
    links = pair.pre_alignment
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
        "submitted": assignment.status == Assignment.Status.SUBMITTED,
    }
    return render(request, "annotations/align.html", context, status=400 if error else 200)
