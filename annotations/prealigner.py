"""Which automatic aligner pre-aligns the grid, and the supervised one's training.

The supervised aligner (``paracrowd_metrics.alignment.supervised``) learns from the human
alignments the site holds: accepted alignments (workers' and imported gold) and the trial
set's gold. It is trained once there are ``ALIGNER_MIN_GOLD_ALIGNMENTS`` of them and again
whenever ``ALIGNER_RETRAIN_EVERY`` accepted alignments are new since the last training
(``retrain_aligner``, queued when staff accept alignments and hourly). Until then the newest
unsupervised aligner (``train_aligner``) pre-aligns when it was trained on
``ALIGNER_MIN_TRAINING_PAIRS`` pairs, and below that nothing does: the grid starts empty and
says why.

A retrained model does not take over blindly: one sentence pair in ``HELD_OUT_ONE_IN`` (by a
hash of its words) keeps its gold out of training, and the new model pre-aligns only if it was
judged on at least PREALIGNER_HELD_OUT_MINIMUM held-out pairs and its micro F1 on that gold
(the site's own, see ``judgement``) beats both the aligner in use's and that of identical
words linked one to one. Otherwise it is kept, with the figures and the reason, but the
aligner in use stays. The model that takes over is the one judged, learnt
without the held-out gold; it is not refitted on all of it, so no model in use ever saw the
gold its successors are judged on (a refitted incumbent would be scored on its own training
gold, and would hardly ever be displaced).
"""

import hashlib
import json
import logging
from dataclasses import dataclass
from functools import lru_cache

from django.conf import settings
from django.db import connection, transaction
from django.db.models import Q

from paracrowd_metrics.alignment import AlignedPair, Aligner, format_pharaoh, parse_pharaoh
from paracrowd_metrics.alignment.evaluation import Prealign, identical_words_baseline, scopes
from paracrowd_metrics.alignment.features import Lexicon
from paracrowd_metrics.alignment.supervised import SupervisedAligner, train_supervised_aligner
from paracrowd_metrics.alignment.wordnet import WordNet
from paracrowd_metrics.meteor.table import ParaphraseTable, TableFormatError

from .models import AlignerModel, Alignment, SentencePair, benchmark_test_pairs

logger = logging.getLogger(__name__)
# pg_try_advisory_lock key: one supervised training at a time across every worker.
TRAINING_LOCK = 0x616C6967  # "alig"
# One sentence pair in this many is held out of the supervised aligner's training (20%).
HELD_OUT_ONE_IN = 5


def aligner_is_usable(model: AlignerModel) -> bool:
    """A supervised model is usable as trained (it is only trained above its minimum), and
    identical words always; an unsupervised one when it saw ALIGNER_MIN_TRAINING_PAIRS pairs
    or more, or when held-out gold chose it over identical words
    (``unsupervised_or_identical_choose``)."""
    return (
        model.kind != AlignerModel.Kind.UNSUPERVISED
        or model.training_pairs >= settings.ALIGNER_MIN_TRAINING_PAIRS
        or model.judgement.get("took_over", False)
    )


def _newest(kind: str) -> AlignerModel | None:
    return AlignerModel.objects.filter(kind=kind).order_by("-trained_at", "-pk").first()


def aligner_usable() -> AlignerModel | None:
    """The aligner that pre-aligns: the newest supervised one that took over from its
    predecessor, else the newer of the newest unsupervised one (when usable) and identical
    words (when chosen, ``unsupervised_or_identical_choose``), else none (annotators start
    from an empty grid rather than from a weak model's guesses; the page says so)."""
    supervised = (
        AlignerModel.objects.filter(kind=AlignerModel.Kind.SUPERVISED, took_over=True)
        .order_by("-trained_at", "-pk")
        .first()
    )
    if supervised:
        return supervised
    candidates = [
        model
        for model in (_newest(AlignerModel.Kind.UNSUPERVISED), _newest(AlignerModel.Kind.IDENTICAL))
        if model and aligner_is_usable(model)
    ]
    return max(candidates, key=lambda model: (model.trained_at, model.pk), default=None)


@lru_cache(maxsize=2)
def lexicon_load(wordnet_path: str, table_path: str) -> Lexicon:
    """WordNet's synonyms and the site's paraphrase table, each left out (and logged) when
    it cannot be read: the aligner then works without that feature."""
    synonyms = paraphrases = None
    try:
        synonyms = WordNet(wordnet_path).synonyms
    except (OSError, ValueError) as error:
        logger.warning("the pre-aligner works without synonyms: %s", error)
    if table_path:
        try:
            table = ParaphraseTable.load(table_path)
            paraphrases = {(source, target): p for source, target, p in table}
        except (OSError, TableFormatError) as error:
            logger.warning("the pre-aligner works without the paraphrase table: %s", error)
    return Lexicon(synonyms=synonyms, paraphrases=paraphrases)


def site_lexicon() -> Lexicon:
    return lexicon_load(settings.WORDNET_PATH, settings.ALIGNER_PARAPHRASE_TABLE)


class IdenticalWords:
    """Identical words linked one to one, as a pre-aligner."""

    prealign = staticmethod(identical_words_baseline)


@lru_cache(maxsize=2)
def _loaded(pk: int, trained_at):
    model = AlignerModel.objects.select_related("base").get(pk=pk)
    if model.kind == AlignerModel.Kind.IDENTICAL:
        return IdenticalWords()
    if model.kind == AlignerModel.Kind.UNSUPERVISED:
        return Aligner.from_dict(model.parameters)
    base = Aligner.from_dict(model.base.parameters) if model.base else None
    return SupervisedAligner.from_dict(model.parameters, lexicon=site_lexicon(), base=base)


def prealigner(model: AlignerModel) -> Aligner | SupervisedAligner | IdenticalWords:
    """The stored aligner, ready to ``prealign`` (kept loaded: a model is never changed)."""
    return _loaded(model.pk, model.trained_at)


def is_held_out(source, target) -> bool:
    """Whether a sentence pair's gold judges new models instead of training them: the same
    pairs on every training, by a hash of the words (not the id), so a pair stored twice
    never lands on both sides."""
    digest = hashlib.sha256(json.dumps([list(source), list(target)]).encode()).digest()
    return int.from_bytes(digest[:8], "big") % HELD_OUT_ONE_IN == 0


@dataclass(frozen=True)
class SiteGold:
    """The site's human alignments, split: ``learn`` trains, ``held_out`` judges.
    ``own_held_out`` are the held-out ones made on the site (workers' alignments and trial
    gold); ``trained_on`` names them all by id, as ``AlignerModel.trained_on`` records them."""

    learn: list[AlignedPair]
    held_out: list[AlignedPair]
    own_held_out: list[AlignedPair]
    trained_on: dict


def site_gold(*, include_test_sets: bool = False) -> SiteGold:
    """The site's human alignments, newest first up to ALIGNER_MAX_GOLD_ALIGNMENTS: every
    accepted alignment (a pair aligned by three annotators gives three), then the trial
    pairs' gold; each pair's on the side ``is_held_out`` puts it. The alignments of imported
    benchmark test sets (``benchmark_test_pairs``) are left out unless
    ``include_test_sets``: an aligner measured on a benchmark must not have learnt from it."""
    budget = settings.ALIGNER_MAX_GOLD_ALIGNMENTS
    accepted = Alignment.objects.accepted()
    if not include_test_sets:
        accepted = accepted.exclude(pair__in=SentencePair.objects.filter(benchmark_test_pairs()))
    accepted = list(
        accepted.select_related("pair")
        .only("links", "worker_id", "pair__tokens_a", "pair__tokens_b")
        .order_by("-pk")[:budget]
    )
    trials = list(
        SentencePair.objects.filter(is_trial=True)
        .only("tokens_a", "tokens_b", "gold_links")
        .order_by("-pk")[: budget - len(accepted)]
    )
    learn, held_out, own_held_out = [], [], []
    ids = {side: {"alignments": [], "trial_pairs": []} for side in ("learn", "held_out")}
    for kind, pk, pair, links, own in [
        *(("alignments", a.pk, a.pair, a.links, a.worker_id is not None) for a in accepted),
        *(("trial_pairs", pair.pk, pair, pair.gold_links, True) for pair in trials),
    ]:
        aligned = AlignedPair(
            f"{kind} {pk}", tuple(pair.tokens_a), tuple(pair.tokens_b), parse_pharaoh(links)
        )
        side = "held_out" if is_held_out(pair.tokens_a, pair.tokens_b) else "learn"
        if side == "learn":
            learn.append(aligned)
        else:
            held_out.append(aligned)
            if own:
                own_held_out.append(aligned)
        ids[side][kind].append(pk)
    trained_on = {kind: sorted(pks) for kind, pks in ids["learn"].items()}
    trained_on["held_out"] = {kind: sorted(pks) for kind, pks in ids["held_out"].items()}
    return SiteGold(learn, held_out, own_held_out, trained_on)


def _gold_seen(trained_on: dict) -> tuple[set, int]:
    """The accepted alignments a training read (learnt from or held out), and how many
    alignments it read in all."""
    held_out = trained_on.get("held_out", {})
    alignments = set(trained_on.get("alignments", [])) | set(held_out.get("alignments", []))
    trials = len(trained_on.get("trial_pairs", [])) + len(held_out.get("trial_pairs", []))
    return alignments, len(alignments) + trials


def retraining_due(
    trained_on: dict, last: AlignerModel | None, *, min_gold: int | None = None
) -> bool:
    """Whether ``trained_on`` (the gold at hand) calls for a new supervised model: enough
    gold (``min_gold``, ALIGNER_MIN_GOLD_ALIGNMENTS unless given), and enough accepted
    alignments new since ``last`` read the gold (whether or not ``last`` took over: a model
    judged worse is not retrained on the same gold)."""
    alignments, total = _gold_seen(trained_on)
    if total < (settings.ALIGNER_MIN_GOLD_ALIGNMENTS if min_gold is None else min_gold):
        return False
    if last is None:
        return True
    return len(alignments - _gold_seen(last.trained_on)[0]) >= settings.ALIGNER_RETRAIN_EVERY


# The measure every judgement uses: micro F1 over all links, each proposed link a claim
# (sure against the gold's possible links for precision, possible against its sure ones for
# recall; ``evaluation.scopes``).
MEASURE = "micro F1 over all links (sure and possible), identical words included"


def _f1(prealign: Prealign, gold: list[AlignedPair]) -> float:
    predicted = [prealign(pair.source, pair.target) for pair in gold]
    return scopes(predicted, gold)["all"]["f1"]


def _judged_gold(gold: SiteGold) -> tuple[list[AlignedPair], str, int]:
    """The held-out gold that judges, what it is, and how many distinct sentence pairs it
    covers (a pair aligned by three annotators is one pair)."""
    judged = gold.own_held_out or gold.held_out
    pairs = len({(pair.source, pair.target) for pair in judged})
    return judged, "the site's own" if gold.own_held_out else "all (none of the site's own)", pairs


def judgement(candidate: SupervisedAligner, gold: SiteGold) -> dict:
    """How ``candidate`` does on the held-out gold against the aligner in use and against
    identical words linked one to one, by ``MEASURE``. It takes over only when the gold covers
    at least PREALIGNER_HELD_OUT_MINIMUM sentence pairs and it beats both (strictly: on a tie
    the aligner in use stays, and a model no better than identical words only adds noise).

    The held-out gold made on the site (workers' alignments of its pairs, trial gold) is what
    judges, as that is what the pre-aligner is for; imported gold judges only while the site
    has none of its own held out. Imported gold of another kind of text is learnt from, but
    cannot vote a model that serves it better into pre-aligning the site's pairs worse."""
    judged, judged_on, pairs = _judged_gold(gold)
    minimum = settings.PREALIGNER_HELD_OUT_MINIMUM
    in_use = aligner_usable()
    identical = "identical words one to one"
    against = str(in_use) if in_use else identical
    f1 = _f1(candidate.prealign, judged)
    identical_f1 = _f1(identical_words_baseline, judged)
    against_f1 = _f1(prealigner(in_use).prealign, judged) if in_use else identical_f1
    failures = []
    if pairs < minimum:
        failures.append(
            f"judged on {pairs} held-out pairs, fewer than PREALIGNER_HELD_OUT_MINIMUM ({minimum})"
        )
    if f1 <= against_f1:
        failures.append(f"held-out F1 {f1:.3f} ≤ {against_f1:.3f} of {against}")
    if in_use and f1 <= identical_f1:
        failures.append(f"held-out F1 {f1:.3f} ≤ {identical_f1:.3f} of {identical}")
    took_over = not failures
    stays = f"{against} stays in use" if in_use else "nothing pre-aligns"
    return {
        "held_out_alignments": len(judged),
        "held_out_pairs": pairs,
        "held_out_minimum": minimum,
        "measure": MEASURE,
        "judged_on": judged_on,
        "f1": f1,
        "against": against,
        "against_model": in_use.pk if in_use else None,
        "against_f1": against_f1,
        "identical_words_f1": identical_f1,
        "took_over": took_over,
        "reason": (
            f"held-out F1 {f1:.3f} on {pairs} pairs > {against_f1:.3f} of {against}"
            + (f" and {identical_f1:.3f} of {identical}" if in_use else "")
            + ": took over"
            if took_over
            else "; ".join(failures) + f": {stays}"
        ),
    }


def unsupervised_or_identical_choose(*, gold: SiteGold | None = None) -> AlignerModel | None:
    """When no supervised model is in use: judge the newest unsupervised model against
    identical words linked one to one on the held-out gold (``MEASURE``; neither learnt from
    that gold, so any number of pairs may choose between them), put the better in use (the
    unsupervised model only when it beats identical words), record the judgement on it, and
    pre-align the pairs nobody has annotated with it. This is how a site with little gold and
    few sentence pairs, the demo, gets a pre-aligner. Returns the model put in use, or None
    when a supervised model is in use."""
    in_use = aligner_usable()
    if in_use and in_use.kind == AlignerModel.Kind.SUPERVISED:
        return None
    judged, judged_on, pairs = _judged_gold(gold or site_gold())
    unsupervised = _newest(AlignerModel.Kind.UNSUPERVISED)
    identical_f1 = _f1(identical_words_baseline, judged)
    f1 = _f1(prealigner(unsupervised).prealign, judged) if unsupervised else None
    figures = {
        "held_out_alignments": len(judged),
        "held_out_pairs": pairs,
        "measure": MEASURE,
        "judged_on": judged_on,
        "identical_words_f1": identical_f1,
        "unsupervised_model": unsupervised.pk if unsupervised else None,
        "unsupervised_f1": f1,
    }
    if f1 is not None and f1 > identical_f1:
        chosen = unsupervised
        reason = f"held-out F1 {f1:.3f} on {pairs} pairs > {identical_f1:.3f} of identical words"
        chosen.held_out_f1 = f1
        chosen.judgement = {**figures, "took_over": True, "reason": reason + ": took over"}
    else:
        chosen = AlignerModel(kind=AlignerModel.Kind.IDENTICAL, parameters={}, training_pairs=0)
        chosen.held_out_f1 = identical_f1
        reason = (
            f"held-out F1 {identical_f1:.3f} of identical words on {pairs} pairs ≥ {f1:.3f} of "
            f"{unsupervised}"
            if unsupervised
            else "no unsupervised model trained"
        )
        chosen.judgement = {**figures, "took_over": True, "reason": reason + ": they pre-align"}
    with transaction.atomic():
        chosen.save()
        pairs_prealign(aligner_model=chosen)
    return chosen


def supervised_aligner_train(
    *, force: bool = False, min_gold: int | None = None, include_test_sets: bool = False
) -> AlignerModel | None:
    """Train the supervised aligner on the site's gold when due (or ``force``d, above the
    minimum: ``min_gold`` alignments, ALIGNER_MIN_GOLD_ALIGNMENTS unless given; the demo
    trains on its own handful; ``include_test_sets``: see ``site_gold``), record what it
    learnt from and how it was judged, and, if it took over (``judgement``), pre-align the
    pairs nobody has annotated.
    One training at a time: a call while another runs returns None, as does one with
    nothing to do."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_try_advisory_lock(%s)", [TRAINING_LOCK])
        if not cursor.fetchone()[0]:
            return None  # another worker is training
        try:
            return _train_if_due(
                force=force, min_gold=min_gold, include_test_sets=include_test_sets
            )
        finally:
            cursor.execute("SELECT pg_advisory_unlock(%s)", [TRAINING_LOCK])


def _train_if_due(
    *, force: bool, min_gold: int | None, include_test_sets: bool
) -> AlignerModel | None:
    gold = site_gold(include_test_sets=include_test_sets)
    last = _newest(AlignerModel.Kind.SUPERVISED)
    if not retraining_due(gold.trained_on, None if force else last, min_gold=min_gold):
        return None
    if len(gold.learn) < 2 or not gold.held_out:
        logger.warning(
            "no supervised aligner trained: %d alignments to learn from and %d held out to "
            "judge it by (it needs 2 and 1)",
            len(gold.learn),
            len(gold.held_out),
        )
        return None
    base_model = _newest(AlignerModel.Kind.UNSUPERVISED)
    if base_model and not aligner_is_usable(base_model):
        base_model = None
    base = prealigner(base_model) if base_model else None
    aligner = train_supervised_aligner(gold.learn, base=base, lexicon=site_lexicon())
    judged = judgement(aligner, gold)
    if not judged["took_over"]:
        logger.warning("the new supervised aligner does not pre-align: %s", judged["reason"])
    # A model that takes over appears together with the pre-alignments it made.
    with transaction.atomic():
        model = AlignerModel.objects.create(
            kind=AlignerModel.Kind.SUPERVISED,
            base=base_model,
            parameters=aligner.to_dict(),
            training_pairs=len(gold.learn),
            trained_on=gold.trained_on,
            took_over=judged["took_over"],
            held_out_f1=judged["f1"],
            judgement=judged,
        )
        if model.took_over:
            pairs_prealign(aligner_model=model)
    return model


def pairs_prealign(*, aligner_model: AlignerModel, pairs=None) -> int:
    """Pre-align pairs (by default every pair nobody has annotated yet) with ``aligner_model``.

    An unusable aligner pre-aligns nothing: the count returned is 0 and the pairs keep what
    they had. A trial pair whose gold the model learnt from keeps its pre-alignment, so the
    trial never shows its own answer.
    """
    if not aligner_is_usable(aligner_model):
        return 0
    aligner = prealigner(aligner_model)
    if pairs is None:
        pairs = SentencePair.objects.filter(alignments__isnull=True).exclude(
            pk__in=aligner_model.trained_on.get("trial_pairs", [])
        )
    updated = []
    for pair in pairs:
        pair.pre_alignment = format_prealignment(aligner, pair)
        pair.aligner = aligner_model
        updated.append(pair)
    SentencePair.objects.bulk_update(updated, ["pre_alignment", "aligner"], batch_size=2000)
    return len(updated)


def format_prealignment(aligner, pair: SentencePair) -> str:
    return format_pharaoh(aligner.prealign(pair.tokens_a, pair.tokens_b))


def sentences_learnt_from(model: AlignerModel) -> set[tuple[tuple[str, ...], tuple[str, ...]]]:
    """The (tokens, tokens) of every pair whose gold a supervised model learnt from, so that
    an evaluation can say when its gold is not held out."""
    if model.kind != AlignerModel.Kind.SUPERVISED:
        return set()
    alignments = Alignment.objects.filter(pk__in=model.trained_on.get("alignments", []))
    pairs = SentencePair.objects.filter(
        Q(pk__in=alignments.values("pair_id")) | Q(pk__in=model.trained_on.get("trial_pairs", []))
    )
    return {(tuple(a), tuple(b)) for a, b in pairs.values_list("tokens_a", "tokens_b").iterator()}
