"""What bench/worker_loop.py seeds, as each level needs it: segments offered as description
HITs, workers with logged-in sessions, workers for the raw-SQL reference.

Not a benchmark itself (`make bench` skips files starting with an underscore).
"""

import math


def segments_add(count: int) -> None:
    """``count`` more segments, each offered as a description HIT in both tiers."""
    from decimal import Decimal

    from collector.models import Segment
    from collector.services import segments_offer

    first = Segment.objects.count()
    created = Segment.objects.bulk_create(
        [
            Segment(
                source=Segment.Source.YOUTUBE,
                youtube_id=f"b{number:010d}",
                start=Decimal(0),
                end=Decimal(4),
                title=f"Bench segment {number}",
            )
            for number in range(first, first + count)
        ],
        batch_size=1000,
    )
    segments_offer(segments=Segment.objects.filter(pk__in=[s.pk for s in created]))


def open_places() -> int:
    """Tier-1 description places nobody has submitted or holds."""
    from django.db.models import Sum

    from crowd.models import Assignment, Hit, HitType

    hits = Hit.objects.filter(hit_type__kind=HitType.Kind.DESCRIPTION, tier=1)
    wanted = hits.aggregate(open=Sum("max_assignments") - Sum("submitted_count"))["open"] or 0
    held = Assignment.objects.filter(hit__in=hits, status=Assignment.Status.ASSIGNED).count()
    return wanted - held


def places_ensure(needed: int, *, target: int) -> None:
    """At least ``needed`` open places: a level never runs out of work (which would end it
    early and measure nothing), and the bench seeds only what its levels can use."""
    missing = needed - open_places()
    if missing > 0:
        segments_add(math.ceil(missing / target))


def sessions_create(prefix: str, count: int) -> list[str]:
    """``count`` new workers, each with a logged-in session; returns the session keys."""
    from importlib import import_module

    from django.conf import settings
    from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY

    from crowd.models import Worker

    session_store = import_module(settings.SESSION_ENGINE).SessionStore
    users = get_user_model_rows([f"{prefix}-{number}" for number in range(count)])
    Worker.objects.bulk_create(Worker(user=user) for user in users)
    keys = []
    # Logging in is not what is measured: sessions are written directly.
    for user in users:
        session = session_store()
        session[SESSION_KEY] = str(user.pk)
        session[BACKEND_SESSION_KEY] = "crowd.auth_backend.WorkerProfileBackend"
        session[HASH_SESSION_KEY] = user.get_session_auth_hash()
        session.create()
        keys.append(session.session_key)
    return keys


def pgbench_table_create() -> None:
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute(
            "CREATE TABLE bench_insert (id bigserial PRIMARY KEY, worker int, text text,"
            " created timestamptz DEFAULT now())"
        )


def raw_workers(prefix: str, count: int) -> list[int]:
    """Ids of ``count`` new workers for the raw-SQL reference."""
    from crowd.models import Worker

    users = get_user_model_rows([f"{prefix}-{number}" for number in range(count)])
    return [worker.pk for worker in Worker.objects.bulk_create(Worker(user=user) for user in users)]


def get_user_model_rows(usernames: list[str]):
    from django.contrib.auth import get_user_model

    users = get_user_model()
    unusable = "!"  # noqa: S105 (these workers never log in)
    return users.objects.bulk_create(users(username=name, password=unusable) for name in usernames)
