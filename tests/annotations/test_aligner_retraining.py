"""The supervised pre-aligner learns from the site's human alignments and is trained again, by
the Celery worker, as staff accept more."""

from io import StringIO

import pytest
from django.core.management import call_command

from annotations import prealigner, review, services
from annotations.models import AlignerModel, Alignment, SentencePair
from crowd import services as crowd
from crowd.models import HitType, Tier
from paracrowd_metrics.alignment import format_pharaoh
from tests.annotations.test_evaluate_aligner import video_pairs
from tests.conftest import wait_for
from tests.factories import make_staff, make_worker

IMPORTED = 4  # pairs 1–4 come with an imported gold annotation; pair 5 is the trial pair


def supervised_models():
    return AlignerModel.objects.filter(kind=AlignerModel.Kind.SUPERVISED).order_by("pk")


@pytest.fixture
def site_gold(settings):
    """Imported gold for four pairs, one trial pair, and the other pairs offered as HITs."""
    settings.ALIGNER_MIN_GOLD_ALIGNMENTS = IMPORTED + 1
    settings.ALIGNER_RETRAIN_EVERY = 2
    pairs = video_pairs()
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
    imported = sorted(Alignment.objects.values_list("pk", flat=True))
    assert first.trained_on == {"alignments": imported, "trial_pairs": [site_gold.pk]}
    assert first.training_pairs == IMPORTED + 1

    new = [submit_gold_alignment(), submit_gold_alignment()]
    review.alignments_review(
        alignment_ids=[a.pk for a in new], accept=True, reviewer=make_staff(), reason=""
    )

    wait_for(lambda: supervised_models().count() == 2)
    second = supervised_models().last()
    assert second.trained_on["alignments"] == sorted([*imported, *(a.pk for a in new)])
    assert second.trained_on["trial_pairs"] == [site_gold.pk]
    assert second.training_pairs == IMPORTED + 1 + 2
    assert second.trained_at >= first.trained_at
    # Pairs nobody has annotated are pre-aligned by the new model; the trial pair, whose gold
    # it learnt from, is not (the trial would show its own answer).
    waiting = SentencePair.objects.filter(alignments__isnull=True, is_trial=False)
    assert waiting.exists() and all(pair.aligner == second for pair in waiting)
    assert SentencePair.objects.get(pk=site_gold.pk).aligner is None


@pytest.mark.django_db
def test_below_the_minimum_no_supervised_aligner_is_trained(site_gold, settings):
    settings.ALIGNER_MIN_GOLD_ALIGNMENTS = IMPORTED + 2
    assert prealigner.supervised_aligner_train() is None
    assert prealigner.aligner_usable() is None  # and no usable unsupervised one either


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
