"""Local media answers byte ranges, so browsers can seek to a segment's start."""

import pytest


@pytest.fixture
def clip(media_root):
    media_root.mkdir(parents=True)
    (media_root / "clip.webm").write_bytes(bytes(range(100)))


def test_it_serves_a_whole_file_and_says_it_accepts_ranges(client, clip):
    response = client.get("/media/clip.webm")
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
    response = client.get("/media/clip.webm", HTTP_RANGE=header)
    assert response.status_code == 206
    assert response.content == body and response["Content-Range"] == content_range


def test_it_refuses_a_range_past_the_end(client, clip):
    assert client.get("/media/clip.webm", HTTP_RANGE="bytes=200-300").status_code == 416


def test_it_will_not_serve_outside_the_media_folder(client, clip):
    assert client.get("/media/../settings.py").status_code == 404
    assert client.get("/media/missing.webm").status_code == 404


def test_it_never_serves_researchers_exports(client, clip, media_root):
    (media_root / "exports" / "abc").mkdir(parents=True)
    (media_root / "exports" / "abc" / "corpus.csv").write_text("VideoID\n")

    assert client.get("/media/exports/abc/corpus.csv").status_code == 404
    assert client.get("/media/videos/../exports/abc/corpus.csv").status_code == 404
