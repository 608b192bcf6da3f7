"""Local media answers byte ranges, so browsers can seek to a segment's start; it serves only
the videos workers watch, and nothing else the storage holds."""

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from collector import services as collector
from tests.factories import make_researcher, make_staff, make_worker


@pytest.fixture
def clip(media_root):
    (media_root / "videos").mkdir(parents=True)
    (media_root / "videos" / "clip.webm").write_bytes(bytes(range(100)))


def test_it_serves_a_whole_file_and_says_it_accepts_ranges(client, clip):
    response = client.get("/media/videos/clip.webm")
    assert response.status_code == 200 and response["Accept-Ranges"] == "bytes"
    assert b"".join(response.streaming_content) == bytes(range(100))


@pytest.mark.parametrize(
    "header, body, content_range",
    [
        ("bytes=10-19", bytes(range(10, 20)), "bytes 10-19/100"),
        ("bytes=95-", bytes(range(95, 100)), "bytes 95-99/100"),
        ("bytes=-3", bytes(range(97, 100)), "bytes 97-99/100"),
        ("bytes=90-500", bytes(range(90, 100)), "bytes 90-99/100"),
    ],
)
def test_it_answers_a_byte_range(client, clip, header, body, content_range):
    response = client.get("/media/videos/clip.webm", HTTP_RANGE=header)
    assert response.status_code == 206
    assert response.content == body and response["Content-Range"] == content_range


def test_it_refuses_a_range_past_the_end(client, clip):
    assert client.get("/media/videos/clip.webm", HTTP_RANGE="bytes=200-300").status_code == 416


def test_it_will_not_serve_outside_the_media_folder(client, clip):
    assert client.get("/media/../settings.py").status_code == 404
    assert client.get("/media/videos/missing.webm").status_code == 404


@pytest.mark.django_db
def test_it_serves_an_uploaded_video_at_the_address_its_pages_give(client, media_root):
    video = collector.video_upload(
        file=SimpleUploadedFile("upload.webm", b"webm bytes", content_type="video/webm"),
        title="Uploaded",
        uploaded_by=None,
    )

    response = client.get(video.file.url)
    assert response.status_code == 200 and b"".join(response.streaming_content) == b"webm bytes"


def put(media_root, name: str) -> str:
    (media_root / name).parent.mkdir(parents=True, exist_ok=True)
    (media_root / name).write_text("private")
    return f"/media/{name}"


@pytest.mark.django_db
@pytest.mark.parametrize("who", ["anonymous", "worker", "researcher", "staff"])
def test_nobody_gets_anything_but_videos_from_it(client, clip, media_root, who):
    users = {"worker": lambda: make_worker().user, "researcher": make_researcher}
    if who != "anonymous":
        client.force_login({**users, "staff": make_staff}[who]())
    addresses = [
        put(media_root, "exports/abc/corpus.csv"),
        put(media_root, "releases/1/manifest.json"),
        put(media_root, "releases/1/jsonl/train.jsonl"),
        put(media_root, "releases/2-unguessable/README.md"),
        put(media_root, "somewhere-new/file.txt"),
        put(media_root, "at-the-top.txt"),
        "/media/videos/../exports/abc/corpus.csv",
        "/media/videos/../releases/1/manifest.json",
    ]

    for address in addresses:
        assert client.get(address).status_code == 404, address
    assert client.get("/media/videos/clip.webm").status_code == 200


def test_a_link_out_of_the_videos_folder_is_not_followed(client, clip, media_root, tmp_path):
    (tmp_path / "outside.txt").write_text("not media")
    (media_root / "videos" / "outside.txt").symlink_to(tmp_path / "outside.txt")
    (media_root / "releases").mkdir()
    (media_root / "releases" / "manifest.json").write_text("{}")
    (media_root / "videos" / "release.json").symlink_to(media_root / "releases" / "manifest.json")

    assert client.get("/media/videos/outside.txt").status_code == 404
    assert client.get("/media/videos/release.json").status_code == 404
