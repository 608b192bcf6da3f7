"""Annotators are named by ``Worker.label`` in the agreement tables, the pages showing them and
the stored report, and a report stored under the earlier names is recomputed, never mixed."""

import importlib
import json

import pytest
from django.apps import apps
from django.urls import reverse

from annotations.agreement import corpus_agreement
from annotations.agreement_store import agreement_pair_update, agreement_recompute, stored_models
from annotations.models import AgreementReport, Alignment, PairAgreement
from annotations.tasks import refresh_agreement
from crowd.models import Worker
from crowd.services import worker_from_platform
from tests.annotations.test_agreement_pipeline import LINKS, annotate, make_pair
from tests.factories import make_staff, make_worker

pytestmark = pytest.mark.django_db

# The migration that had stored reports recomputed under the new names.
relabel = importlib.import_module(
    "annotations.migrations.0010_agreement_recomputed_for_worker_labels"
)


def _annotated_by_workers():
    """A pair aligned by two local workers; their labels and usernames."""
    pair = make_pair(21)
    annotate(pair, LINKS[0])
    annotate(pair, LINKS[1])
    workers = [alignment.worker for alignment in pair.alignments.order_by("pk")]
    return pair, [w.label for w in workers], [w.user.username for w in workers]


def _report() -> AgreementReport:
    return AgreementReport.objects.get(pk=1)


def test_the_agreement_tables_and_the_pair_page_name_annotators_by_their_label(client):
    pair, labels, usernames = _annotated_by_workers()
    refresh_agreement()
    report = _report()
    assert [row["label"] for row in report.table["per_annotator"]] == sorted(labels)
    assert report.table["pairwise"][0]["label"] == " – ".join(sorted(labels))
    assert set(report.edit_models) == set(labels)
    client.force_login(make_staff())
    for url in (reverse("annotations:agreement"), reverse("annotations:pair", args=[pair.pk])):
        page = client.get(url).content.decode()
        assert all(label in page for label in labels), url
        assert not any(username in page for username in usernames), url


def test_a_worker_new_since_the_last_recomputation_gets_an_edit_model_under_their_label():
    agreement_recompute()
    platform = worker_from_platform(platform=Worker.Platform.MTURK, external_id="A<b>1")
    pair = make_pair(22)
    Alignment.objects.create(pair=pair, worker=platform, links=LINKS[0])
    Alignment.objects.create(pair=pair, worker=make_worker(), links=LINKS[1])
    assert agreement_pair_update(pair_id=pair.pk)
    assert f"mturk-{platform.pk}" in _report().edit_models
    assert "A<b>1" not in json.dumps(_report().table)


def test_a_report_stored_under_the_earlier_names_is_recomputed_under_the_labels(client):
    pair, labels, usernames = _annotated_by_workers()
    refresh_agreement()
    # As the report stood before: the same sums keyed by each worker's username.
    report, rows = _report(), PairAgreement.objects.all()
    renamed = {}
    for field in ("table", "totals", "edit_models"):
        text = json.dumps(getattr(report, field))
        for label, username in zip(labels, usernames, strict=True):
            text = text.replace(label, username)
        renamed[field] = json.loads(text)
    AgreementReport.objects.filter(pk=1).update(**renamed)
    for row in rows:
        text = json.dumps(row.share)
        for label, username in zip(labels, usernames, strict=True):
            text = text.replace(label, username)
        PairAgreement.objects.filter(pk=row.pk).update(share=json.loads(text))

    relabel.mark_not_computed(apps, None)

    assert not PairAgreement.objects.exists() and _report().totals is None
    client.force_login(make_staff())
    page = client.get(reverse("annotations:agreement")).content.decode()
    assert 'id="agreement-pending"' in page and "No sentence pair has two" not in page
    assert not any(username in page for username in usernames)

    # The next alignment (or the periodic sweep) recomputes every pair under the labels.
    Alignment.objects.create(pair=pair, worker=make_worker(), links=LINKS[2])
    assert agreement_pair_update(pair_id=pair.pk)
    report = _report()
    assert set(labels) < set(report.edit_models)
    assert not any(username in json.dumps(report.table) for username in usernames)
    assert not any(
        username in json.dumps(row.share)
        for row in PairAgreement.objects.all()
        for username in usernames
    )
    assert report.table == corpus_agreement(models=stored_models(report))
