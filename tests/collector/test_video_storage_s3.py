"""Uploaded videos on S3: the same pages, with the default storage pointed at a real S3 HTTP
endpoint (moto in server mode on 127.0.0.1), as when MEDIA_S3_BUCKET is set."""

import urllib.request
from pathlib import Path

import boto3
import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse
from moto.server import ThreadedMotoServer

from collector.models import Segment, VideoFile
from tests.factories import make_staff

pytestmark = pytest.mark.django_db

CLIP = Path(__file__).resolve().parents[2] / "demo" / "clip.webm"
BUCKET = "paracrowd-media-test"


@pytest.fixture(scope="module")
def s3_endpoint():
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    yield f"http://{host}:{port}"
    server.stop()


@pytest.fixture
def s3_media(settings, s3_endpoint, monkeypatch):
    for name, value in {
        "AWS_ACCESS_KEY_ID": "testing",
        "AWS_SECRET_ACCESS_KEY": "testing",  # noqa: S105
        "AWS_DEFAULT_REGION": "us-east-1",
    }.items():
        monkeypatch.setenv(name, value)
    s3 = boto3.client("s3", endpoint_url=s3_endpoint, region_name="us-east-1")
    s3.create_bucket(Bucket=BUCKET)
    # The same storage settings.py builds from MEDIA_S3_BUCKET and MEDIA_S3_ENDPOINT_URL.
    settings.STORAGES = {
        **settings.STORAGES,
        "default": {
            "BACKEND": "storages.backends.s3.S3Storage",
            "OPTIONS": {
                "bucket_name": BUCKET,
                "endpoint_url": s3_endpoint,
                "region_name": "us-east-1",
                "querystring_expire": 3600,
            },
        },
    }
    yield s3
    objects = s3.list_objects_v2(Bucket=BUCKET).get("Contents", [])
    for item in objects:
        s3.delete_object(Bucket=BUCKET, Key=item["Key"])
    s3.delete_bucket(Bucket=BUCKET)


def test_an_uploaded_video_goes_to_s3_and_segments_are_cut_from_it(client, s3_media):
    client.force_login(make_staff())
    with CLIP.open("rb") as clip:
        client.post(
            reverse("segment_review:videos"),
            {"title": "On S3", "file": SimpleUploadedFile("clip.webm", clip.read())},
        )
    video = VideoFile.objects.get()
    stored = s3_media.get_object(Bucket=BUCKET, Key=video.file.name)["Body"].read()
    assert stored == CLIP.read_bytes()

    # The cut page plays it from a signed S3 address, which answers with the file.
    url = video.file.url
    assert "Signature" in url or "X-Amz-Signature" in url
    page = client.get(reverse("segment_review:video", args=[video.pk])).content.decode()
    # Signed anew for each page, with an expiry in whole seconds: compare all but the signature.
    assert url.split("?")[0] + "?" in page
    with urllib.request.urlopen(url) as response:  # noqa: S310 (the local S3 endpoint)
        assert response.read() == CLIP.read_bytes()

    client.post(reverse("segment_review:video", args=[video.pk]), {"start": "2", "end": "8"})
    segment = Segment.objects.get()
    assert segment.video_file.name == video.file.name
    assert segment.video_file.url.split("?")[0] == url.split("?")[0]
