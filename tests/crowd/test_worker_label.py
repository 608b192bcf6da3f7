"""``Worker.label``, how research tables and exports name a worker, and its SQL twin agree."""

import pytest

from crowd.models import Qualification, Tier, Worker, worker_label_sql
from crowd.services import worker_from_platform
from research.selection import worker_label
from tests.factories import make_worker

pytestmark = pytest.mark.django_db


def test_the_label_in_python_and_in_sql_is_one_name_for_every_kind_of_worker():
    local = make_worker(username="demo-writer-ana")
    platform = worker_from_platform(platform=Worker.Platform.MTURK, external_id="A1B2C3")
    imported = worker_from_platform(platform=Worker.Platform.IMPORT, external_id="msvd-117")
    workers = [local, platform, imported]
    for worker in workers:
        Qualification.objects.create(worker=worker, tier=Tier.TWO, reason="test")
    # Neither a username nor a crowd platform's worker id: our own id, except for an
    # imported corpus, whose own worker id round-trips.
    assert [w.label for w in workers] == [
        f"local-{local.pk}",
        f"mturk-{platform.pk}",
        "msvd-117",
    ]
    rows = Qualification.objects.order_by("worker_id")
    for sql in (worker_label(), worker_label_sql("worker")):
        by_worker = dict(rows.annotate(label=sql).values_list("worker_id", "label"))
        assert by_worker == {w.pk: w.label for w in workers}


def test_a_worker_is_still_called_by_their_platform_id_where_staff_moderate_them():
    platform = worker_from_platform(platform=Worker.Platform.MTURK, external_id="A1B2C3")
    assert str(platform) == "A1B2C3" and str(make_worker(username="ana")) == "ana"
