"""Reading settings from the environment, strictly: a value that cannot be parsed raises
ImproperlyConfigured naming the variable, so a typo in production fails at start-up instead of
silently meaning something else (paracrowd.settings reads everything through these)."""

import math
import os
from email.utils import parseaddr
from urllib.parse import urlsplit

from django.core.exceptions import ImproperlyConfigured


def env(name: str, default: str) -> str:
    return os.environ.get(name, default)


def env_bool(name: str, default: bool) -> bool:
    value = os.environ.get(name)
    if value is None:
        return default
    # Exactly the two spellings the README documents, so "yes" or "0" is a typo, not a guess.
    if value == "True":
        return True
    if value == "False":
        return False
    raise ImproperlyConfigured(f"{name} must be True or False, not {value!r}")


def env_int(name: str, default: int, *, minimum: int = 0, maximum: int | None = None) -> int:
    value = os.environ.get(name)
    if value is None:
        return default
    try:
        number = int(value)
    except ValueError:
        raise ImproperlyConfigured(f"{name} must be a whole number, not {value!r}") from None
    if number < minimum:
        raise ImproperlyConfigured(f"{name} must be at least {minimum}, not {number}")
    if maximum is not None and number > maximum:
        raise ImproperlyConfigured(f"{name} must be at most {maximum}, not {number}")
    return number


def env_float(name: str, default: float) -> float:
    value = os.environ.get(name)
    if value is None:
        return default
    try:
        number = float(value)
    except ValueError:
        raise ImproperlyConfigured(f"{name} must be a number, not {value!r}") from None
    if not math.isfinite(number):
        raise ImproperlyConfigured(f"{name} must be a finite number, not {value!r}")
    return number


def env_rate(name: str, default: str) -> str:
    """A rate as DRF reads it: a count per second, minute, hour or day ("60/minute")."""
    value = env(name, default)
    count, _, period = value.partition("/")
    if not count.isdecimal() or int(count) < 1 or period not in {"second", "minute", "hour", "day"}:
        raise ImproperlyConfigured(
            f"{name} must be a count per second, minute, hour or day (60/minute), not {value!r}"
        )
    return value


def env_list(name: str, default: str) -> list[str]:
    return [item.strip() for item in env(name, default).split(",") if item.strip()]


def env_currency(name: str, default: str, *, allowed: tuple[str, ...] = ()) -> str:
    """An ISO 4217 currency code (three capital letters), one of ``allowed`` when given."""
    value = env(name, default)
    if allowed and value not in allowed:
        raise ImproperlyConfigured(f"{name} must be one of {', '.join(allowed)}, not {value!r}")
    if not (len(value) == 3 and value.isascii() and value.isalpha() and value.isupper()):
        raise ImproperlyConfigured(f"{name} must be a currency code like USD, not {value!r}")
    return value


def env_licence(name: str, default: str) -> str:
    """A licence identifier as Hugging Face dataset cards take it (``cc-by-4.0``, ``odc-by``,
    ``other``): lowercase letters, digits, ".", "+" and "-"; empty stays empty (none set)."""
    value = env(name, default)
    allowed = set("abcdefghijklmnopqrstuvwxyz0123456789.+-")
    if value and not (len(value) <= 64 and set(value) <= allowed and value[0].isalnum()):
        raise ImproperlyConfigured(
            f"{name} must be a licence identifier such as cc-by-4.0 (lowercase), not {value!r}"
        )
    return value


def env_url_parameter(name: str, default: str, *, required: bool = True) -> str:
    """The name of a query parameter: letters, digits, "_", "." or "-", at most 40 characters
    (empty allowed when not ``required``: the platform sends no such parameter)."""
    value = env(name, default)
    if not value and not required:
        return value
    if not (
        0 < len(value) <= 40 and value.isascii() and all(c.isalnum() or c in "_.-" for c in value)
    ):
        raise ImproperlyConfigured(
            f"{name} must be a URL parameter name (letters, digits, _ . -; at most 40), "
            f"not {value!r}"
        )
    return value


def env_https_url(name: str, default: str, *, placeholders: tuple[str, ...] = ()) -> str:
    """An https URL (http only for this machine, for local testing) that may hold the given
    ``{placeholders}`` in its path, query or fragment, but nowhere that could change the host
    the participant is sent to. Empty stays empty (no URL)."""
    value = env(name, default)
    if not value:
        return value
    fixed = value
    for placeholder in placeholders:
        fixed = fixed.replace("{" + placeholder + "}", "")
    if "{" in fixed or "}" in fixed:
        known = ", ".join("{" + placeholder + "}" for placeholder in placeholders) or "none"
        raise ImproperlyConfigured(
            f"{name} may hold only these placeholders: {known}; not {value!r}"
        )
    if any(c.isspace() or not c.isprintable() for c in value):
        raise ImproperlyConfigured(f"{name} must be a URL without spaces, not {value!r}")
    try:
        parts = urlsplit(value)
        host = parts.hostname or ""
    except ValueError:
        raise ImproperlyConfigured(f"{name} is not a URL: {value!r}") from None
    if "{" in parts.scheme + parts.netloc or "@" in parts.netloc or not host:
        raise ImproperlyConfigured(
            f"{name} must name its host plainly (no placeholder or user name in it): {value!r}"
        )
    local = host in {"localhost", "127.0.0.1", "::1"}
    if parts.scheme != "https" and not (parts.scheme == "http" and local):
        raise ImproperlyConfigured(
            f"{name} must start with https:// (http:// only for localhost), not {value!r}"
        )
    return value


MAIL_BACKENDS = {
    "console": "django.core.mail.backends.console.EmailBackend",
    "smtp": "django.core.mail.backends.smtp.EmailBackend",
}


def env_mail_backend(name: str, default: str) -> str:
    """Django's mail back-end for ``smtp`` or ``console``."""
    value = env(name, default)
    if value not in MAIL_BACKENDS:
        raise ImproperlyConfigured(f"{name} must be smtp or console, not {value!r}")
    return MAIL_BACKENDS[value]


def env_mail_address(name: str, default: str) -> str:
    """An address mail is sent from, with or without a name ("ParaCrowd <noreply@…>")."""
    value = env(name, default)
    if "@" not in parseaddr(value)[1]:
        raise ImproperlyConfigured(
            f"{name} must be an e-mail address (ParaCrowd <noreply@example.org>), not {value!r}"
        )
    return value
