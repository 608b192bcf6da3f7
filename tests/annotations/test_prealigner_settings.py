"""PREALIGNER_HELD_OUT_MINIMUM is read strictly: a site that mistypes it refuses to start
rather than let a model judged on a handful of pairs pre-align."""

import subprocess
import sys
from pathlib import Path

import pytest

REPOSITORY = Path(__file__).resolve().parents[2]
READ = "from paracrowd import settings; print(settings.PREALIGNER_HELD_OUT_MINIMUM)"


def minimum_with(**variables) -> subprocess.CompletedProcess:
    return subprocess.run(  # noqa: S603 (our own script, run by our own interpreter)
        [sys.executable, "-c", READ],
        env={"SECRET_KEY": "x", **variables},
        cwd=REPOSITORY,
        capture_output=True,
        text=True,
        check=False,
    )


def test_the_held_out_minimum_is_fifty_pairs_unless_set():
    assert minimum_with().stdout.strip() == "50"
    assert minimum_with(PREALIGNER_HELD_OUT_MINIMUM="120").stdout.strip() == "120"


@pytest.mark.parametrize(
    ("value", "message"),
    [("fifty", "must be a whole number"), ("0", "must be at least 1"), ("5.5", "whole number")],
)
def test_a_held_out_minimum_that_is_not_a_positive_whole_number_is_refused(value, message):
    result = minimum_with(PREALIGNER_HELD_OUT_MINIMUM=value)
    assert result.returncode != 0
    assert "ImproperlyConfigured" in result.stderr and message in result.stderr
