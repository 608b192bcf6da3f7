"""The site's Content-Security-Policy header, built once, is the one django-csp builds; a view
that changes its policy still gets its own."""

import pytest
from csp.constants import HEADER, NONCE
from csp.decorators import csp_replace
from csp.utils import build_policy
from django.http import HttpResponse
from django.test import RequestFactory, override_settings

from paracrowd.content_security import CSPMiddleware

pytestmark = pytest.mark.django_db


def respond(view):
    request = RequestFactory().get("/")
    middleware = CSPMiddleware(view)
    return middleware(request)


def plain_view(request):
    return HttpResponse("plain")


@csp_replace({"frame-ancestors": ["https://worker.mturk.com"]})
def framable_view(request):
    return HttpResponse("framed")


def test_a_plain_response_gets_the_sites_policy():
    assert respond(plain_view)[HEADER] == build_policy()


def test_a_view_that_replaces_the_policy_keeps_its_own_after_plain_responses():
    respond(plain_view)
    header = respond(framable_view)[HEADER]
    assert "frame-ancestors https://worker.mturk.com" in header
    assert respond(plain_view)[HEADER] == build_policy()


def test_changed_settings_change_the_header():
    respond(plain_view)
    policy = {"DIRECTIVES": {"default-src": ["'none'"]}}
    with override_settings(CONTENT_SECURITY_POLICY=policy):
        assert respond(plain_view)[HEADER] == "default-src 'none'"
    assert respond(plain_view)[HEADER] == build_policy()


def test_a_template_asking_for_a_nonce_gets_it_in_the_header():
    def nonce_view(request):
        return HttpResponse(str(request.csp_nonce))

    respond(plain_view)
    policy = {"DIRECTIVES": {"script-src": ["'self'", NONCE]}}
    with override_settings(CONTENT_SECURITY_POLICY=policy):
        response = respond(nonce_view)
    assert f"script-src 'self' 'nonce-{response.content.decode()}'" in response[HEADER]
