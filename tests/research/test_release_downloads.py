"""A release's files downloaded from local storage are checked against its manifest: a file
changed, replaced or removed since the release was made is refused, in the site's words, and
logged; an unchanged one is hashed once, not on every download. On S3 the reader gets the
object's own link, and the site reads nothing."""

import hashlib
import json
import logging
import os
from urllib.parse import urlsplit

import pytest
from django.core.cache import cache
from django.urls import reverse
from redis.exceptions import RedisError

from research.releases import downloads
from research.releases.options import ReleaseOptions
from tests.conftest import UNREACHABLE_CACHE
from tests.factories import make_researcher
from tests.research.releases import download, make_corpus, make_release

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def site_licence(settings):
    settings.RELEASE_LICENSE = "cc-by-4.0"


@pytest.fixture(autouse=True)
def checks_forgotten():
    """The cache's remembered checks are this run's, and removed after each test (none were
    made when the test put the cache out of reach)."""
    yield
    try:
        redis = cache._cache.get_client(write=True)
        for key in redis.scan_iter(cache.make_key(f"{downloads.CHECKED_KEY}:*")):
            redis.delete(key)
    except RedisError:
        pass


@pytest.fixture
def release(media_root):
    make_corpus()
    return make_release(options=ReleaseOptions(formats=("jsonl",)))


@pytest.fixture
def researcher(client):
    client.force_login(make_researcher())


def link(name: str) -> str:
    return reverse("research:release_file", args=[1, name])


def keep_modification_time(path, change):
    """``change`` the file, then set its modification time back, as someone covering a change
    would."""
    before = os.stat(path)
    change(path)
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))


def change_a_byte(path):
    keep_modification_time(path, lambda p: p.write_bytes(b"[" + p.read_bytes()[1:]))


def add_a_line(path):
    path.write_bytes(path.read_bytes() + b'{"text": "Added later."}\n')


def replace_with_another_file_of_the_same_size(path):
    other = path.with_name("other.jsonl")
    other.write_bytes(b"x" * path.stat().st_size)
    os.replace(other, path)


TAMPERINGS = {
    "a byte changed, size and modification time kept": change_a_byte,
    "a line added": add_a_line,
    "replaced by another file of the same size": replace_with_another_file_of_the_same_size,
    "removed": lambda path: path.unlink(),
}


@pytest.mark.parametrize("tampering", TAMPERINGS.values(), ids=TAMPERINGS.keys())
def test_a_file_changed_since_the_release_is_refused_and_logged(
    client, release, researcher, media_root, caplog, tampering
):
    path = media_root / release.folder / "jsonl" / "train.jsonl"
    assert download(client, link("jsonl/train.jsonl")) == path.read_bytes()

    tampering(path)
    with caplog.at_level(logging.ERROR, logger="research.releases.downloads"):
        response = client.get(link("jsonl/train.jsonl"))

    assert response.status_code == 409
    page = response.content.decode()
    assert "<h1>This file is not sent</h1>" in page
    assert "<code>jsonl/train.jsonl</code> of release 1 is not the file" in page
    assert [record.getMessage() for record in caplog.records] == [
        f"Release 1: jsonl/train.jsonl is not sent, {caplog.records[0].args[2]}"
    ]
    assert caplog.records[0].levelno == logging.ERROR
    # The release's other files are still sent.
    assert download(client, link("README.md"))


def test_an_edited_manifest_is_refused_and_logged(client, release, researcher, media_root, caplog):
    path = media_root / release.folder / "manifest.json"
    manifest = json.loads(path.read_text())
    manifest["created_by"] = "someone else"
    path.write_text(json.dumps(manifest))

    with caplog.at_level(logging.ERROR, logger="research.releases.downloads"):
        assert client.get(link("manifest.json")).status_code == 409

    assert [record.getMessage() for record in caplog.records] == [
        "Release 1: manifest.json is not sent, it is not the manifest the database keeps"
    ]


def test_the_log_says_what_differs(client, release, researcher, media_root, caplog):
    path = media_root / release.folder / "jsonl" / "train.jsonl"
    listed = next(file for file in release.manifest["files"] if file["path"] == "jsonl/train.jsonl")
    body = path.read_bytes()
    changed = body.replace(b"pageAAAAAAA is shown.", b"pageAAAAAAA is hidden")
    assert len(changed) == len(body)
    path.write_bytes(changed)

    with caplog.at_level(logging.ERROR, logger="research.releases.downloads"):
        assert client.get(link("jsonl/train.jsonl")).status_code == 409
        path.write_bytes(body + b"\n")
        assert client.get(link("jsonl/train.jsonl")).status_code == 409

    assert [record.getMessage() for record in caplog.records] == [
        f"Release 1: jsonl/train.jsonl is not sent, its SHA-256 is "
        f"{hashlib.sha256(changed).hexdigest()} where the manifest lists {listed['sha256']}",
        f"Release 1: jsonl/train.jsonl is not sent, it has {len(body) + 1:,} bytes where the "
        f"manifest lists {len(body):,}",
    ]


def test_a_public_releases_changed_file_is_refused_to_anonymous_visitors_too(
    client, release, media_root
):
    type(release).objects.filter(pk=release.pk).update(public=True)
    path = media_root / release.folder / "README.md"
    keep_modification_time(path, lambda p: p.write_text(p.read_text().replace("cc-by", "cc-xx")))

    response = client.get(link("README.md"))
    assert response.status_code == 409 and "This file is not sent" in response.content.decode()


def test_an_unchanged_file_is_hashed_once_not_on_every_download(
    client, release, researcher, media_root, monkeypatch
):
    hashed, file_digest = [], hashlib.file_digest

    def counted(file, digest):
        hashed.append(file.name)
        return file_digest(file, digest)

    monkeypatch.setattr(downloads.hashlib, "file_digest", counted, raising=True)
    path = media_root / release.folder / "data" / "train-00000.parquet"
    parquet = link("data/train-00000.parquet")

    for _ in range(3):
        assert download(client, parquet) == path.read_bytes()
    assert hashed == [str(path)]
    # Anything that touches the file is checked again.
    os.utime(path)
    assert download(client, parquet) == path.read_bytes()
    assert hashed == [str(path)] * 2


def test_with_the_cache_out_of_reach_every_download_is_hashed_and_sent(
    client, release, researcher, media_root, settings
):
    settings.CACHES = UNREACHABLE_CACHE
    path = media_root / release.folder / "jsonl" / "train.jsonl"

    assert download(client, link("jsonl/train.jsonl")) == path.read_bytes()
    path.write_bytes(b"{}\n")
    assert client.get(link("jsonl/train.jsonl")).status_code == 409


def test_on_s3_the_reader_is_sent_to_the_object_itself(client, s3_server, settings):
    endpoint, s3, bucket = s3_server
    # The storage settings.py builds from MEDIA_S3_BUCKET and MEDIA_S3_ENDPOINT_URL.
    settings.STORAGES = {
        **settings.STORAGES,
        "default": {
            "BACKEND": "storages.backends.s3.S3Storage",
            "OPTIONS": {"bucket_name": bucket, "endpoint_url": endpoint, "region_name": None},
        },
    }
    make_corpus()
    release = make_release()
    client.force_login(make_researcher())

    response = client.get(link("README.md"))

    assert response.status_code == 302
    location = urlsplit(response["Location"])
    key = f"{release.folder}/README.md"
    assert location.path == f"/{bucket}/{key}" and "Signature" in location.query
    assert s3.get_object(Bucket=bucket, Key=key)["ContentLength"] > 0
