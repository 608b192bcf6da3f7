"""The alignment trial set: sentence pairs with a known (gold) alignment that a worker aligns
before they may take alignment HITs.

While the set has pairs, the alignment HIT type requires a qualification
(``HitType.qualification_required``): a worker earns it by aligning every trial pair with a
micro-averaged F1 (sure and possible links as ``paracrowd_metrics.alignment`` defines them,
identical word pairs left out) of at least ALIGNMENT_TRIAL_MIN_F1 against the gold, or staff
grant it by hand. With no trial pair, alignment HITs are open to every worker.

Trial answers are not paid: the trial is a short test, like a platform's qualification test,
and paying for it would reward opening throwaway accounts to collect the fee. Each trial pair
is answered once per worker, so a worker below the threshold cannot retry until staff decide;
a pair added to the set later is one more to answer, and the score is computed again.
"""

from dataclasses import asdict, dataclass

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import F

from crowd import services as crowd
from crowd.models import Hit, HitType, Qualification, Worker
from crowd.services import WorkRefused
from paracrowd.wording import counted
from paracrowd_metrics.alignment import (
    AlignedPair,
    LinkCounts,
    format_pharaoh,
    link_counts,
    parse_pharaoh,
)

from .models import SentencePair, TrialAnswer
from .services import import_identity, imported_pair, links_parse, pairs_store


@dataclass(frozen=True)
class TrialStatus:
    """Where a worker stands with the trial set."""

    required: bool  # alignment HITs need the qualification (the set has pairs)
    qualified: bool  # they hold it (earned or granted)
    answered: int
    total: int
    f1: float | None  # over the pairs answered; None before the first answer
    min_f1: float
    next_pair: SentencePair | None  # the next trial pair to align, if any is left

    @property
    def finished(self) -> bool:
        return self.total > 0 and self.answered >= self.total

    @property
    def passed(self) -> bool:
        return self.finished and self.f1 is not None and self.f1 >= self.min_f1


def trial_pairs():
    return SentencePair.objects.filter(is_trial=True)


def _requirement_sync() -> None:
    """Alignment HITs need the qualification exactly while the trial set has pairs."""
    HitType.objects.for_kind(HitType.Kind.ALIGNMENT)  # seeded if missing
    HitType.objects.filter(kind=HitType.Kind.ALIGNMENT).update(
        qualification_required=trial_pairs().exists()
    )


def trial_pair_mark(*, pair_id: int, gold_links: str) -> SentencePair:
    """Make pair ``pair_id`` a trial pair with ``gold_links`` (Pharaoh form, ``p`` for
    possible) as its gold alignment, or replace its gold. Its HITs stop taking new workers, so
    the test pairs are never also paid work; alignments already made are kept."""
    with transaction.atomic():
        pair = SentencePair.objects.select_for_update().filter(pk=pair_id).first()
        if pair is None:
            raise WorkRefused("There is no such sentence pair.")
        gold = links_parse(gold_links, pair)
        if not gold.possible:
            raise WorkRefused("A gold alignment needs at least one link.")
        pair.is_trial = True
        pair.gold_links = format_pharaoh(gold)
        pair.save(update_fields=["is_trial", "gold_links"])
        if pair.item_id:
            Hit.objects.filter(item_id=pair.item_id).update(max_assignments=F("submitted_count"))
        _requirement_sync()
    return pair


def trial_pair_unmark(*, pair_id: int) -> SentencePair:
    """Take pair ``pair_id`` out of the trial set. Answers already given keep their scores."""
    with transaction.atomic():
        pair = SentencePair.objects.select_for_update().filter(pk=pair_id, is_trial=True).first()
        if pair is None:
            raise WorkRefused("That pair is not in the trial set.")
        pair.is_trial = False
        pair.gold_links = ""
        pair.save(update_fields=["is_trial", "gold_links"])
        _requirement_sync()
    return pair


def trial_pairs_import(aligned: list[AlignedPair], *, corpus: str) -> int:
    """Store imported pairs as trial pairs, each with its alignment as gold; re-running only
    refreshes the gold. Returns how many trial pairs were stored or updated."""
    pairs = [imported_pair(corpus, pair.pair_id, pair.source, pair.target) for pair in aligned]
    with transaction.atomic():
        stored = {import_identity(p): p for p in pairs_store(pairs, open_hits=False)}
        for pair, sentence_pair in zip(aligned, pairs, strict=True):
            trial_pair_mark(
                pair_id=stored[import_identity(sentence_pair)].pk,
                gold_links=format_pharaoh(pair.alignment),
            )
    return len(stored)


def trial_status(*, worker: Worker) -> TrialStatus:
    """The worker's progress through the trial set and whether alignment HITs are open to
    them."""
    # Answers to pairs since taken out of the set no longer count.
    answers = dict(
        TrialAnswer.objects.filter(worker=worker, pair__is_trial=True).values_list(
            "pair_id", "counts"
        )
    )
    return TrialStatus(
        required=HitType.objects.for_kind(HitType.Kind.ALIGNMENT).qualification_required,
        qualified=crowd.worker_has_access(worker=worker, kind=Qualification.Kind.ALIGNMENT),
        answered=len(answers),
        total=trial_pairs().count(),
        f1=_f1(list(answers.values())) if answers else None,
        min_f1=settings.ALIGNMENT_TRIAL_MIN_F1,
        next_pair=trial_pairs().exclude(pk__in=list(answers)).order_by("pk").first(),
    )


def trial_answers(*, worker: Worker) -> list[TrialAnswer]:
    """The worker's answers to the trial, oldest first, for staff deciding a grant by hand."""
    return list(TrialAnswer.objects.filter(worker=worker).select_related("pair").order_by("pk"))


def trial_f1_by_worker(*, worker_ids=None) -> dict[int, float]:
    """Each worker's micro-averaged F1 over their answers to the current trial set (of the
    workers of ``worker_ids``, or of everyone who answered)."""
    answers = TrialAnswer.objects.filter(pair__is_trial=True)
    if worker_ids is not None:
        answers = answers.filter(worker_id__in=list(worker_ids))
    counts = {}
    for worker_id, answer in answers.values_list("worker_id", "counts"):
        counts.setdefault(worker_id, []).append(answer)
    return {worker_id: _f1(answered) for worker_id, answered in counts.items()}


def _f1(counts: list[dict]) -> float:
    return sum((LinkCounts(**c) for c in counts), LinkCounts()).f1


def trial_answer_submit(*, worker: Worker, pair_id: int, links: str) -> TrialStatus:
    """Store the worker's alignment of trial pair ``pair_id``, scored against its gold, once.

    When it was their last trial pair and their F1 over the set reaches ALIGNMENT_TRIAL_MIN_F1,
    they are granted the alignment qualification by the automatic rule, audit-logged with the
    score. Returns their status afterwards."""
    pair = trial_pairs().filter(pk=pair_id).first()
    if pair is None:
        raise WorkRefused("That sentence pair is not part of the trial.")
    answer = links_parse(links, pair)
    gold = parse_pharaoh(pair.gold_links)
    counts = link_counts(answer, gold, pair.tokens_a, pair.tokens_b)
    try:
        with transaction.atomic():
            TrialAnswer.objects.create(
                worker=worker,
                pair=pair,
                links=format_pharaoh(answer),
                gold_links=pair.gold_links,
                f1=counts.f1,
                counts=asdict(counts),
            )
    except IntegrityError:
        pass  # answered before (a reload or a double click): the first answer counts
    status = trial_status(worker=worker)
    if status.passed and not status.qualified:
        crowd.qualification_grant(
            worker=worker,
            kind=Qualification.Kind.ALIGNMENT,
            granted_by=None,
            reason=(
                f"Automatic rule: alignment trial F1 {status.f1:.2f} ≥ {status.min_f1:.2f} "
                f"over {counted(status.total, 'pair')}."
            ),
        )
        status = trial_status(worker=worker)
    return status
