"""The stored agreement table follows each new alignment and equals a full recomputation."""

import threading
from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.db import connection
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from annotations import services
from annotations.agreement import corpus_agreement
from annotations.agreement_store import (
    agreement_pair_update,
    agreement_recompute,
    changed_pairs,
    share_compute,
    stored_models,
)
from annotations.models import AgreementReport, Alignment, PairAgreement, SentencePair
from paracrowd_metrics.alignment import AgreementTotals, share_totals
from tests.annotations.test_agreement_pipeline import LINKS, annotate, make_pair
from tests.conftest import wait_for

SENTENCES = [
    (["A", "man", "plays", "a", "guitar"], ["A", "guy", "strums", "guitar"]),
    (["The", "cat", "sleeps"], ["A", "cat", "is", "asleep", "now"]),
    (["Two", "dogs", "run", "on", "the", "beach"], ["Dogs", "run", "along", "a", "shore"]),
]
ANNOTATORS = ["A", "B", "C", "D"]
SHORT_LINKS = ["0-0 1-1", "0-0 1p1 2-2", "0-0 2-2"]  # inside every pair of SENTENCES


def store_pairs() -> list[SentencePair]:
    return services.pairs_store(
        [
            SentencePair(
                origin=SentencePair.Origin.IMPORT,
                import_key=f"store:{number}",
                tokens_a=source,
                tokens_b=target,
                pre_alignment="0-0 1-1",
            )
            for number, (source, target) in enumerate(SENTENCES)
        ],
        open_hits=False,
    )


def links_for(pair: SentencePair, cells: list[tuple[int, int, bool]]) -> str:
    """Pharaoh links from (i, j, sure) draws, folded into the pair's grid."""
    n, m = len(pair.tokens_a), len(pair.tokens_b)
    chosen = {(i % n, j % m): sure for i, j, sure in cells}
    return " ".join(f"{i}{'-' if sure else 'p'}{j}" for (i, j), sure in sorted(chosen.items()))


def stored_report() -> AgreementReport:
    return AgreementReport.objects.get(pk=1)


def assert_equals_a_full_recomputation():
    report = stored_report()
    assert report.table == corpus_agreement(models=stored_models(report))
    shares = AgreementTotals.sum(share_totals(row.share) for row in PairAgreement.objects.all())
    assert AgreementTotals.from_json(report.totals) == shares


alignment_steps = st.lists(
    st.tuples(
        st.integers(0, len(SENTENCES) - 1),
        st.sampled_from(ANNOTATORS),
        st.lists(st.tuples(st.integers(0, 5), st.integers(0, 5), st.booleans()), max_size=6),
    ),
    min_size=1,
    max_size=10,
)


@pytest.mark.django_db
@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(steps=alignment_steps)
def test_each_new_alignment_leaves_the_table_a_full_recomputation_would_give(steps):
    SentencePair.objects.all().delete()
    AgreementReport.objects.all().delete()
    pairs = store_pairs()
    agreement_recompute()  # nothing aligned yet: the empty sums
    for index, annotator, cells in steps:
        pair = pairs[index]
        if Alignment.objects.filter(pair=pair, annotator=annotator).exists():
            continue
        Alignment.objects.create(pair=pair, annotator=annotator, links=links_for(pair, cells))
        agreement_pair_update(pair_id=pair.pk)
        assert not changed_pairs().filter(pk=pair.pk).exists()
    if stored_report().table is not None:
        assert_equals_a_full_recomputation()


@pytest.mark.django_db
def test_a_full_recomputation_refits_the_edit_models_and_equals_the_table_afresh():
    pairs = store_pairs()
    for pair in pairs:
        for annotator, links in zip("ABC", SHORT_LINKS, strict=True):
            Alignment.objects.create(pair=pair, annotator=annotator, links=links)
    assert agreement_recompute()
    assert stored_report().table == corpus_agreement()
    assert_equals_a_full_recomputation()


@pytest.mark.django_db
def test_updating_a_pair_twice_counts_it_once():
    (pair, *_) = store_pairs()
    agreement_recompute()
    for annotator, links in zip("AB", SHORT_LINKS[:2], strict=True):
        Alignment.objects.create(pair=pair, annotator=annotator, links=links)
    assert agreement_pair_update(pair_id=pair.pk)
    table = stored_report().table
    assert not agreement_pair_update(pair_id=pair.pk)  # a retry, or a second task
    assert stored_report().table == table
    assert table["corpus"]["items"] == 1
    assert_equals_a_full_recomputation()


@pytest.mark.django_db
def test_the_periodic_sweep_catches_up_with_alignments_imported_in_bulk():
    pairs = store_pairs()
    agreement_recompute()
    Alignment.objects.bulk_create(
        [Alignment(pair=pair, annotator=name, links="0-1") for pair in pairs for name in "AB"]
    )
    assert set(changed_pairs()) == {pair.pk for pair in pairs}
    from annotations.tasks import refresh_agreement

    assert refresh_agreement()
    assert not changed_pairs().exists()
    assert stored_report().table["corpus"]["items"] == len(pairs)
    assert_equals_a_full_recomputation()


@pytest.mark.django_db(transaction=True)
def test_two_alignments_of_one_pair_finishing_together_are_both_counted():
    (pair, *_) = store_pairs()
    agreement_recompute()
    Alignment.objects.create(pair=pair, annotator="A", links=LINKS[0])
    barrier = threading.Barrier(2)

    def align(annotator, links):
        try:
            Alignment.objects.create(pair=pair, annotator=annotator, links=links)
            barrier.wait()
            agreement_pair_update(pair_id=pair.pk)
        finally:
            connection.close()

    threads = [
        threading.Thread(target=align, args=(name, links))
        for name, links in zip("BC", LINKS[1:], strict=True)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert PairAgreement.objects.get(pair=pair).alignments == 3
    assert stored_report().table["corpus"]["items"] == 3  # A–B, A–C, B–C
    assert_equals_a_full_recomputation()


def test_workers_alignments_reach_the_table_through_the_celery_worker(live_worker):
    agreement_recompute()
    for number in (11, 12):
        pair = make_pair(number)
        for links in LINKS[:2]:  # a pair's HIT takes two alignments
            annotate(pair, links)
    wait_for(lambda: not changed_pairs().exists())
    wait_for(lambda: (stored_report().table or {}).get("corpus", {}).get("items") == 2)
    assert_equals_a_full_recomputation()


@pytest.mark.django_db
def test_the_command_checks_the_stored_table_against_a_full_recomputation():
    pairs = store_pairs()
    call_command("agreement_refresh", "--full", stdout=StringIO())
    for pair in pairs:
        for annotator, links in zip("AB", SHORT_LINKS[:2], strict=True):
            Alignment.objects.create(pair=pair, annotator=annotator, links=links)
    out = StringIO()
    call_command("agreement_refresh", stdout=out)
    call_command("agreement_refresh", "--check", stdout=out)
    assert "equals a full recomputation" in out.getvalue()
    AgreementReport.objects.filter(pk=1).update(totals={}, table={"corpus": {}})
    with pytest.raises(CommandError, match="differs from a full recomputation"):
        call_command("agreement_refresh", "--check", stdout=StringIO())


@pytest.mark.django_db
def test_a_share_computed_before_another_alignment_arrived_is_computed_again():
    (pair, *_) = store_pairs()
    agreement_recompute()
    for annotator, links in zip("AB", SHORT_LINKS[:2], strict=True):
        Alignment.objects.create(pair=pair, annotator=annotator, links=links)
    models = stored_models(stored_report())
    early = share_compute(pair.pk, models)
    assert early.still_valid(pair.pk, early.models)
    Alignment.objects.create(pair=pair, annotator="C", links=SHORT_LINKS[2])
    assert not early.still_valid(pair.pk, early.models)
    assert agreement_pair_update(pair_id=pair.pk)
    assert stored_report().table["corpus"]["items"] == 3
    assert_equals_a_full_recomputation()
