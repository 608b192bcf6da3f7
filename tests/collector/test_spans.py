"""Typed times, the length rule, and when two spans of one video overlap too much."""

from decimal import Decimal as D

import pytest
from django.core.exceptions import ValidationError

from collector.spans import LengthRule, format_time, overlap, overlaps_too_much, parse_time


@pytest.mark.parametrize(
    "text, seconds",
    [
        ("75", D("75")),
        ("7.5", D("7.5")),
        ("7,5", D("7.5")),
        ("0", D("0")),
        ("1:15", D("75")),
        ("01:15", D("75")),
        ("1:15.25", D("75.25")),
        ("12:00", D("720")),
        ("1:02:03", D("3723")),
        ("  0:42 ", D("42")),
        ("3.14159", D("3.14")),
        ("3.145", D("3.15")),
    ],
)
def test_it_reads_seconds_and_minutes_and_seconds(text, seconds):
    assert parse_time(text) == seconds


@pytest.mark.parametrize(
    "text", ["", "abc", "-3", "1:75", "1:60:00", "1::5", ":30", "1:2:3:4", "5s", "1e3"]
)
def test_it_refuses_what_is_not_a_time(text):
    with pytest.raises(ValidationError):
        parse_time(text)


def test_it_refuses_a_time_past_what_a_segment_can_hold():
    with pytest.raises(ValidationError, match="past the end of any video"):
        parse_time("1000000")


@pytest.mark.parametrize(
    "seconds, text",
    [(D("75"), "1:15"), (D("75.5"), "1:15.5"), (D("4.25"), "0:04.25"), (D("3723"), "1:02:03")],
)
def test_it_writes_times_back_the_way_they_are_typed(seconds, text):
    assert format_time(seconds) == text
    assert parse_time(text) == seconds


RULE = LengthRule(minimum=2, maximum=20, suggested_minimum=4, suggested_maximum=10)


@pytest.mark.parametrize(
    "start, end, message",
    [
        (D(10), D(10), "The end must come after the start."),
        (D(10), D(4), "The end must come after the start."),
        (D(10), D("11.5"), "This segment is 1.5 seconds long; it must be at least 2 seconds."),
        (D(0), D("20.01"), "This segment is 20.01 seconds long; it can be at most 20 seconds."),
    ],
)
def test_the_length_rule_says_what_is_wrong(start, end, message):
    with pytest.raises(ValidationError, match=message):
        RULE.check(start, end)


@pytest.mark.parametrize("start, end", [(D(0), D(2)), (D(0), D(20)), (D(5), D("12.5"))])
def test_the_length_rule_accepts_its_limits(start, end):
    RULE.check(start, end)


@pytest.mark.parametrize(
    "a, b, shared",
    [
        ((D(0), D(10)), (D(5), D(15)), D(5)),
        ((D(0), D(10)), (D(10), D(15)), D(0)),  # touching
        ((D(0), D(10)), (D(12), D(15)), D(0)),  # apart
        ((D(0), D(20)), (D(5), D(9)), D(4)),  # one inside the other
    ],
)
def test_overlap_is_the_time_two_spans_share(a, b, shared):
    assert overlap(a, b) == overlap(b, a) == shared


@pytest.mark.parametrize(
    "a, b, too_much",
    [
        # Equal lengths: exactly half is allowed, a hundredth more is not.
        ((D(0), D(10)), (D(5), D(15)), False),
        ((D(0), D(10)), (D("4.99"), D("14.99")), True),
        # Different lengths: half of the shorter segment (4 s) decides.
        ((D(0), D(10)), (D(8), D(12)), False),
        ((D(0), D(10)), (D("7.99"), D("11.99")), True),
        ((D(0), D(20)), (D(5), D(9)), True),
        ((D(0), D(10)), (D(0), D(10)), True),
        ((D(0), D(10)), (D(10), D(20)), False),
    ],
)
def test_more_than_half_of_the_shorter_segment_is_too_much(a, b, too_much):
    assert overlaps_too_much(a, b) is too_much
    assert overlaps_too_much(b, a) is too_much
