"""One refusal page (HTML) and one JSON shape (API) for 401, 403, 404 and 429: each says what
happened and what to do."""

import pytest
from django.test import Client
from django.urls import reverse
from rest_framework.test import APIClient

from research.refusals import WHAT_TO_DO
from tests.factories import make_researcher, make_staff, make_worker

pytestmark = pytest.mark.django_db


def test_a_visitor_to_a_staff_page_is_sent_to_the_sites_log_in_and_back(client):
    response = client.get(reverse("review:ledger"))
    assert response.status_code == 302
    assert response["Location"] == f"{reverse('login')}?next={reverse('review:ledger')}"


def test_a_worker_on_a_staff_page_gets_the_refusal_page_saying_what_to_do(client):
    worker = make_worker(username="wanda")
    client.force_login(worker.user)
    response = client.get(reverse("review:ledger"))
    page = response.content.decode()
    assert response.status_code == 403 and page.count("<h1>") == 1
    assert "This page is for staff." in page and "logged in as <strong>wanda</strong>" in page
    assert f'href="{reverse("login")}?next=/review/ledger/"' in page


def test_a_researcher_on_a_staff_page_and_a_staff_member_on_a_worker_page_are_refused(client):
    client.force_login(make_researcher())
    assert client.get(reverse("review:ledger")).status_code == 403
    client.force_login(make_staff())
    response = client.get(reverse("collector:dashboard"))
    assert response.status_code == 403
    assert "this account is not one" in response.content.decode()


def test_the_admin_sends_a_visitor_to_the_sites_log_in_and_refuses_a_worker_in_words(client):
    campaigns = reverse("admin:crowd_campaign_changelist")
    response = client.get(campaigns, follow=True)
    assert response.redirect_chain[-1][0] == f"{reverse('login')}?next={campaigns}"
    client.force_login(make_worker(username="wanda").user)
    response = client.get(campaigns, follow=True)
    page = response.content.decode()
    assert response.status_code == 403 and "This page is for staff." in page
    assert "logged in as <strong>wanda</strong>" in page and 'id="login-form"' not in page


def test_staff_logged_in_pass_the_admins_log_in_to_where_they_were_going(client):
    client.force_login(make_staff())
    response = client.get(reverse("admin:login"), {"next": "https://elsewhere.example/"})
    assert response.status_code == 302 and response["Location"] == reverse("admin:index")
    campaigns = reverse("admin:crowd_campaign_changelist")
    assert client.get(reverse("admin:login"), {"next": campaigns})["Location"] == campaigns


def test_a_form_without_its_csrf_token_is_refused_in_the_same_style():
    client = Client(enforce_csrf_checks=True)
    client.force_login(make_staff())
    response = client.post(reverse("review:payout"), {"reason": "x"})
    page = response.content.decode()
    assert response.status_code == 403 and "<h1>Not sent</h1>" in page
    assert "Nothing was saved" in page and 'class="site-header"' in page


def test_a_missing_page_says_so_in_the_same_style(client):
    response = client.get("/no-such-page/")
    page = response.content.decode()
    assert response.status_code == 404 and "Nothing here" in page
    assert 'class="site-header"' in page and "/no-such-page/" in page


@pytest.mark.parametrize(
    "who, path, status",
    [
        (None, "/api/segments/", 401),
        ("worker", "/api/segments/", 403),
        ("researcher", "/api/segments/999999/", 404),
        ("researcher", "/api/no-such-endpoint/", 404),
    ],
)
def test_the_api_refuses_in_one_json_shape(who, path, status):
    api = APIClient()
    if who == "worker":
        api.force_authenticate(make_worker().user)
    elif who == "researcher":
        api.force_authenticate(make_researcher())
    response = api.get(path)
    assert response.status_code == status
    body = response.json()
    assert set(body) == {"detail", "status", "help"}
    assert body["status"] == status and body["help"] == WHAT_TO_DO[status] and body["detail"]


def test_a_throttled_api_request_answers_429_in_the_same_shape(address, settings):
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {
            **settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"],
            "bad_token": "1/hour",
        },
    }
    api = APIClient(REMOTE_ADDR=address)
    api.credentials(HTTP_AUTHORIZATION=f"Token guess{0:036d}")
    assert api.get("/api/segments/").status_code == 401
    response = api.get("/api/segments/")
    assert response.status_code == 429 and int(response["Retry-After"]) > 0
    body = response.json()
    assert body["status"] == 429 and body["help"] == WHAT_TO_DO[429]
