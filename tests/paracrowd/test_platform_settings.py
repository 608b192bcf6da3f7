"""The crowd-platform settings the tests pin (tests/conftest.py) are the project's defaults,
and every such setting is pinned, so an operator's .env never reaches a test."""

import json
import subprocess
import sys
from pathlib import Path

import pytest
from django.conf import settings

from tests.conftest import PLATFORM_SETTING_PREFIXES, PLATFORM_SETTINGS

REPOSITORY = Path(__file__).resolve().parents[2]
# Reads paracrowd/settings.py in a clean environment and prints its crowd-platform settings.
READ_DEFAULTS = f"""
import json
from paracrowd import settings
print(json.dumps({{
    name: value for name, value in vars(settings).items()
    if name.startswith({PLATFORM_SETTING_PREFIXES!r})
}}))
"""


@pytest.fixture(scope="module")
def defaults():
    result = subprocess.run(  # noqa: S603 (our own script, run by our own interpreter)
        [sys.executable, "-c", READ_DEFAULTS],
        env={"SECRET_KEY": "x"},  # nothing of the operator's environment
        cwd=REPOSITORY,
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(result.stdout)


def test_the_pinned_values_are_the_defaults_of_the_settings_module(defaults):
    assert {name: defaults.get(name) for name in PLATFORM_SETTINGS} == PLATFORM_SETTINGS


def test_every_crowd_platform_setting_is_pinned(defaults):
    assert sorted(defaults) == sorted(PLATFORM_SETTINGS)


def test_a_test_sees_the_pinned_values_whatever_the_environment_says():
    assert {name: getattr(settings, name) for name in PLATFORM_SETTINGS} == PLATFORM_SETTINGS
