"""What load balancers and users see when a backing service is down.

Security behaviour: `/healthz` is open to anyone (load balancers send no credentials) and says
only "ok" or "unavailable" per service, never why; the error pages show no details.
"""

import json
import sys

import redis
from django.conf import settings
from django.db import DatabaseError, InterfaceError, OperationalError, connection
from django.http import HttpResponse, JsonResponse
from django.template import loader
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET
from django.views.defaults import server_error as django_server_error

from paracrowd.scaling import redis_client, redis_location

# How long a client should wait before trying again when the database is out of reach: long
# enough for a restart or a failover, short enough that nobody gives up.
RETRY_AFTER_SECONDS = 30
UNAVAILABLE = (OperationalError, InterfaceError)


@never_cache
@require_GET
def healthz(request):
    """Anyone: 200 when the database answers a query and the broker a ping, else 503 naming
    which is down. Each check gives up within a couple of seconds."""
    checks = {"database": _database_answers(), "broker": _broker_answers()}
    healthy = all(checks.values())
    response = JsonResponse(
        {name: "ok" if up else "unavailable" for name, up in checks.items()},
        status=200 if healthy else 503,
    )
    if not healthy:
        response["Retry-After"] = str(RETRY_AFTER_SECONDS)
    return response


def server_error(request):
    """Django's handler500. A database that cannot be reached or has no connection left is a
    passing outage, not a bug: the client gets 503 with Retry-After and a page that needs no
    database (so it cannot fail the same way); anything else is Django's 500."""
    error = sys.exc_info()[1]
    if not isinstance(error, UNAVAILABLE):
        return django_server_error(request)
    if request.path.startswith("/api/"):
        body = json.dumps({"detail": "The service is briefly unavailable; try again shortly."})
        response = HttpResponse(body, status=503, content_type="application/json")
    else:
        page = loader.get_template("503.html").render({"retry_after": RETRY_AFTER_SECONDS})
        response = HttpResponse(page, status=503)
    response["Retry-After"] = str(RETRY_AFTER_SECONDS)
    return response


def _database_answers() -> bool:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
        return True
    except DatabaseError:
        # The broken connection is dropped so the next request connects afresh.
        connection.close_if_unusable_or_obsolete()
        return False


def _broker_answers() -> bool:
    # The master the Sentinels name, when the broker is behind Sentinel (paracrowd.scaling).
    location = redis_location(
        settings.CELERY_BROKER_URL, master=settings.REDIS_SENTINEL_MASTER, name="REDIS_URL"
    )
    client = redis_client(location, socket_connect_timeout=1, socket_timeout=1)
    try:
        return bool(client.ping())
    except redis.RedisError:
        return False
    finally:
        client.close()
