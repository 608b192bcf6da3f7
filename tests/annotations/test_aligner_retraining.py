"""The supervised pre-aligner learns from the site's human alignments and is trained again, by
the Celery worker, as staff accept more; a new model takes over only if, judged on at least
PREALIGNER_HELD_OUT_MINIMUM pairs held out of its training, it beats both the one in use and
identical words."""

from io import StringIO

import pytest
from django.core.management import call_command

from annotations import prealigner, review, services
from annotations.models import AlignerModel, Alignment, SentencePair
from crowd import services as crowd
from crowd.models import HitType, Tier
from paracrowd.celery import enqueue
from paracrowd_metrics.alignment import Alignment as Links
from paracrowd_metrics.alignment import format_pharaoh
from paracrowd_metrics.alignment.anchors import identical_word_anchors
from tests.annotations.test_evaluate_aligner import video_pairs
from tests.conftest import wait_for
from tests.factories import make_staff, make_worker

# Video pairs 0–3 come with an imported gold annotation, pair 4 is the trial pair, 5–11 are
# offered as HITs. ``prealigner.is_held_out`` holds out pairs 1, 2, 3, 6 and 11 (by their words).
IMPORTED = 4
HELD_OUT = {1, 2, 3, 6, 11}
# Gold of another kind of text, imported with two annotations a pair that link identical words
# and nothing else: learnt from, it teaches the aligner to leave paraphrases unlinked.
NEWS = [
    ("the minister said on monday that taxes will rise", "taxes will rise , the minister said"),
    ("shares of the bank fell sharply in early trading", "the bank saw its shares drop in trading"),
    ("the court ruled against the company last week", "last week the company lost in court"),
    ("police arrested two men after the robbery", "two men were detained by police"),
    ("the president visited the flooded region", "the flooded area was toured by the president"),
    ("oil prices climbed to a record high", "crude reached a record price"),
    ("the team won the championship on sunday", "on sunday the squad took the title"),
    ("the storm killed three people", "three people died in the storm"),
    ("the senate passed the budget bill", "the budget bill was approved by the senate"),
    ("the airline cancelled hundreds of flights", "hundreds of flights were scrapped"),
]


def supervised_models():
    return AlignerModel.objects.filter(kind=AlignerModel.Kind.SUPERVISED).order_by("pk")


@pytest.fixture
def site_gold(settings):
    """Imported gold for four pairs, one trial pair, and the other pairs offered as HITs."""
    settings.ALIGNER_MIN_GOLD_ALIGNMENTS = IMPORTED + 1
    settings.ALIGNER_RETRAIN_EVERY = 2
    settings.PREALIGNER_HELD_OUT_MINIMUM = 3  # the imported gold of video pairs 1, 2 and 3
    pairs = video_pairs()
    assert {n for n, p in enumerate(pairs) if prealigner.is_held_out(p.source, p.target)} == (
        HELD_OUT
    )
    stored = services.pairs_store(
        [_pair(number, pair) for number, pair in enumerate(pairs) if number != IMPORTED],
        open_hits=False,
    )
    for pair in stored[:IMPORTED]:
        Alignment.objects.create(
            pair=pair, annotator="gold", links=_gold(pair), status=Alignment.Status.ACCEPTED
        )
    trial = _pair(IMPORTED, pairs[IMPORTED])
    trial.is_trial, trial.gold_links = True, format_pharaoh(pairs[IMPORTED].alignment)
    trial.save()
    crowd.hits_open(
        rows=SentencePair.objects.filter(pk__in=[pair.pk for pair in stored[IMPORTED:]]),
        kind=HitType.Kind.ALIGNMENT,
    )
    return trial


def _pair(number, aligned):
    return SentencePair(
        origin=SentencePair.Origin.IMPORT,
        import_key=f"video:{number}",
        tokens_a=list(aligned.source),
        tokens_b=list(aligned.target),
    )


def _gold(pair) -> str:
    (aligned,) = [p for p in video_pairs() if list(p.source) == pair.tokens_a]
    return format_pharaoh(aligned.alignment)


def _imported(numbers) -> list[int]:
    """The ids of the imported gold alignments of the video pairs ``numbers``."""
    keys = [f"video:{number}" for number in numbers]
    return sorted(Alignment.objects.filter(pair__import_key__in=keys).values_list("pk", flat=True))


def submit_gold_alignment() -> Alignment:
    """A worker aligns the pair their HIT offers exactly as the gold does."""
    worker = make_worker()
    assignment = crowd.assignment_claim(worker=worker, tier=Tier.ONE, kind=HitType.Kind.ALIGNMENT)
    pair = SentencePair.objects.get(item_id=assignment.hit.item_id)
    alignment, _ = services.alignment_submit(
        assignment_id=assignment.pk, worker=worker, links=_gold(pair)
    )
    return alignment


def test_the_celery_worker_trains_again_on_newly_accepted_alignments(live_worker, site_gold):
    first = prealigner.supervised_aligner_train()
    assert first.trained_on == {
        "alignments": _imported([0]),
        "trial_pairs": [site_gold.pk],
        "held_out": {"alignments": _imported([1, 2, 3]), "trial_pairs": []},
    }
    assert first.training_pairs == 2
    # Nothing pre-aligned before it: it had to beat identical words on the held-out gold.
    assert first.took_over and first.judgement["against"] == "identical words one to one"
    assert first.held_out_f1 == first.judgement["f1"] > first.judgement["against_f1"]

    new = [submit_gold_alignment(), submit_gold_alignment()]
    review.alignments_review(
        alignment_ids=[a.pk for a in new], accept=True, reviewer=make_staff(), reason=""
    )

    wait_for(lambda: supervised_models().count() == 2)
    second = supervised_models().last()
    read = set(second.trained_on["alignments"]) | set(second.trained_on["held_out"]["alignments"])
    assert read == {*_imported(range(IMPORTED)), *(a.pk for a in new)}
    assert second.trained_on["trial_pairs"] == [site_gold.pk]
    assert second.training_pairs == len(second.trained_on["alignments"]) + 1
    assert second.trained_at >= first.trained_at
    # The workers' alignment of a held-out pair is now the site's own held-out gold, and it is
    # one pair, below the minimum: the new model is kept, with the reason, but does not take
    # over (on it, it does worse than identical words too).
    judged = second.judgement
    assert judged["against_model"] == first.pk and judged["judged_on"] == "the site's own"
    assert not second.took_over and judged["held_out_pairs"] == 1
    assert judged["f1"] < judged["identical_words_f1"]
    assert judged["reason"].startswith(
        "judged on 1 held-out pairs, fewer than PREALIGNER_HELD_OUT_MINIMUM (3); "
    )
    assert judged["reason"].endswith(f"{first} stays in use")
    assert prealigner.aligner_usable() == first
    # Pairs nobody has annotated stay pre-aligned by the first model; the trial pair, whose
    # gold it learnt from, is not (the trial would show its own answer).
    waiting = SentencePair.objects.filter(alignments__isnull=True, is_trial=False)
    assert waiting.exists() and all(pair.aligner == first for pair in waiting)
    assert SentencePair.objects.get(pk=site_gold.pk).aligner is None


def test_a_model_learnt_from_gold_of_another_kind_does_not_take_over(live_worker, site_gold):
    # Workers' accepted alignments of the held-out video pairs: the site's own held-out gold.
    for pair in SentencePair.objects.filter(import_key__in=[f"video:{n}" for n in HELD_OUT]):
        Alignment.objects.create(
            pair=pair, worker=make_worker(), links=_gold(pair), status=Alignment.Status.ACCEPTED
        )
    first = prealigner.supervised_aligner_train()
    assert first.took_over and first.judgement["judged_on"] == "the site's own"
    waiting = SentencePair.objects.filter(alignments__isnull=True, is_trial=False)
    assert waiting.exists() and all(pair.aligner == first for pair in waiting)

    for number, (source, target) in enumerate(NEWS):
        pair = SentencePair.objects.create(
            origin=SentencePair.Origin.IMPORT,
            import_key=f"news:{number}",
            tokens_a=source.split(),
            tokens_b=target.split(),
        )
        links = format_pharaoh(Links(sure=identical_word_anchors(pair.tokens_a, pair.tokens_b)))
        for annotator in "AB":
            Alignment.objects.create(
                pair=pair, annotator=annotator, links=links, status=Alignment.Status.ACCEPTED
            )
    enqueue("annotations.tasks.retrain_aligner")

    wait_for(lambda: supervised_models().count() == 2)
    second = supervised_models().last()
    judged = second.judgement
    assert not second.took_over and judged["against_model"] == first.pk
    assert second.held_out_f1 == judged["f1"] < judged["against_f1"]
    assert judged["judged_on"] == "the site's own" and judged["held_out_alignments"] == 5
    assert f"{first} stays in use" in judged["reason"]
    assert prealigner.aligner_usable() == first
    assert all(pair.aligner == first for pair in waiting)
    # It is not trained again on the same gold.
    assert prealigner.supervised_aligner_train() is None


@pytest.mark.django_db
def test_a_model_judged_on_fewer_held_out_pairs_than_the_minimum_does_not_take_over(
    site_gold, settings
):
    settings.PREALIGNER_HELD_OUT_MINIMUM = 4

    model = prealigner.supervised_aligner_train()

    judged = model.judgement
    assert not model.took_over and judged["held_out_pairs"] == 3
    # It did beat identical words: only the number of pairs kept it out.
    assert judged["f1"] > judged["identical_words_f1"] == judged["against_f1"]
    assert judged["reason"] == (
        "judged on 3 held-out pairs, fewer than PREALIGNER_HELD_OUT_MINIMUM (4): nothing pre-aligns"
    )
    assert prealigner.aligner_usable() is None
    assert not SentencePair.objects.exclude(aligner=None).exists()


@pytest.mark.django_db
def test_without_a_supervised_model_held_out_gold_chooses_identical_words_or_unsupervised(
    site_gold, settings
):
    settings.ALIGNER_MIN_TRAINING_PAIRS = 10_000
    unsupervised = services.aligner_train(iterations=1)
    assert prealigner.aligner_usable() is None

    chosen = prealigner.unsupervised_or_identical_choose()

    judged = chosen.judgement
    assert judged["unsupervised_model"] == unsupervised.pk and judged["held_out_pairs"] == 3
    assert chosen.held_out_f1 == max(judged["unsupervised_f1"], judged["identical_words_f1"])
    assert chosen.kind == (
        AlignerModel.Kind.UNSUPERVISED
        if judged["unsupervised_f1"] > judged["identical_words_f1"]
        else AlignerModel.Kind.IDENTICAL
    )
    assert prealigner.aligner_usable() == chosen
    waiting = SentencePair.objects.filter(alignments__isnull=True, is_trial=False)
    assert waiting.exists() and all(pair.aligner == chosen for pair in waiting)


@pytest.mark.django_db
def test_below_the_minimum_no_supervised_aligner_is_trained(site_gold, settings):
    settings.ALIGNER_MIN_GOLD_ALIGNMENTS = IMPORTED + 2
    assert prealigner.supervised_aligner_train() is None
    assert prealigner.aligner_usable() is None  # and no usable unsupervised one either


@pytest.mark.django_db
def test_a_training_asked_with_a_smaller_minimum_trains_below_the_sites(site_gold, settings):
    settings.ALIGNER_MIN_GOLD_ALIGNMENTS = IMPORTED + 2
    assert prealigner.supervised_aligner_train(force=True, min_gold=IMPORTED + 3) is None

    model = prealigner.supervised_aligner_train(force=True, min_gold=IMPORTED + 1)

    assert model.took_over and prealigner.aligner_usable() == model
    # The site's own minimum still holds for the periodic retraining.
    assert prealigner.supervised_aligner_train() is None


@pytest.mark.django_db
def test_it_is_not_trained_again_until_enough_alignments_are_new(site_gold):
    first = prealigner.supervised_aligner_train()
    assert prealigner.supervised_aligner_train() is None
    assert prealigner.aligner_usable() == first


@pytest.mark.django_db
def test_the_supervised_aligner_pre_aligns_new_pairs_and_never_links_punctuation_to_words(
    site_gold,
):
    model = prealigner.supervised_aligner_train()
    (pair,) = services.pairs_store(
        [
            SentencePair(
                origin=SentencePair.Origin.IMPORT,
                import_key="new:1",
                tokens_a=["a", "man", "is", "slicing", "a", "tomato", "."],
                tokens_b=["a", "man", "cuts", "a", "tomato", "!"],
            )
        ],
        open_hits=False,
    )
    assert pair.aligner == model
    links = prealigner.prealigner(model).prealign(pair.tokens_a, pair.tokens_b).possible
    assert {(1, 1), (5, 4)} <= links
    assert not {(6, j) for j in range(5)} & links and not {(i, 5) for i in range(6)} & links


@pytest.mark.django_db
def test_train_aligner_trains_the_supervised_aligner_on_the_new_model(site_gold, settings):
    settings.ALIGNER_MIN_TRAINING_PAIRS = 1
    out = StringIO()
    call_command("train_aligner", "--iterations", "1", stdout=out)
    supervised = supervised_models().get()
    assert supervised.base == AlignerModel.objects.get(kind=AlignerModel.Kind.UNSUPERVISED)
    assert "pre-aligned by the supervised aligner" in out.getvalue()
