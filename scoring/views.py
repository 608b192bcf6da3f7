"""Score pages for staff: a cluster with its descriptions, and the corpus as a whole.

Security behaviour: staff only. Workers never see other workers' descriptions here (they could
copy them); their own scores are on their dashboard.
"""

from django.contrib.admin.views.decorators import staff_member_required
from django.shortcuts import get_object_or_404, render

from collector.models import Segment
from paracrowd.charts import grouped_bars

from . import reports
from .models import ClusterScore


@staff_member_required
def cluster(request, segment_id):
    """Every description of one segment, per language, with BLEU, PINC and cluster statistics."""
    segment = get_object_or_404(Segment, pk=segment_id)
    descriptions = segment.descriptions.select_related("score", "worker__user").order_by(
        "language", "-score__bleu", "id"
    )
    context = {
        "segment": segment,
        "descriptions": descriptions,
        "clusters": ClusterScore.objects.filter(segment=segment).order_by("-size"),
    }
    return render(request, "scoring/cluster.html", context)


@staff_member_required
def corpus(request):
    """Distributions of the scores, and leave-one-out BLEU against the number of references."""
    language = request.GET.get("language", "en")[:40]
    try:
        sample = max(1, min(int(request.GET.get("clusters", 100)), 2000))
    except ValueError:
        sample = 100
    curve = reports.bleu_by_reference_count(language=language, clusters=sample)
    context = {
        "language": language,
        "sample": sample,
        "summary": reports.corpus_summary(),
        "histograms": reports.score_distributions(language),
        "curve": curve,
        "curve_chart": grouped_bars(
            "Leave-one-out BLEU by number of references",
            [point.references for point in curve],
            {
                "mean sentence BLEU": [point.mean_bleu for point in curve],
                "corpus BLEU": [point.corpus_bleu for point in curve],
            },
            top=100,
        ),
    }
    return render(request, "scoring/corpus.html", context)
