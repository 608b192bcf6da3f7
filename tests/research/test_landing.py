"""After logging in, and on `/`, each role lands on its own home page, never on a 403."""

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse

from tests.factories import make_researcher, make_staff, make_worker

pytestmark = pytest.mark.django_db

PASSWORD = "correct horse battery"


@pytest.mark.parametrize(
    "make, home",
    [
        (lambda: make_worker().user, "collector:dashboard"),
        (make_staff, "review:overview"),
        (make_researcher, "research:home"),
    ],
)
def test_each_role_lands_on_its_home_after_logging_in_and_from_the_logo(client, make, home):
    user = make()
    response = client.post(
        reverse("login"), {"username": user.username, "password": PASSWORD}, follow=True
    )
    assert response.redirect_chain[-1][0] == reverse(home)
    assert response.status_code == 200
    logo = client.get(reverse("home"), follow=True)
    assert logo.redirect_chain[-1][0] == reverse(home) and logo.status_code == 200


def test_a_log_in_with_next_goes_where_it_was_asked(client):
    user = make_staff()
    response = client.post(
        reverse("login") + "?next=/review/audit/",
        {"username": user.username, "password": PASSWORD, "next": "/review/audit/"},
    )
    assert response["Location"] == "/review/audit/"


def test_visitors_and_accounts_without_a_role_see_the_home_page(client):
    assert client.get(reverse("home")).status_code == 200
    client.force_login(get_user_model().objects.create_user("nobody"))
    response = client.get(reverse("home"))
    assert response.status_code == 200
    assert response.content.decode().count("<h1") == 1
