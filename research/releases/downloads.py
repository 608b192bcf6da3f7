"""A finished release's files as the site hands them out: only those its manifest lists (and
the manifest), and from local storage only while their bytes are still those written.

Local storage (MEDIA_ROOT): the file is opened, its size and SHA-256 compared with the
manifest's, and it is sent from that same open file, so a file swapped for another after the
check is not what goes out. ``manifest.json``, which does not list itself, is compared, parsed,
with the copy the database keeps (and never lets change). A file that differs, or is missing,
is refused and logged as an error naming the release and the file.

Hashing a multi-gigabyte parquet file takes seconds, so a match is remembered in the cache
under the file's identity: its path, device and inode, size, and modification and change times
in nanoseconds. Any write to a file sets its change time (ctime) to the time of the write, and
nobody can set it back as ``touch`` sets the modification time back, so a remembered match
never covers bytes written since (short of two writes within one tick of the file system's
clock, a few milliseconds, with a download checked between them). With the cache out of reach
every download is hashed.

S3 (MEDIA_S3_BUCKET): nothing is checked here. The reader is sent a short-lived link to the
object itself and its bytes never pass through the site; checking them would mean reading
every object in full for every download, and S3's own checksums (ETags) are not the SHA-256 the
manifest lists. Readers check a download with ``sha256sum`` against the manifest (the
researchers' guide says how); what keeps the objects intact is who may write to the bucket.
"""

import hashlib
import json
import logging
import os

from django.core.cache import cache
from django.core.files.storage import default_storage
from redis.exceptions import RedisError

from research.models import Release

logger = logging.getLogger(__name__)

# How long a match is remembered: an unchanged large file is hashed about once a day.
CHECKED_SECONDS = 24 * 3600
CHECKED_KEY = "release-file-checked"


class ReleaseFileAltered(Exception):
    """A release's file that is missing, or whose bytes are not those its manifest lists."""


def release_file_name(release: Release, name: str) -> str | None:
    """The storage name of one of a finished release's files, or None when it has no such
    file, or its files are not in the default storage."""
    if not release.folder or name not in release.file_names:
        return None
    return f"{release.folder}/{name}"


def release_file_open(*, release: Release, name: str):
    """Release ``release``'s file ``name`` from local storage, open for reading at its start,
    once checked against the manifest; None when the release has no such file. Raises
    ReleaseFileAltered, and logs an error, when the file is missing or differs."""
    stored = release_file_name(release, name)
    if stored is None:
        return None
    try:
        file = open(default_storage.path(stored), "rb")  # noqa: SIM115 (the response closes it)
    except FileNotFoundError:
        problem = "it is missing"
    else:
        try:
            problem = _problem(release, name, file)
        except BaseException:
            file.close()
            raise
        if problem is None:
            file.seek(0)
            return file
        file.close()
    logger.error("Release %s: %s is not sent, %s", release.number, name, problem)
    raise ReleaseFileAltered(problem)


def _problem(release: Release, name: str, file) -> str | None:
    """How ``file`` differs from what the release wrote as ``name``, or None when it does not."""
    state = os.fstat(file.fileno())
    listed = next((f for f in release.manifest["files"] if f["path"] == name), None)
    if listed and state.st_size != listed["bytes"]:
        return f"it has {state.st_size:,} bytes where the manifest lists {listed['bytes']:,}"
    identity = (
        f"{file.name}|{state.st_dev}|{state.st_ino}|{state.st_size}|{state.st_mtime_ns}|"
        f"{state.st_ctime_ns}|{listed['sha256'] if listed else 'manifest'}"
    )
    key = f"{CHECKED_KEY}:{hashlib.sha256(identity.encode()).hexdigest()}"
    if _remembered(key):
        return None
    if listed is None:  # the manifest itself
        try:
            matches = json.load(file) == release.manifest
        except ValueError:
            matches = False
        problem = None if matches else "it is not the manifest the database keeps"
    else:
        digest = hashlib.file_digest(file, "sha256").hexdigest()
        problem = (
            None
            if digest == listed["sha256"]
            else f"its SHA-256 is {digest} where the manifest lists {listed['sha256']}"
        )
    if problem is None:
        _remember(key)
    return problem


def _remembered(key: str) -> bool:
    try:
        return bool(cache.get(key))
    except RedisError:
        logger.warning("release file hashed again: the cache is unreachable")
        return False


def _remember(key: str) -> None:
    try:
        cache.set(key, True, CHECKED_SECONDS)
    except RedisError:
        logger.warning("release file check not remembered: the cache is unreachable")
