"""Score pages: staff see clusters and the corpus; workers see only their own scores."""

import pytest
from django.urls import reverse

from collector import services
from collector.models import Description
from crowd import services as crowd
from crowd.models import Tier, Worker
from crowd.services import worker_from_platform
from scoring.models import ReferenceCurveReport
from scoring.services import reference_curve_compute, reference_curve_request, segments_score
from tests.factories import make_description, make_researcher, make_segment, make_worker
from tests.pages import table_column

pytestmark = pytest.mark.django_db


@pytest.fixture
def cluster():
    segment = make_segment()
    texts = ["A man is playing a guitar.", "A man plays a guitar.", "<b>A man</b> strums."]
    for text in texts:
        worker = make_worker()
        assignment = crowd.assignment_claim(worker=worker, tier=Tier.ONE)
        description, _ = services.description_submit(
            assignment_id=assignment.pk, worker=worker, text=text, language="en"
        )
        # Accepted, as the cluster's scores count accepted descriptions alone.
        services.descriptions_review(
            description_ids=[description.pk],
            status=Description.Status.ACCEPTED,
            reviewed_by=None,
            reason="",
        )
    segments_score(segment_ids=[segment.pk])
    return segment


@pytest.fixture
def staff(client, admin_user):
    client.force_login(admin_user)
    return admin_user


def test_staff_see_a_cluster_with_its_scores_and_markup_escaped(client, staff, cluster):
    page = client.get(reverse("scoring:cluster", args=[cluster.pk])).content.decode()
    assert "A man plays a guitar." in page
    assert "&lt;b&gt;A man&lt;/b&gt; strums." in page and "<b>A man</b>" not in page
    assert "nrefs:2|" in page


def test_the_cluster_page_names_each_writer_as_the_exports_do_and_escapes_imported_ids(
    client, staff, cluster
):
    imported = worker_from_platform(platform=Worker.Platform.IMPORT, external_id="<i>w7</i>")
    make_description(cluster, "A guitarist performs.", worker=imported, tier=None)
    make_description(cluster, "A man plays music.", tier=None)
    page = client.get(reverse("scoring:cluster", args=[cluster.pk])).content.decode()
    writers = {d.worker.label for d in cluster.descriptions.filter(worker__platform="local")}
    assert writers == {f"local-{d.worker_id}" for d in cluster.descriptions.exclude(tier=None)}
    shown = {
        name
        for table in ("descriptions-accepted", "descriptions-pending")
        for name in table_column(page, table, "Worker")
    }
    assert shown == writers | {"<i>w7</i>", "imported"}
    assert "&lt;i&gt;w7&lt;/i&gt;" in page and "<i>w7</i>" not in page


def test_staff_see_the_corpus_distributions_and_the_last_computed_curve(client, staff, cluster):
    report = reference_curve_request(language="en", clusters=5, per_cluster=3, seed=0)
    assert reference_curve_compute(report_id=report.pk)
    response = client.get(reverse("scoring:corpus"), {"language": "en"})
    page = response.content.decode()
    assert response.status_code == 200
    assert "Leave-one-out BLEU of each description" in page and "<svg" in page
    # The charts carry their axes: what is counted, by what, and the count at the top.
    assert 'class="axis-label">descriptions</text>' in page and ">BLEU</text>" in page
    assert 'class="axis-label">clusters</text>' in page and 'text-anchor="end"' in page
    assert "Leave-one-out BLEU by number of references" in page
    assert "Sample of 5 clusters, 3 descriptions each, seed 0" in page and " s." in page
    assert page.count("<h1") == 1


def test_a_bad_sample_size_is_refused_with_a_message_and_changes_nothing(client, staff, cluster):
    for clusters in ["lots", "0", "2001"]:
        response = client.post(
            reverse("scoring:reference_curve"),
            {"language": "en", "clusters": clusters, "per_cluster": "3", "seed": "0"},
            follow=True,
        )
        assert response.status_code == 200
        assert "Clusters sampled:" in response.content.decode()
    assert not ReferenceCurveReport.objects.exists()


def test_workers_cannot_see_score_pages_and_visitors_are_sent_to_log_in(client, cluster):
    urls = [reverse("scoring:corpus"), reverse("scoring:cluster", args=[cluster.pk])]
    for url in urls:
        response = client.get(url)
        assert response.status_code == 302 and response["Location"].startswith(reverse("login"))
    client.force_login(make_worker().user)
    for url in urls:
        assert client.get(url).status_code == 403


def test_researchers_see_the_corpus_measures_from_their_header(client, cluster):
    client.force_login(make_researcher())
    page = client.get(reverse("research:home")).content.decode()
    assert f'href="{reverse("scoring:corpus")}"' in page
    assert f'href="{reverse("annotations:agreement")}"' in page
    for url in [
        reverse("scoring:corpus"),
        reverse("scoring:cluster", args=[cluster.pk]),
        reverse("annotations:agreement"),
    ]:
        assert client.get(url).status_code == 200, url


def test_a_worker_sees_their_own_scores_on_the_dashboard(client, cluster):
    worker = cluster.descriptions.get(text="A man plays a guitar.").worker
    client.force_login(worker.user)
    page = client.get(reverse("collector:dashboard")).content.decode()
    assert "BLEU" in page and "against 2 others" in page


def test_the_admin_lists_descriptions_with_scores(client, staff, cluster):
    response = client.get(reverse("admin:collector_description_changelist"))
    assert response.status_code == 200
    assert "&lt;b&gt;A man&lt;/b&gt;" in response.content.decode()


def test_every_admin_list_renders(client, staff, cluster):
    from django.contrib import admin

    for model in admin.site._registry:
        meta = model._meta
        url = reverse(f"admin:{meta.app_label}_{meta.model_name}_changelist")
        assert client.get(url).status_code == 200, url
        assert client.get(url, {"q": "guitar"}).status_code == 200, url
