"""Whole-project checks: migrations, settings parsing."""

import subprocess
import sys

import pytest
from django.core.management import call_command

pytestmark = pytest.mark.django_db


def test_there_are_no_pending_migrations():
    call_command("makemigrations", "--check", "--dry-run", verbosity=0)


@pytest.mark.parametrize(
    "env, message",
    [
        ({"DEBUG": "yes"}, "DEBUG must be True or False, not 'yes'"),
        ({"DEBUG": "False", "SECRET_KEY": ""}, "SECRET_KEY must be set when DEBUG is False"),
        ({"DATABASE_URL": "mysql://x@localhost/db"}, "DATABASE_URL must point at PostgreSQL"),
        ({"DESCRIPTION_MAX_LENGTH": "many"}, "DESCRIPTION_MAX_LENGTH must be a whole number"),
        ({"DESCRIPTION_MAX_LENGTH": "5"}, "DESCRIPTION_MAX_LENGTH must be at least 20"),
        ({"SEGMENT_MAX_SECONDS": "ten"}, "SEGMENT_MAX_SECONDS must be a whole number"),
        ({"SEGMENT_MAX_SECONDS": "8"}, "SEGMENT_SUGGESTED_MAX_SECONDS <= SEGMENT_MAX_SECONDS"),
        ({"PROPOSALS_PER_DAY": "0"}, "PROPOSALS_PER_DAY must be at least 1"),
        ({"COMBINED_SCORE_SLOPE": "steep"}, "COMBINED_SCORE_SLOPE must be a number"),
        ({"COMBINED_SCORE_CENTRE": "nan"}, "COMBINED_SCORE_CENTRE must be a finite number"),
        ({"AUTO_PROMOTE_OTHER_LANGUAGES": "yes"}, "AUTO_PROMOTE_OTHER_LANGUAGES must be True"),
        ({"AUTO_PROMOTE_AFTER": "0"}, "AUTO_PROMOTE_AFTER must be at least 1"),
        ({"DEBUG": "true"}, "DEBUG must be True or False, not 'true'"),
        ({"SERVE_MEDIA": "1"}, "SERVE_MEDIA must be True or False, not '1'"),
        ({"SESSION_COOKIE_SECURE": "0"}, "SESSION_COOKIE_SECURE must be True or False, not '0'"),
        ({"PLATFORM_FEE_PERCENT": "20%"}, "PLATFORM_FEE_PERCENT must be a whole number"),
        ({"PLATFORM_FEE_PERCENT": "-1"}, "PLATFORM_FEE_PERCENT must be at least 0, not -1"),
        ({"PLATFORM_FEE_PERCENT": "101"}, "PLATFORM_FEE_PERCENT must be at most 100, not 101"),
        ({"THROTTLE_USER": "600/fortnight"}, "THROTTLE_USER must be a count per second"),
        ({"THROTTLE_BAD_TOKEN": "many/hour"}, "THROTTLE_BAD_TOKEN must be a count per second"),
        ({"LOGIN_FAILURE_LIMIT": "0"}, "LOGIN_FAILURE_LIMIT must be at least 1"),
        ({"SECURE_SSL_REDIRECT": "on"}, "SECURE_SSL_REDIRECT must be True or False"),
        ({"SECURE_PROXY_SSL_HEADER": "X-Forwarded-Proto"}, "SECURE_PROXY_SSL_HEADER must be"),
        ({"RELEASE_LICENSE": "CC BY 4.0"}, "RELEASE_LICENSE must be a licence identifier"),
    ],
)
def test_a_bad_setting_stops_start_up_with_a_message_naming_it(env, message):
    result = subprocess.run(
        [sys.executable, "-c", "import django; django.setup()"],
        env={"DJANGO_SETTINGS_MODULE": "paracrowd.settings", "SECRET_KEY": "x", **env},
        capture_output=True,
        text=True,
    )
    assert result.returncode != 0
    assert message in result.stderr
