"""Direct paraphrases measured against their sentence, and the comparison Chen & Dolan
(2011, §5.3) make: are paraphrases written from a sentence closer to it (lower PINC) than other
people's descriptions of the same video segment are?"""

from collections import defaultdict
from statistics import fmean

from django.db import transaction
from django.utils import timezone

import paracrowd_metrics as metrics
from collector.models import Description, Paraphrase, ParaphraseSource
from paracrowd.reports import report_compute, report_request
from paracrowd_metrics.significance import paired_bootstrap

from .models import ParaphraseComparisonReport

BOOTSTRAP_SAMPLES = 1000


def paraphrase_pinc(source: str, text: str, language: str) -> float:
    """PINC (0-100) of ``text`` against ``source``, tokenised as the language is written."""
    return metrics.pinc(source, text, tokenize=metrics.default_tokenize(language))


def paraphrases_score(*, paraphrase_ids) -> int:
    """Store each paraphrase's PINC against its sentence; safe to run twice or concurrently
    (the score depends on the two texts only). Returns how many were scored."""
    now = timezone.now()
    with transaction.atomic():
        paraphrases = list(
            Paraphrase.objects.select_for_update(of=("self",), skip_locked=True)
            .filter(pk__in=list(paraphrase_ids))
            .select_related("source")
            .order_by("pk")
        )
        for paraphrase in paraphrases:
            source = paraphrase.source
            paraphrase.pinc = paraphrase_pinc(source.text, paraphrase.text, source.language)
            paraphrase.pinc_signature = metrics.pinc_signature(
                nsources=1, tokenize=metrics.default_tokenize(source.language)
            )
            paraphrase.scored_at = now
        Paraphrase.objects.bulk_update(paraphrases, ["pinc", "pinc_signature", "scored_at"])
    return len(paraphrases)


def paraphrases_unscored(*, limit: int) -> list[int]:
    """Paraphrases with no PINC yet (their task was lost, say while Redis was down)."""
    return list(
        Paraphrase.objects.filter(scored_at__isnull=True)
        .order_by("pk")
        .values_list("pk", flat=True)[:limit]
    )


def direct_versus_described(*, language: str, seed: int = 0) -> dict:
    """For the sentences in ``language`` chosen from the corpus: the mean PINC against the
    sentence of its direct paraphrases, and of the other descriptions of its segment (same
    language, rejected ones left out). Only sentences with both take part, so the two means
    rest on the same sentences. The paired bootstrap runs over sentences (each sentence's mean
    direct PINC minus its mean described PINC), giving a 95% interval and a p-value."""
    sources = list(
        ParaphraseSource.objects.filter(
            origin=ParaphraseSource.Origin.CORPUS, language=language
        ).values_list("pk", "text", "segment_id", "description_id")
    )
    direct = defaultdict(list)
    rows = (
        Paraphrase.objects.counted()
        .filter(source__in=[pk for pk, *_ in sources], language=language)
        .values_list("source_id", "text")
    )
    for source_id, text in rows:
        direct[source_id].append(text)
    described = defaultdict(list)
    rows = (
        Description.objects.filter(segment_id__in=[s for _, _, s, _ in sources], language=language)
        .exclude(status=Description.Status.REJECTED)
        .values_list("segment_id", "pk", "text")
    )
    for segment_id, description_id, text in rows:
        described[segment_id].append((description_id, text))
    direct_scores, described_scores = [], []
    direct_means, described_means = [], []
    for source_id, text, segment_id, description_id in sorted(sources):
        others = [t for pk, t in described[segment_id] if pk != description_id]
        if not direct[source_id] or not others:
            continue
        mine = [paraphrase_pinc(text, p, language) for p in direct[source_id]]
        theirs = [paraphrase_pinc(text, o, language) for o in others]
        direct_scores += mine
        described_scores += theirs
        direct_means.append(fmean(mine))
        described_means.append(fmean(theirs))
    comparison = paired_bootstrap(
        direct_means, described_means, samples=BOOTSTRAP_SAMPLES, seed=seed
    )
    return {
        "language": language,
        "sentences": len(direct_means),
        "paraphrases": len(direct_scores),
        "descriptions": len(described_scores),
        "direct_pinc": fmean(direct_scores) if direct_scores else None,
        "described_pinc": fmean(described_scores) if described_scores else None,
        "difference": comparison.as_dict() if comparison else None,
        "bootstrap_samples": BOOTSTRAP_SAMPLES,
        "seed": seed,
        "signature": metrics.pinc_signature(
            nsources=1, tokenize=metrics.default_tokenize(language)
        ),
    }


def paraphrase_comparison_request(*, language: str) -> ParaphraseComparisonReport:
    """The comparison report for ``language``, created or queued again, computed by a Celery
    worker (queued on commit). Staff ask for it from the corpus page."""
    return report_request(
        ParaphraseComparisonReport,
        task="scoring.tasks.compute_paraphrase_comparison",
        language=language,
    )


def paraphrase_comparison_compute(*, report_id: int) -> bool:
    """Compute a queued comparison report. False when it is done already or another worker
    holds it."""
    return report_compute(
        ParaphraseComparisonReport,
        report_id=report_id,
        compute=lambda report: direct_versus_described(language=report.language),
    )
