"""The site's own pages where Django answers bare: 405 on a POST-only address opened as a link,
and 404 under DEBUG, which ``make run`` sets."""

import pytest
from django.urls import reverse

from tests.factories import make_worker

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("name", ["crowd:task_next", "scoring:reference_curve"])
def test_opening_a_post_only_address_answers_the_sites_405_page(client, name):
    client.force_login(make_worker().user)
    response = client.get(reverse(name))
    page = response.content.decode()
    assert response.status_code == 405 and response["Allow"] == "POST"
    assert "<h1>This address is not a page to open</h1>" in page
    assert 'class="site-header"' in page
    assert "Content-Security-Policy" in response


def test_a_missing_page_under_debug_is_the_sites_page_not_the_debug_list(client, settings):
    settings.DEBUG = True
    response = client.get("/no-such-page/")
    page = response.content.decode()
    assert response.status_code == 404 and "<h1>Nothing here</h1>" in page
    assert "Using the URLconf" not in page and "DEBUG = True" not in page


def test_a_views_404_under_debug_is_the_sites_page(client, settings):
    settings.DEBUG = True
    client.force_login(make_worker().user)
    response = client.get(reverse("collector:describe", args=[999999]))
    page = response.content.decode()
    assert response.status_code == 404 and "<h1>Nothing here</h1>" in page
    assert "DEBUG = True" not in page


def test_a_missing_address_without_its_slash_is_still_redirected_under_debug(client, settings):
    settings.DEBUG = True
    response = client.get("/review/gold")
    assert response.status_code == 301 and response.url == "/review/gold/"
