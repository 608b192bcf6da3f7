"""Corpus views of the scores: distributions, and BLEU against the number of references."""

import random
from dataclasses import dataclass

from django.db.models import Count, Q, Sum

import paracrowd_metrics as metrics
from collector.models import Description
from collector.selectors import cluster_descriptions
from paracrowd.charts import Histogram, bar_chart, histogram

from .models import ClusterScore, DescriptionScore

REFERENCE_COUNTS = (1, 2, 4, 8, 16, None)  # None: every other member


def score_distributions(language: str | None = None) -> list[Histogram]:
    """Histograms of the accepted descriptions' scores and of the clusters' sizes (accepted
    descriptions): what the clusters are scored over, without the work awaiting review."""
    descriptions = DescriptionScore.objects.filter(description__status=Description.Status.ACCEPTED)
    clusters = ClusterScore.objects.all()
    if language:
        descriptions = descriptions.filter(description__language=language)
        clusters = clusters.filter(language=language)
    sizes = clusters.values("size").annotate(n=Count("*")).order_by("size")
    size_counts = {row["size"]: row["n"] for row in sizes}
    largest = max(size_counts, default=0)
    step = max(1, -(-largest // 30))  # at most 30 bars
    size_bins = [
        sum(size_counts.get(s, 0) for s in range(start, start + step))
        for start in range(1, largest + 1, step)
    ]
    return [
        histogram(
            "Leave-one-out BLEU of each description",
            descriptions,
            "bleu",
            low=0,
            high=100,
            bins=20,
            x_label="BLEU",
            y_label="descriptions",
        ),
        histogram(
            "Mean PINC of each description",
            descriptions,
            "pinc",
            low=0,
            high=100,
            bins=20,
            x_label="PINC",
            y_label="descriptions",
        ),
        bar_chart(
            "Cluster sizes (accepted descriptions per segment and language)",
            size_bins,
            [str(start) for start in range(1, largest + 1, step)],
            x_label="accepted descriptions in the cluster",
            y_label="clusters",
        ),
    ]


@dataclass(frozen=True)
class ReferenceCurvePoint:
    references: str
    mean_bleu: float | None
    corpus_bleu: float | None
    sentences: int


def bleu_by_reference_count(
    *, language: str = "en", clusters: int = 100, per_cluster: int = 3, seed: int = 0
) -> list[ReferenceCurvePoint]:
    """Leave-one-out BLEU with 1, 2, 4, 8, 16 or all other members as references.

    A seeded sample: ``clusters`` clusters, ``per_cluster`` accepted descriptions in each, and
    for each description a seeded sample of its references (accepted ones too). Clusters too
    small for k references are left out of k's point, so every point says how many sentences
    it rests on.
    """
    rng = random.Random(seed)
    segment_ids = sorted(
        ClusterScore.objects.filter(language=language, size__gt=1).values_list(
            "segment_id", flat=True
        )
    )
    chosen = sorted(rng.sample(segment_ids, min(clusters, len(segment_ids))))
    members = [
        [text for _, text in group]
        for (segment_id, lang), group in sorted(
            cluster_descriptions(chosen, accepted_only=True).items()
        )
        if lang == language and len(group) > 1
    ]
    tokenize = metrics.default_tokenize(language)
    points = []
    for k in REFERENCE_COUNTS:
        hypotheses, references = [], []
        for texts in members:
            if k is not None and len(texts) - 1 < k:
                continue
            for position in rng.sample(range(len(texts)), min(per_cluster, len(texts))):
                others = texts[:position] + texts[position + 1 :]
                hypotheses.append(texts[position])
                references.append(others if k is None else rng.sample(others, k))
        scores = [
            metrics.sentence_bleu(h, r, tokenize=tokenize)
            for h, r in zip(hypotheses, references, strict=True)
        ]
        points.append(
            ReferenceCurvePoint(
                references="all" if k is None else str(k),
                mean_bleu=sum(scores) / len(scores) if scores else None,
                corpus_bleu=metrics.corpus_bleu(hypotheses, references, tokenize=tokenize)
                if hypotheses
                else None,
                sentences=len(hypotheses),
            )
        )
    return points


def corpus_summary() -> dict:
    """Accepted descriptions (what the clusters are scored over), how many have scores, and
    the work awaiting review, counted apart."""
    counts = Description.objects.aggregate(
        accepted=Count("pk", filter=Q(status=Description.Status.ACCEPTED)),
        pending=Count("pk", filter=Q(status=Description.Status.PENDING)),
    )
    return {
        "descriptions": counts["accepted"],
        "pending": counts["pending"],
        "scored": DescriptionScore.objects.filter(
            description__status=Description.Status.ACCEPTED
        ).count(),
        "clusters": ClusterScore.objects.count(),
        "languages": list(
            ClusterScore.objects.values("language")
            .annotate(clusters=Count("*"), descriptions=Sum("size"))
            .order_by("-clusters")[:20]
        ),
    }
