"""Which automatic aligner pre-aligns the grid, and the supervised one's training.

The supervised aligner (``paracrowd_metrics.alignment.supervised``) learns from the human
alignments the site holds: accepted alignments (workers' and imported gold) and the trial
set's gold. It is trained once there are ``ALIGNER_MIN_GOLD_ALIGNMENTS`` of them and again
whenever ``ALIGNER_RETRAIN_EVERY`` accepted alignments are new since the last training
(``retrain_aligner``, queued when staff accept alignments and hourly). Until then the newest
unsupervised aligner (``train_aligner``) pre-aligns when it was trained on
``ALIGNER_MIN_TRAINING_PAIRS`` pairs, and below that nothing does: the grid starts empty and
says why.
"""

import logging
from functools import lru_cache

from django.conf import settings
from django.db import connection, transaction
from django.db.models import Q

from paracrowd_metrics.alignment import AlignedPair, Aligner, format_pharaoh, parse_pharaoh
from paracrowd_metrics.alignment.features import Lexicon
from paracrowd_metrics.alignment.supervised import SupervisedAligner, train_supervised_aligner
from paracrowd_metrics.alignment.wordnet import WordNet
from paracrowd_metrics.meteor.table import ParaphraseTable, TableFormatError

from .models import AlignerModel, Alignment, SentencePair

logger = logging.getLogger(__name__)
# pg_try_advisory_lock key: one supervised training at a time across every worker.
TRAINING_LOCK = 0x616C6967  # "alig"


def aligner_is_usable(model: AlignerModel) -> bool:
    """A supervised model is usable as trained (it is only trained above its minimum); an
    unsupervised one when it saw ALIGNER_MIN_TRAINING_PAIRS pairs or more."""
    return (
        model.kind == AlignerModel.Kind.SUPERVISED
        or model.training_pairs >= settings.ALIGNER_MIN_TRAINING_PAIRS
    )


def _newest(kind: str) -> AlignerModel | None:
    return AlignerModel.objects.filter(kind=kind).order_by("-trained_at", "-pk").first()


def aligner_usable() -> AlignerModel | None:
    """The aligner that pre-aligns: the newest supervised one, else the newest unsupervised
    one when usable, else none (annotators start from an empty grid rather than from a weak
    model's guesses; the page says so)."""
    supervised = _newest(AlignerModel.Kind.SUPERVISED)
    if supervised:
        return supervised
    unsupervised = _newest(AlignerModel.Kind.UNSUPERVISED)
    return unsupervised if unsupervised and aligner_is_usable(unsupervised) else None


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


@lru_cache(maxsize=2)
def _loaded(pk: int, trained_at):
    model = AlignerModel.objects.select_related("base").get(pk=pk)
    if model.kind == AlignerModel.Kind.UNSUPERVISED:
        return Aligner.from_dict(model.parameters)
    base = Aligner.from_dict(model.base.parameters) if model.base else None
    return SupervisedAligner.from_dict(model.parameters, lexicon=site_lexicon(), base=base)


def prealigner(model: AlignerModel) -> Aligner | SupervisedAligner:
    """The stored aligner, ready to ``prealign`` (kept loaded: a model is never changed)."""
    return _loaded(model.pk, model.trained_at)


def gold_alignments() -> tuple[list[AlignedPair], dict]:
    """The site's human alignments, newest first up to ALIGNER_MAX_GOLD_ALIGNMENTS: every
    accepted alignment (a pair aligned by three annotators gives three), then the trial
    pairs' gold. Also what they are, for ``AlignerModel.trained_on``."""
    budget = settings.ALIGNER_MAX_GOLD_ALIGNMENTS
    accepted = list(
        Alignment.objects.accepted()
        .select_related("pair")
        .only("links", "pair__tokens_a", "pair__tokens_b")
        .order_by("-pk")[:budget]
    )
    trials = list(
        SentencePair.objects.filter(is_trial=True)
        .only("tokens_a", "tokens_b", "gold_links")
        .order_by("-pk")[: budget - len(accepted)]
    )
    gold = [_aligned(a.pair, a.links, f"alignment {a.pk}") for a in accepted]
    gold += [_aligned(pair, pair.gold_links, f"trial pair {pair.pk}") for pair in trials]
    trained_on = {
        "alignments": sorted(a.pk for a in accepted),
        "trial_pairs": sorted(pair.pk for pair in trials),
    }
    return gold, trained_on


def _aligned(pair: SentencePair, links: str, name: str) -> AlignedPair:
    return AlignedPair(name, tuple(pair.tokens_a), tuple(pair.tokens_b), parse_pharaoh(links))


def retraining_due(trained_on: dict, last: AlignerModel | None) -> bool:
    """Whether ``trained_on`` (the gold at hand) calls for a new supervised model."""
    if len(trained_on["alignments"]) + len(trained_on["trial_pairs"]) < (
        settings.ALIGNER_MIN_GOLD_ALIGNMENTS
    ):
        return False
    if last is None:
        return True
    new = set(trained_on["alignments"]) - set(last.trained_on.get("alignments", []))
    return len(new) >= settings.ALIGNER_RETRAIN_EVERY


def supervised_aligner_train(*, force: bool = False) -> AlignerModel | None:
    """Train the supervised aligner on the site's gold when due (or ``force``d, above the
    minimum), record what it learnt from, and pre-align the pairs nobody has annotated.
    One training at a time: a call while another runs returns None, as does one with
    nothing to do."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_try_advisory_lock(%s)", [TRAINING_LOCK])
        if not cursor.fetchone()[0]:
            return None  # another worker is training
        try:
            return _train_if_due(force=force)
        finally:
            cursor.execute("SELECT pg_advisory_unlock(%s)", [TRAINING_LOCK])


def _train_if_due(*, force: bool) -> AlignerModel | None:
    gold, trained_on = gold_alignments()
    last = _newest(AlignerModel.Kind.SUPERVISED)
    if not retraining_due(trained_on, None if force else last):
        return None
    base_model = _newest(AlignerModel.Kind.UNSUPERVISED)
    if base_model and not aligner_is_usable(base_model):
        base_model = None
    base = prealigner(base_model) if base_model else None
    aligner = train_supervised_aligner(gold, base=base, lexicon=site_lexicon())
    # The model appears together with the pre-alignments it made.
    with transaction.atomic():
        model = AlignerModel.objects.create(
            kind=AlignerModel.Kind.SUPERVISED,
            base=base_model,
            parameters=aligner.to_dict(),
            training_pairs=len(gold),
            trained_on=trained_on,
        )
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
