"""Score pages for staff and researchers: a cluster with its descriptions, and the corpus as a
whole.

Security behaviour: staff and researchers only (a visitor is sent to log in, a worker gets
403). Workers never see other workers' descriptions here (they could copy them); their own
scores are on their dashboard. Asking for a reference curve is a POST protected by Django's
CSRF middleware.
"""

from urllib.parse import urlencode

from django.contrib import messages
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST

from collector.models import Description, Segment
from crowd.access import researcher_required
from paracrowd.charts import grouped_bars

from . import paraphrases, reports, services
from .forms import ReferenceCurveForm
from .models import ClusterScore, ParaphraseComparisonReport, ReferenceCurveReport


@researcher_required
def cluster(request, segment_id):
    """One segment's clusters (one per language): the scores over the accepted descriptions
    and those descriptions with theirs, then the work awaiting review and the rejected work,
    shown apart and counted in no cluster's scores."""
    segment = get_object_or_404(Segment, pk=segment_id)
    descriptions = segment.descriptions.select_related("score", "worker").order_by(
        "language", "-score__bleu", "id"
    )
    by_status = {status: [] for status in Description.Status.values}
    for description in descriptions:
        by_status[description.status].append(description)
    context = {
        "segment": segment,
        "accepted": by_status[Description.Status.ACCEPTED],
        "pending": by_status[Description.Status.PENDING],
        "rejected": by_status[Description.Status.REJECTED],
        "clusters": ClusterScore.objects.filter(segment=segment).order_by("-size", "language"),
        "min_size": ClusterScore.MIN_SIZE,
    }
    return render(request, "scoring/cluster.html", context)


@researcher_required
def corpus(request):
    """Distributions of the scores, and the last computed reference curve of the language and
    comparison of direct paraphrases with descriptions, with their computation times. Never
    scores anything: each is asked for with a POST (``reference_curve``,
    ``paraphrase_comparison``) and computed by a Celery worker."""
    language = request.GET.get("language", "en")[:40]
    of_language = ReferenceCurveReport.objects.filter(language=language)
    latest = of_language.order_by("-requested_at", "-pk").first()
    shown = latest
    if latest is None or latest.result is None:
        shown = of_language.filter(result__isnull=False).order_by("-computed_at").first()
    form = ReferenceCurveForm(
        initial={"language": language}
        if latest is None
        else {
            "language": language,
            "clusters": latest.clusters,
            "per_cluster": latest.per_cluster,
            "seed": latest.seed,
        }
    )
    curve = shown.result if shown else []
    context = {
        "language": language,
        "comparison": ParaphraseComparisonReport.objects.filter(language=language).first(),
        "summary": reports.corpus_summary(),
        "histograms": reports.score_distributions(language),
        "form": form,
        "latest": latest,
        "report": shown,
        "curve": curve,
        "curve_chart": grouped_bars(
            "Leave-one-out BLEU by number of references",
            [point["references"] for point in curve],
            {
                "mean sentence BLEU": [point["mean_bleu"] for point in curve],
                "corpus BLEU": [point["corpus_bleu"] for point in curve],
            },
            top=100,
            y_label="BLEU",
        )
        if curve
        else None,
    }
    return render(request, "scoring/corpus.html", context)


@require_POST
@researcher_required
def reference_curve(request):
    """Queue the reference curve for the sample chosen (or queue it again); a sample out of
    bounds is refused with a message and changes nothing."""
    form = ReferenceCurveForm(request.POST)
    if not form.is_valid():
        for field, errors in form.errors.items():
            label = form.fields[field].label if field in form.fields else ""
            messages.error(request, f"{label}: {' '.join(errors)}" if label else " ".join(errors))
        language = request.POST.get("language", "en")[:40]
        return redirect(f"{reverse('scoring:corpus')}?{_language_query(language)}")
    report = services.reference_curve_request(**form.cleaned_data)
    messages.success(request, f"Reference curve {report.state}: it will show here when computed.")
    return redirect(f"{reverse('scoring:corpus')}?{_language_query(report.language)}")


@require_POST
@researcher_required
def paraphrase_comparison(request):
    """Queue the comparison of direct paraphrases with descriptions for a language (or queue
    it again); a Celery worker computes it."""
    language = request.POST.get("language", "").strip()[:40]
    if not language:
        messages.error(request, "Choose a language.")
        return redirect("scoring:corpus")
    report = paraphrases.paraphrase_comparison_request(language=language)
    messages.success(request, f"Comparison {report.state}: it will show here when computed.")
    return redirect(f"{reverse('scoring:corpus')}?{_language_query(language)}")


def _language_query(language: str) -> str:
    return urlencode({"language": language})
