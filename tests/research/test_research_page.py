"""The researcher page: statistics as the study reports them, exports, the API token."""

import pytest
from django.urls import reverse
from django.utils import timezone
from rest_framework.authtoken.models import Token

from collector.models import Description
from crowd.models import Tier
from research.models import ExportJob
from tests.factories import make_description, make_researcher, make_segment, make_worker

pytestmark = pytest.mark.django_db


@pytest.fixture
def researcher(client):
    user = make_researcher()
    client.force_login(user)
    return user


@pytest.fixture
def corpus():
    first, second = make_segment(), make_segment()
    for n in range(4):
        make_description(first, f"First {n}.", tier=Tier.TWO if n < 2 else Tier.ONE)
    make_description(second, "Second <b>bold</b>.", tier=Tier.TWO)
    make_description(second, "Awaiting.", status=Description.Status.PENDING)


def test_a_worker_is_refused_and_a_visitor_is_sent_to_log_in(client):
    assert client.get(reverse("research:home")).status_code == 302
    client.force_login(make_worker().user)
    assert client.get(reverse("research:home")).status_code == 403
    assert client.post(reverse("research:token_reset")).status_code == 403


def test_the_page_shows_the_studys_statistics_and_pending_work(client, researcher, corpus):
    page = client.get(reverse("research:home")).content.decode()

    assert page.count("<h1") == 1
    # All tiers: 2 segments, 5 descriptions, 2.5 per segment, 95% reach 1; Tier 2: 2, 3, 1.5, 1.
    assert "<td>2</td><td>2</td>" in page and "<td>5</td><td>3</td>" in page
    assert "<td>2.5</td><td>1.5</td>" in page
    assert "5 accepted,\n    1 pending review, 0 rejected" in page
    assert "Showing: status accepted." in page


def test_filters_change_the_statistics_and_bad_ones_are_shown_on_their_field(
    client, researcher, corpus
):
    page = client.get(reverse("research:home"), {"status": "pending"}).content.decode()
    assert "Showing: status pending." in page

    page = client.get(reverse("research:home"), {"min_cluster_size": "0"}).content.decode()
    assert 'class="field invalid" id="field-min_cluster_size"' in page


def test_an_export_started_on_the_page_keeps_the_filters_shown(client, researcher, corpus):
    response = client.post(
        reverse("research:export_start"),
        {
            "format": "pairs",
            "pairs_per_sentence": "1",
            "seed": "3",
            "test_fraction": "0.1",
            "status": "pending",
            "language": "en",
        },
    )

    assert response.status_code == 302 and "status=pending" in response["Location"]
    job = ExportJob.objects.get()
    assert (job.requested_by, job.format, job.state) == (researcher, "pairs", "queued")
    assert job.parameters["pairs_per_sentence"] == 1 and job.parameters["seed"] == 3
    assert job.parameters["filter"]["status"] == ["pending"]
    page = client.get(response["Location"]).content.decode()
    assert 'data-refresh="3"' in page and "Queued" in page


def test_a_bad_export_request_is_shown_with_its_field(client, researcher):
    response = client.post(reverse("research:export_start"), {"format": "xml", "seed": "0"})

    assert response.status_code == 400
    assert 'class="field invalid" id="field-format"' in response.content.decode()
    assert not ExportJob.objects.exists()


def test_a_researcher_can_replace_their_api_token(client, researcher):
    page = client.post(reverse("research:token_reset"), follow=True).content.decode()
    first = Token.objects.get(user=researcher).key
    # A first token replaces nothing, so the page does not speak of an old one.
    assert "Your API token is below." in page and "old one" not in page

    page = client.post(reverse("research:token_reset"), follow=True).content.decode()
    second = Token.objects.get(user=researcher).key

    assert first != second
    assert "The old one no longer works." in page
    assert second in client.get(reverse("research:home")).content.decode()


def test_help_texts_are_shown_as_written(client, researcher):
    # The system-outputs format line: "<TAB>" is text, not an HTML tag the browser drops.
    page = client.get(reverse("research:home")).content.decode()
    assert "source&lt;TAB&gt;output[&lt;TAB&gt;segment_id]" in page


def test_the_api_docs_page_works_without_the_internet(client, researcher):
    page = client.get(reverse("research-api:docs")).content.decode()

    assert "swagger-ui" in page and "cdn" not in page.lower()
    assert client.get(reverse("research-api:schema")).status_code == 200


def test_a_finished_export_shows_what_it_left_out_and_why(client, researcher):
    ExportJob.objects.create(
        requested_by=researcher,
        format="msvd-csv",
        parameters={},
        folder="exports/done",
        state=ExportJob.State.DONE,
        started_at=timezone.now(),
        finished_at=timezone.now(),
        files=["corpus.csv"],
        report={
            "lines": [
                "Exported 10 descriptions in 2 clusters (msvd-csv).",
                "Left out: 3 descriptions of hosted-file segments (MSVD CSV names YouTube videos)",
            ]
        },
    )
    page = client.get(reverse("research:home")).content.decode()
    assert "Exported 10 descriptions in 2 clusters" in page
    assert '<li class="left-out">Left out: 3 descriptions of hosted-file segments' in page


def test_the_page_names_its_sections_at_the_top(client, researcher):
    page = client.get(reverse("research:home")).content.decode()
    nav = page[
        page.index('aria-label="On this page"') : page.index("</nav>", page.index("On this page"))
    ]
    for anchor in (
        "filter-heading",
        "stats-heading",
        "exports-heading",
        "compare-heading",
        "api-heading",
    ):
        assert f'href="#{anchor}"' in nav and f'id="{anchor}"' in page


def test_exports_are_listed_ten_to_a_page_keeping_the_filters(client, researcher):
    for n in range(23):
        ExportJob.objects.create(
            requested_by=researcher, format="pairs", parameters={}, folder=f"exports/x{n}"
        )
    newest = ExportJob.objects.order_by("-id").first().pk
    page = client.get(reverse("research:home"), {"tier": "2"}).content.decode()
    assert page.count('<th scope="row">') - page.count('<th scope="row">Segments') >= 10
    assert f"{newest} · pairs" in page and f"{newest - 10} · pairs" not in page
    assert "Page 1 of 3" in page and "tier=2&amp;exports_page=2#exports-heading" in page
    last = client.get(reverse("research:home"), {"exports_page": "3"}).content.decode()
    assert f"{newest - 20} · pairs" in last and f"{newest - 19} · pairs" not in last
    # A page past the end, or not a number, shows a page that exists.
    assert "Page 3 of 3" in client.get(reverse("research:home"), {"exports_page": "99"}).text
    assert "Page 1 of 3" in client.get(reverse("research:home"), {"exports_page": "x"}).text
