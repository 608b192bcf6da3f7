"""Reading YouTube links in the forms workers paste them, and refusing what is not one."""

from decimal import Decimal

import pytest
from django.core.exceptions import ValidationError

from collector.youtube import parse_youtube_link

ID = "dQw4w9WgXcQ"


@pytest.mark.parametrize(
    "link",
    [
        f"https://www.youtube.com/watch?v={ID}",
        f"http://youtube.com/watch?v={ID}",
        f"https://m.youtube.com/watch?v={ID}",
        f"https://music.youtube.com/watch?v={ID}&list=RDAMVM",
        f"https://www.youtube.com/watch?feature=share&v={ID}",
        f"www.youtube.com/watch?v={ID}",
        f"youtube.com/watch?v={ID}",
        f"https://youtu.be/{ID}",
        f"youtu.be/{ID}?si=AbCdEf123",
        f"https://www.youtube.com/embed/{ID}",
        f"https://www.youtube-nocookie.com/embed/{ID}?rel=0",
        f"https://www.youtube.com/shorts/{ID}",
        f"https://youtube.com/shorts/{ID}?feature=share",
        f"https://www.youtube.com/live/{ID}",
        f"https://www.youtube.com/v/{ID}",
        f"  https://WWW.YOUTUBE.COM/watch?v={ID}  ",
        ID,
    ],
)
def test_it_reads_the_video_id_of_every_common_form(link):
    parsed = parse_youtube_link(link)
    assert parsed.video_id == ID and parsed.start is None


@pytest.mark.parametrize(
    "link, start",
    [
        (f"https://www.youtube.com/watch?v={ID}&t=42", Decimal(42)),
        (f"https://www.youtube.com/watch?v={ID}&t=42s", Decimal(42)),
        (f"https://youtu.be/{ID}?t=90", Decimal(90)),
        (f"https://youtu.be/{ID}?si=xyz&t=1m30s", Decimal(90)),
        (f"https://www.youtube.com/watch?v={ID}&t=1h2m3s", Decimal(3723)),
        (f"https://www.youtube.com/watch?v={ID}#t=2m", Decimal(120)),
        (f"https://www.youtube.com/embed/{ID}?start=17", Decimal(17)),
        (f"https://www.youtube.com/shorts/{ID}?t=3", Decimal(3)),
        # An unreadable start time is dropped, not a reason to refuse a good link.
        (f"https://www.youtube.com/watch?v={ID}&t=soon", None),
    ],
)
def test_it_reads_the_start_time_of_a_link(link, start):
    parsed = parse_youtube_link(link)
    assert parsed.video_id == ID and parsed.start == start


@pytest.mark.parametrize(
    "link, code",
    [
        ("", "required"),
        ("   ", "required"),
        ("https://vimeo.com/123456789", "not_youtube"),
        ("https://www.youtube.com.evil.example/watch?v=dQw4w9WgXcQ", "not_youtube"),
        ("https://notyoutube.com/watch?v=dQw4w9WgXcQ", "not_youtube"),
        ("ftp://youtube.com/watch?v=dQw4w9WgXcQ", "not_youtube"),
        ("javascript:alert(1)", "not_youtube"),
        ("a cat on a skateboard", "not_youtube"),
        ("http://[::1", "not_youtube"),
        ("https://www.youtube.com/", "no_video"),
        ("https://www.youtube.com/watch?list=PL123", "no_video"),
        ("https://www.youtube.com/@SomeChannel", "no_video"),
        ("https://www.youtube.com/results?search_query=cats", "no_video"),
        ("https://youtu.be/", "no_video"),
        ("https://www.youtube.com/watch?v=dQw4w9WgXc", "bad_id"),  # 10 characters
        ("https://www.youtube.com/watch?v=dQw4w9WgXcQQ", "bad_id"),  # 12
        ("https://youtu.be/dQw4w9WgX!Q", "bad_id"),
        ("https://www.youtube.com/embed/dQw4w9W%20XcQ", "bad_id"),
        ("https://youtu.be/dQw4w9WgXcQ&t=10", "bad_id"),
    ],
)
def test_it_refuses_what_is_not_a_link_to_one_youtube_video(link, code):
    with pytest.raises(ValidationError) as refusal:
        parse_youtube_link(link)
    assert refusal.value.code == code


def test_a_malformed_id_is_named_in_the_message():
    with pytest.raises(ValidationError, match="“dQw4w9WgXc” is not a YouTube video id"):
        parse_youtube_link("https://www.youtube.com/watch?v=dQw4w9WgXc")


def test_it_gives_the_canonical_address_of_the_video():
    assert parse_youtube_link(f"youtu.be/{ID}?t=4").url == f"https://www.youtube.com/watch?v={ID}"
