"""The corpus measures the demo's staff and researcher see computed: the annotator agreement
of the demo writers' alignments (``/scores/agreement/``); the reference curve, BLEU by
number of references, and the comparison of the writers' direct paraphrases with the
descriptions (both on ``/scores/corpus/``).

Both are Celery work on the site. The demo runs the function each task runs, once the work
they read is committed, so the pages show figures from the first visit; a message queued
meanwhile then finds nothing left to do."""

from annotations.agreement_store import agreement_refresh
from annotations.models import AgreementReport
from scoring.forms import ReferenceCurveForm
from scoring.models import ParaphraseComparisonReport, ReferenceCurveReport
from scoring.paraphrases import paraphrase_comparison_compute, paraphrase_comparison_request
from scoring.services import reference_curve_compute, reference_curve_request


def agreement_load() -> AgreementReport:
    """The agreement table, brought up to date with every pair whose alignments changed (the
    first time, computed in full), as the periodic ``refresh_agreement`` task does."""
    agreement_refresh()
    return AgreementReport.objects.get(pk=1)


def reference_curve_load(*, language: str = "en") -> ReferenceCurveReport:
    """The reference curve of the corpus page's default sample, computed once."""
    fields = ReferenceCurveForm.base_fields
    sample = {name: fields[name].initial for name in ("clusters", "per_cluster", "seed")}
    report = ReferenceCurveReport.objects.filter(language=language, **sample).first()
    if report is None or report.result is None:
        report = reference_curve_request(language=language, **sample)
        reference_curve_compute(report_id=report.pk)
        report.refresh_from_db()
    return report


def paraphrase_comparison_load(*, language: str = "en") -> ParaphraseComparisonReport:
    """The comparison of direct paraphrases with descriptions, computed once."""
    report = ParaphraseComparisonReport.objects.filter(language=language).first()
    if report is None or report.result is None:
        report = paraphrase_comparison_request(language=language)
        paraphrase_comparison_compute(report_id=report.pk)
        report.refresh_from_db()
    return report
