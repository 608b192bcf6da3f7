"""Making releases: numbered when asked for, written once by a Celery worker (or by
``manage.py release`` in its own process), never changed afterwards."""

import logging
import secrets
from pathlib import Path

from django.conf import settings
from django.db import connection, transaction
from django.db.models import Max
from django.utils import timezone

from paracrowd.celery import enqueue
from research.destinations import Destination
from research.exports import snapshot
from research.models import Release

from .options import ReleaseError, ReleaseOptions
from .recording import RecordingDestination
from .writing import release_write

logger = logging.getLogger(__name__)

RELEASES_FOLDER = "releases"


def release_create(
    *, user, options: ReleaseOptions, output: str | None = None, queue: bool = True
) -> Release:
    """Number the next release and record it; queue it (on commit) when ``queue``. Its files
    go to the default storage's ``releases/<number>-<random>``, or to ``output`` (a path or
    s3:// URL). The random part keeps the folder unguessable, should anything ever serve the
    storage as it is (a web server, a bucket made public): downloads go through
    research.views.release_file, which checks who is asking.

    Refuses, with ReleaseError and nothing recorded, when the site has no licence set, when
    the filter selects no description, or when the place it would write already holds files:
    a release never overwrites anything."""
    if not settings.RELEASE_LICENSE:
        raise ReleaseError(
            "the site has no licence for releases: the operator sets RELEASE_LICENSE "
            "(see the operators' configuration page)"
        )
    if not options.filter.descriptions().exists():
        raise ReleaseError(f"nothing to release: no description is {options.filter.describe()}")
    with transaction.atomic():
        # Numbers are handed out one at a time, until this transaction ends; a release being
        # written (its row locked for minutes) does not hold anyone up.
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT pg_advisory_xact_lock(hashtextextended(%s, 0))", ["research.release"]
            )
        number = (Release.objects.aggregate(last=Max("number"))["last"] or 0) + 1
        if output:  # one name per place: a folder's absolute path, a URL without a final /
            is_url = output.startswith("s3://")
            output = output.rstrip("/") or output if is_url else str(Path(output).resolve())
        folder = "" if output else f"{RELEASES_FOLDER}/{number}-{secrets.token_urlsafe(16)}"
        destination = Destination.for_url(output) if output else Destination.in_storage(folder)
        there = Release.objects.filter(location=destination.location).first()
        if there:
            raise ReleaseError(
                f"{output or folder} holds release {there.number} already; a release never "
                "overwrites"
            )
        if destination.holds_files():
            raise ReleaseError(
                f"{output or folder} already holds files; a release is written only to an "
                "empty place, and never overwrites"
            )
        release = Release.objects.create(
            number=number,
            created_by=user,
            parameters=options.as_dict(),
            folder=folder,
            location=destination.location,
        )
        if queue:
            enqueue("research.tasks.run_release", release.pk)
    return release


def release_run(*, release_id: int) -> Release | None:
    """Write release ``release_id``; safe to call twice or at the same time.

    As an export job (research.services.export_job_run): marked running, then its row locked
    for the whole writing, so a second caller returns at once and a finished release is left
    alone. Only a release never finished is written: a worker that died mid-release left files
    of its own, which the retry writes again; on its first start the place must still be
    empty. Returns the release when this call finished it, else None."""
    first_start = Release.objects.filter(pk=release_id, state=Release.State.QUEUED).update(
        state=Release.State.RUNNING, started_at=timezone.now()
    )
    try:
        with snapshot():
            release = (
                Release.objects.select_for_update(skip_locked=True, of=("self",))
                .select_related("created_by")
                .filter(pk=release_id, state=Release.State.RUNNING)
                .first()
            )
            if release is None:
                return None  # another worker holds it, or it is finished
            destination = RecordingDestination.of(_destination(release))
            if first_start and destination.holds_files():
                raise ReleaseError(
                    f"{release.location} was written to after the release was asked for"
                )
            previous = (
                Release.objects.filter(state=Release.State.DONE, number__lt=release.number)
                .order_by("-number")
                .first()
            )
            release.manifest = release_write(
                release=release, destination=destination, previous=previous
            )
            release.state = Release.State.DONE
            release.finished_at = timezone.now()
            release.save(update_fields=["manifest", "state", "finished_at"])
            return release
    except Exception as error:
        logger.exception("Release %s failed", release_id)
        Release.objects.filter(pk=release_id, state=Release.State.RUNNING).update(
            state=Release.State.FAILED,
            error=f"{type(error).__name__}: {error}"[:2000],
            finished_at=timezone.now(),
        )
        return None


def releases_stalled(*, older_than) -> list[int]:
    """Releases still queued after ``older_than`` (their message was lost)."""
    return list(
        Release.objects.filter(
            state=Release.State.QUEUED, created_at__lt=timezone.now() - older_than
        ).values_list("pk", flat=True)
    )


def _destination(release: Release) -> Destination:
    if release.folder:
        return Destination.in_storage(release.folder)
    return Destination.for_url(release.location)
