"""Every text reaching the site is text: NUL, lone surrogates, undecodable bytes and control
characters are refused with a 400 that says so (JSON on the API) before any view runs,
bodies over a limit get a 413 that says which, and addresses over theirs a 414."""

import json

import pytest
from django.test import Client
from django.urls import reverse
from rest_framework.authtoken.models import Token

from crowd.models import Worker
from paracrowd.request_text import ADDRESS_MAX
from research.models import ExportJob
from tests.factories import make_researcher

pytestmark = pytest.mark.django_db


@pytest.fixture
def api(client):
    token = Token.objects.create(user=make_researcher())
    client.defaults["HTTP_AUTHORIZATION"] = f"Token {token.key}"
    return client


def refused_as_not_text(response) -> bool:
    if response["Content-Type"] == "application/json":
        return response.status_code == 400 and "not text" in response.json()["detail"]
    return response.status_code == 400 and "not valid UTF-8" in response.content.decode()


BAD_QUERIES = {
    "a NUL": "language=e%00n",
    "percent-encoded bytes that are not UTF-8": "language=%FF%FE",
    "raw bytes that are not UTF-8": "language=\xff\xfe",
    "an encoded surrogate": "language=%ED%A0%80",
    "a control character": "language=e%1Bn",
    "a NUL in a parameter's name": "lang%00uage=en",
}


@pytest.mark.parametrize("query", BAD_QUERIES.values(), ids=BAD_QUERIES.keys())
def test_an_api_query_parameter_that_is_not_text_answers_400_in_json(api, query):
    response = api.get(reverse("research-api:direct-paraphrases"), QUERY_STRING=query)
    assert refused_as_not_text(response)
    assert response["Content-Type"] == "application/json"


@pytest.mark.parametrize("query", BAD_QUERIES.values(), ids=BAD_QUERIES.keys())
def test_a_page_query_parameter_that_is_not_text_answers_400_with_a_page(client, query):
    response = client.get(reverse("login"), QUERY_STRING=query)
    assert refused_as_not_text(response)
    assert "<h1>Not sent</h1>" in response.content.decode()


def test_a_nul_in_the_path_answers_400(client):
    assert refused_as_not_text(client.get("/research/\x00/"))


def test_text_in_any_script_passes(api):
    response = api.get(reverse("research-api:direct-paraphrases"), {"language": "中文 é"})
    assert response.status_code == 200


BAD_FORMS = {
    "raw bytes that are not UTF-8": b"username=\xff\xfeadmin&password=x",
    "percent-encoded bytes that are not UTF-8": b"username=%FF%FEadmin&password=x",
    "a NUL": b"username=ad%00min&password=x",
    "an encoded surrogate": b"username=%ED%A0%80&password=x",
}


@pytest.mark.parametrize("body", BAD_FORMS.values(), ids=BAD_FORMS.keys())
def test_a_form_field_that_is_not_text_is_refused_before_the_view(client, body):
    response = client.post(
        reverse("signup"), body, content_type="application/x-www-form-urlencoded"
    )
    assert refused_as_not_text(response)
    assert not Worker.objects.exists()


@pytest.mark.parametrize("text", ["ad\x00min", "\udc80min", "ad\x1bmin"])
def test_a_multipart_field_that_is_not_text_is_refused(client, text):
    body = (
        b'--B\r\nContent-Disposition: form-data; name="username"\r\n\r\n'
        + text.encode("utf-8", errors="surrogateescape")
        + b"\r\n--B--\r\n"
    )
    response = client.post(reverse("signup"), body, content_type="multipart/form-data; boundary=B")
    assert refused_as_not_text(response)


BAD_JSON = {
    "an escaped NUL": b'{"format": "jsonl\\u0000"}',
    "an escaped lone surrogate": b'{"format": "\\ud800"}',
    "raw bytes that are not UTF-8": b'{"format": "\xff\xfe"}',
    "a NUL in a key": b'{"for\\u0000mat": "jsonl"}',
    "a NUL deep inside": b'{"format": "jsonl", "x": [{"y": ["\\u0000"]}]}',
}


@pytest.mark.parametrize("body", BAD_JSON.values(), ids=BAD_JSON.keys())
def test_a_json_body_that_is_not_text_answers_400_and_starts_nothing(api, body):
    response = api.post(reverse("research-api:exports"), body, content_type="application/json")
    assert refused_as_not_text(response)
    assert not ExportJob.objects.exists()


def test_a_body_that_is_not_json_is_left_to_the_api_parser(api):
    response = api.post(reverse("research-api:exports"), b"{", content_type="application/json")
    assert response.status_code == 400
    assert "JSON parse error" in response.json()["detail"]


@pytest.mark.parametrize(
    "header",
    [
        {"HTTP_AUTHORIZATION": "Token abc\x00def"},
        {"HTTP_AUTHORIZATION": "Token \xff\xfe"},
        {"HTTP_COOKIE": "sessionid=abcdefgh\x00ijkl"},
        {"HTTP_X_FORWARDED_FOR": "10.0.0.1\x00"},
    ],
    ids=["NUL in a token", "bytes in a token", "NUL in a cookie", "NUL in a forwarded address"],
)
def test_a_header_the_site_reads_that_is_not_text_answers_400(header):
    response = Client(**header).get(reverse("research-api:statistics"))
    assert refused_as_not_text(response)


def test_a_header_the_site_never_reads_may_hold_anything(client):
    assert client.get(reverse("login"), HTTP_USER_AGENT="odd\xff").status_code == 200


def test_another_sites_cookie_may_hold_anything():
    response = Client(HTTP_COOKIE="tracker=\xff\x00odd").get(reverse("login"))
    assert response.status_code == 200


def test_a_body_over_the_size_limit_answers_413_saying_the_limit(client, settings):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 1000
    response = client.post(reverse("signup"), {"username": "x" * 2000})
    assert response.status_code == 413
    assert "at most 1,000 bytes" in response.content.decode()


def test_an_api_body_over_the_size_limit_answers_413_in_json(api, settings):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 1000
    body = json.dumps({"format": "jsonl", "padding": "x" * 2000})
    response = api.post(reverse("research-api:exports"), body, content_type="application/json")
    assert response.status_code == 413
    assert "at most 1,000 bytes" in response.json()["detail"]


def test_an_api_body_larger_than_djangos_default_limit_still_reaches_the_api(api):
    # A ratings file of up to 5,000,000 characters travels as JSON; 2.5 MB is Django's default.
    body = json.dumps({"format": "jsonl", "padding": "x" * 3_000_000})
    response = api.post(reverse("research-api:exports"), body, content_type="application/json")
    assert response.status_code == 201


def test_too_many_fields_answers_413_saying_how_many(client, settings):
    settings.DATA_UPLOAD_MAX_NUMBER_FIELDS = 10
    response = client.post(reverse("signup"), {f"f{n}": "x" for n in range(20)})
    assert response.status_code == 413
    assert "too many fields: at most 10" in response.content.decode()


def test_an_api_address_over_its_length_limit_answers_414_in_json(api):
    path = reverse("research-api:direct-paraphrases")
    response = api.get(path, QUERY_STRING="language=" + "e" * ADDRESS_MAX)
    assert response.status_code == 414
    assert response.json() == {
        "detail": f"The address is too long: at most {ADDRESS_MAX:,} characters with its query "
        "string. Nothing was done.",
        "status": 414,
        "help": "Ask with fewer or shorter parameters.",
    }


def test_a_page_address_over_its_length_limit_answers_414_with_a_page(client):
    path = reverse("login")
    page = client.get(path, QUERY_STRING="next=" + "x" * (ADDRESS_MAX - len(path) - 4))
    assert page.status_code == 414
    assert f"at most {ADDRESS_MAX:,} characters" in page.content.decode()
    exactly = client.get(path, QUERY_STRING="next=" + "x" * (ADDRESS_MAX - len(path) - 5))
    assert exactly.status_code == 200


DEEP = {
    "arrays": b"[" * 5000,
    "closed arrays": b"[" * 5000 + b"]" * 5000,
    "objects": b'{"a":' * 5000 + b"1" + b"}" * 5000,
    "just past the limit": b"[" * 65 + b"]" * 65,
}
ADDRESSES = ["/api/exports/", "/accounts/login/", "/external/describe/", "/healthz"]


@pytest.mark.parametrize("address", ADDRESSES)
@pytest.mark.parametrize("body", DEEP.values(), ids=DEEP.keys())
def test_json_nested_too_deeply_answers_400_on_every_address(client, address, body):
    response = client.post(address, body, content_type="application/json")
    assert response.status_code == 400
    assert "nested too deeply" in response.content.decode()


def test_json_nested_too_deeply_answers_400_in_json_on_the_api(api):
    response = api.post(
        reverse("research-api:exports"), b"[" * 5000, content_type="application/json"
    )
    assert response.status_code == 400
    assert "at most 64 levels" in response.json()["detail"]
    assert not ExportJob.objects.exists()


def test_json_as_deep_as_the_limit_reaches_the_view(api):
    body = b"[" * 64 + b"]" * 64
    response = api.post(reverse("research-api:exports"), body, content_type="application/json")
    # The view's own refusal of a list where an object belongs: the edge let it through.
    assert response.status_code == 400
    assert "nested too deeply" not in response.content.decode()
