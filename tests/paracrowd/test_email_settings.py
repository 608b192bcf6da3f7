"""E-mail settings: printed on the console under DEBUG, sent by SMTP otherwise, and a value that
cannot be right stops start-up naming its variable."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

REPOSITORY = Path(__file__).resolve().parents[2]
READ_EMAIL_SETTINGS = """
import json
from paracrowd import settings
print(json.dumps({name: value for name, value in vars(settings).items() if "EMAIL" in name}))
"""


def email_settings(**environment) -> subprocess.CompletedProcess:
    """paracrowd/settings.py read in a clean environment plus ``environment``."""
    return subprocess.run(  # noqa: S603 (our own script, run by our own interpreter)
        [sys.executable, "-c", READ_EMAIL_SETTINGS],
        env={"SECRET_KEY": "a-test-key-that-is-not-a-placeholder", **environment},
        cwd=REPOSITORY,
        capture_output=True,
        text=True,
    )


def read(**environment) -> dict:
    result = email_settings(**environment)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def test_under_debug_mail_is_printed_on_the_console():
    chosen = read(DEBUG="True")
    assert chosen["EMAIL_BACKEND"] == "django.core.mail.backends.console.EmailBackend"


def test_without_debug_mail_goes_to_the_smtp_server_with_starttls():
    chosen = read(DEBUG="False")
    assert chosen["EMAIL_BACKEND"] == "django.core.mail.backends.smtp.EmailBackend"
    assert (chosen["EMAIL_PORT"], chosen["EMAIL_USE_TLS"], chosen["EMAIL_USE_SSL"]) == (
        587,
        True,
        False,
    )
    assert chosen["EMAIL_TIMEOUT"] == 10


def test_the_smtp_server_is_read_from_the_environment():
    chosen = read(
        DEBUG="True",
        EMAIL_BACKEND="smtp",
        EMAIL_HOST="smtp.example.org",
        EMAIL_PORT="465",
        EMAIL_USE_SSL="True",
        EMAIL_HOST_USER="paracrowd",
        EMAIL_HOST_PASSWORD="secret",
        DEFAULT_FROM_EMAIL="ParaCrowd <noreply@example.org>",
    )
    assert chosen["EMAIL_BACKEND"] == "django.core.mail.backends.smtp.EmailBackend"
    assert (chosen["EMAIL_HOST"], chosen["EMAIL_PORT"]) == ("smtp.example.org", 465)
    assert (chosen["EMAIL_USE_SSL"], chosen["EMAIL_USE_TLS"]) == (True, False)
    assert (chosen["EMAIL_HOST_USER"], chosen["EMAIL_HOST_PASSWORD"]) == ("paracrowd", "secret")
    assert chosen["DEFAULT_FROM_EMAIL"] == "ParaCrowd <noreply@example.org>"


@pytest.mark.parametrize(
    "environment, complaint",
    [
        ({"EMAIL_BACKEND": "sendmail"}, "EMAIL_BACKEND must be smtp or console"),
        ({"EMAIL_PORT": "smtp"}, "EMAIL_PORT must be a whole number"),
        ({"EMAIL_PORT": "70000"}, "EMAIL_PORT must be at most 65535"),
        ({"EMAIL_USE_TLS": "yes"}, "EMAIL_USE_TLS must be True or False"),
        ({"EMAIL_USE_TLS": "True", "EMAIL_USE_SSL": "True"}, "cannot both be True"),
        ({"DEFAULT_FROM_EMAIL": "ParaCrowd"}, "DEFAULT_FROM_EMAIL must be an e-mail address"),
    ],
)
def test_a_value_that_cannot_be_right_stops_start_up(environment, complaint):
    result = email_settings(DEBUG="True", **environment)
    assert result.returncode != 0
    assert complaint in result.stderr
