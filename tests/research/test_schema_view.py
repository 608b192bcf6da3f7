"""The API's schema is generated once per process, so concurrent requests cannot race in
drf-spectacular's generator (which is not thread-safe)."""

from concurrent.futures import ThreadPoolExecutor

import pytest
import requests
from rest_framework.authtoken.models import Token

from research import schema
from tests.factories import make_researcher

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def fresh_schema():
    schema._GENERATED.clear()
    yield
    schema._GENERATED.clear()


def test_thirty_concurrent_schema_requests_all_answer_the_same_schema(live_server, fresh_schema):
    token = Token.objects.create(user=make_researcher()).key
    url = f"{live_server.url}/api/schema/?format=json"

    def fetch(_):
        answer = requests.get(url, headers={"Authorization": f"Token {token}"}, timeout=60)
        return answer.status_code, answer.content

    with ThreadPoolExecutor(max_workers=10) as pool:
        answers = list(pool.map(fetch, range(30)))
    assert {status for status, _ in answers} == {200}
    assert len({body for _, body in answers}) == 1
