"""The stored agreement table, kept up to date one sentence pair at a time.

Each annotated pair has a ``PairAgreement`` row holding its share of the sums behind the
table (``paracrowd_metrics.alignment.pair_share``); the report holds their exact sum and the
table computed from it. When a pair gets a new alignment, ``agreement_pair_update`` computes
that pair's share afresh, replaces its row and moves the sum by (new share − old share): the
work is one pair's, whatever the size of the corpus, and the table equals a recomputation
over every pair with the same edit models, bit for bit (the sums are exact).

The edit models behind π̂₀ are fitted per annotator over all their pairs, so refitting them
would change π̂₀ of every pair an annotator aligned. They are therefore held fixed between
full recomputations (``agreement_recompute``, daily and on demand), which refit them and
recompute every share; an annotator who first appears in between gets a model fitted on the
pairs they have aligned so far. The Monte Carlo draws are seeded per pair and annotator, so a
pair's share does not depend on when or in which order pairs were added.
"""

import time
from dataclasses import dataclass

from django.db import transaction
from django.db.models import Count, F, Max, OuterRef, Q, Subquery
from django.utils import timezone

from crowd.models import worker_label_sql
from paracrowd.claims import held_while_alive
from paracrowd_metrics.alignment import (
    AgreementTotals,
    EditModel,
    fit_edit_models,
    pair_share,
    share_totals,
    table_from_totals,
)

from .agreement import (
    annotated_pair,
    stored_annotated_pairs,
    stored_pairs,
    stored_rows,
    table_rows,
)
from .models import AgreementReport, Alignment, PairAgreement, SentencePair

SAMPLES = 1000  # J, Monte Carlo draws per annotator and pair
SEED = 0


def _report() -> AgreementReport:
    report, _ = AgreementReport.objects.get_or_create(pk=1)
    return report


def stored_models(report: AgreementReport) -> dict[str, EditModel]:
    """The edit models the stored table was computed with."""
    return {name: EditModel(*values) for name, values in report.edit_models.items()}


def _models_json(models: dict[str, EditModel]) -> dict[str, list[float]]:
    return {
        name: [model.intercept, model.per_source_word, model.per_target_word]
        for name, model in sorted(models.items())
    }


def _fit_new_annotators(models: dict[str, EditModel], pair) -> dict[str, EditModel]:
    """``models`` with one fitted for each annotator of ``pair`` who has none yet, on the
    pairs that annotator has aligned so far (in the order a recomputation fits them)."""
    missing = [name for name in pair.alignments if name not in models]
    if not missing or not pair.source or not pair.target:
        return models
    models = dict(models)
    for name in missing:
        # An alignment's annotator name (``Alignment.annotator_name``): the imported
        # annotator, else the worker's label.
        theirs = (
            Alignment.objects.annotate(label=worker_label_sql("worker"))
            .filter(Q(annotator=name) | Q(annotator="", label=name))
            .values("pair_id")
        )
        pairs = stored_annotated_pairs(stored_pairs().filter(pk__in=theirs))
        models[name] = fit_edit_models(pairs)[name]
    return models


def _table(totals: AgreementTotals, models: dict[str, EditModel]) -> dict | None:
    if not any(key[0] == "annotator" for key in totals.sums):
        return None
    return stored_rows(table_rows(table_from_totals(totals, models, samples=SAMPLES)))


@dataclass(frozen=True)
class ComputedShare:
    """A pair's share as computed from the alignments it had then, with the models used."""

    alignments: tuple[int, ...]
    models: dict[str, EditModel]
    share: dict

    def still_valid(self, pair_id: int, models: dict[str, EditModel]) -> bool:
        """Whether the pair still has the same alignments and every model used is the one
        stored (or still the only one: a new annotator's, fitted meanwhile elsewhere)."""
        alignments = Alignment.objects.filter(pair_id=pair_id).order_by("pk")
        return tuple(alignments.values_list("pk", flat=True)) == self.alignments and all(
            models.get(name, model) == model for name, model in self.models.items()
        )


def share_compute(pair_id: int, models: dict[str, EditModel]) -> ComputedShare | None:
    """A pair's share from its alignments now (None if the pair is gone), fitting a model for
    any annotator ``models`` lacks."""
    pair = stored_pairs().filter(pk=pair_id).first()
    if pair is None:
        return None
    alignments = tuple(sorted(alignment.pk for alignment in pair.alignments.all()))
    annotated = annotated_pair(pair)
    if annotated is None:
        return ComputedShare(alignments, models, {})
    models = _fit_new_annotators(models, annotated)
    return ComputedShare(
        alignments, models, pair_share(annotated, models, samples=SAMPLES, seed=SEED)
    )


def agreement_pair_update(*, pair_id: int) -> bool:
    """Bring the stored table up to date with one pair's alignments.

    Idempotent: the pair's share is computed afresh from its alignments and replaces the old
    one, so a retry or a second call for the same alignments changes nothing (returns
    False). The share is computed before the report row's lock is taken, and applied under
    it only if the pair's alignments and the models are still the ones it was computed from
    (else computed again under the lock), so writers wait for each other only for the sum:
    two alignments of one pair finishing together are applied one after the other and
    neither is lost. Before the first full recomputation there is no sum to update, and
    that recomputation runs instead.
    """
    started = time.monotonic()
    report = _report()
    if report.totals is None:
        agreement_recompute()
        return True
    computed = share_compute(pair_id, stored_models(report))
    with transaction.atomic():
        report = AgreementReport.objects.select_for_update().get(pk=1)
        models = stored_models(report)
        if computed is None or not computed.still_valid(pair_id, models):
            computed = share_compute(pair_id, models)
        stored = PairAgreement.objects.filter(pair_id=pair_id).first()
        if computed is None:
            return False  # the pair is gone
        if (stored.alignments if stored else 0) == len(computed.alignments) or (
            not stored and not computed.share
        ):
            return False
        models = {**models, **computed.models}
        before = share_totals(stored.share) if stored else AgreementTotals()
        totals = AgreementTotals.from_json(report.totals) - before + share_totals(computed.share)
        PairAgreement.objects.update_or_create(
            pair_id=pair_id,
            defaults={
                "alignments": len(computed.alignments),
                "share": computed.share,
                "computed_at": timezone.now(),
            },
        )
        report.totals = totals.to_json()
        report.table = _table(totals, models)
        report.edit_models = _models_json(models)
        report.through_alignment = max([report.through_alignment, *computed.alignments])
        report.computed_at = timezone.now()
        report.seconds = time.monotonic() - started
        report.save()
    return True


def changed_pairs():
    """Pairs whose stored share was computed from fewer (or more) alignments than they have."""
    stored = PairAgreement.objects.filter(pair_id=OuterRef("pk")).values("alignments")
    return (
        SentencePair.objects.annotate(count=Count("alignments"), stored=Subquery(stored))
        .filter(count__gte=2)
        .filter(Q(stored__isnull=True) | ~Q(stored=F("count")))
        .values_list("pk", flat=True)
        .order_by("pk")
    )


def agreement_refresh() -> bool:
    """Catch up with every pair whose alignments changed since its share was computed (the
    periodic sweep, for alignments whose own update was lost or imported in bulk). Before
    the first full recomputation, runs it. Returns False when a recomputation holds the
    report; it catches up itself when done."""
    report = _report()
    if report.totals is None:
        return agreement_recompute()
    for pair_id in changed_pairs():
        agreement_pair_update(pair_id=pair_id)
    return True


def agreement_recompute() -> bool:
    """Recompute the whole table: refit every annotator's edit model and every pair's share.

    The reference the incremental updates are checked against, and the way the edit models
    follow the corpus. One at a time (a claim on the report row, so no transaction stays
    open through the Monte Carlo estimates); returns False when another one holds it. Pairs
    that changed while it computed are caught up afterwards.
    """
    _report()
    with held_while_alive(AgreementReport, 1) as held:
        if not held:
            return False  # a live worker is recomputing it
        # Set while it runs, for the page; one left by a worker that died is simply retaken.
        AgreementReport.objects.filter(pk=1).update(refreshing_since=timezone.now())
        _recompute()
    for pair_id in changed_pairs():
        agreement_pair_update(pair_id=pair_id)
    return True


def _recompute() -> None:
    reports = AgreementReport.objects.filter(pk=1)
    try:
        started = time.monotonic()
        pairs = stored_pairs().annotate(count=Count("alignments")).filter(count__gte=2)
        counts = dict(pairs.values_list("pk", "count"))
        annotated = stored_annotated_pairs(pairs)
        models = fit_edit_models(annotated)
        shares = {
            int(pair.pair_id): pair_share(pair, models, samples=SAMPLES, seed=SEED)
            for pair in annotated
        }
        totals = AgreementTotals.sum(share_totals(share) for share in shares.values())
        newest = Alignment.objects.aggregate(newest=Max("pk"))["newest"] or 0
        with transaction.atomic():
            AgreementReport.objects.select_for_update().get(pk=1)
            PairAgreement.objects.all().delete()
            PairAgreement.objects.bulk_create(
                [
                    PairAgreement(pair_id=pk, alignments=counts[pk], share=share)
                    for pk, share in shares.items()
                ],
                batch_size=2000,
            )
            now = timezone.now()
            reports.update(
                totals=totals.to_json(),
                table=_table(totals, models),
                edit_models=_models_json(models),
                through_alignment=newest,
                computed_at=now,
                calibrated_at=now,
                seconds=time.monotonic() - started,
            )
    finally:
        reports.update(refreshing_since=None)
