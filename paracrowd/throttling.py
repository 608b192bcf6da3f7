"""Rate limits kept in the cache (Redis), shared by every web worker.

They are a defence, not a dependency, and one an attacker must not be able to switch off by
waiting for (or causing) an outage of Redis: when it cannot be reached, each web process
counts in its own memory instead (and logs it). A limit is then per process, so at most the
number of processes times the limit gets through, never everything.
"""

import ipaddress
import logging
import unicodedata

from django.conf import settings
from django.core.cache.backends.locmem import LocMemCache
from django.utils.crypto import salted_hmac
from redis.exceptions import RedisError
from rest_framework import exceptions, throttling
from rest_framework.authentication import TokenAuthentication
from rest_framework.settings import api_settings

logger = logging.getLogger(__name__)

# This process's own counters, used while Redis cannot be reached.
LOCAL_COUNTERS = LocMemCache("paracrowd-rate-limits", {"OPTIONS": {"MAX_ENTRIES": 10_000}})


class _LocalFallback:
    def get_rate(self):
        # Read when asked, not once at import as DRF does, so a changed setting takes effect.
        return api_settings.DEFAULT_THROTTLE_RATES[self.scope]

    def allow_request(self, request, view) -> bool:
        try:
            return super().allow_request(request, view)
        except RedisError:
            logger.warning(
                "rate limit %s counted in this process: Redis is unreachable", self.scope
            )
            self.cache = LOCAL_COUNTERS
            return super().allow_request(request, view)


class AnonymousThrottle(_LocalFallback, throttling.AnonRateThrottle):
    """Requests without credentials, per network address (``THROTTLE_ANONYMOUS``), on any
    endpoint open to them (the research API refuses them first, 401, at no cost)."""


class UserThrottle(_LocalFallback, throttling.UserRateThrottle):
    """Requests of one account, by token or session (``THROTTLE_USER``)."""


class _PerAddress(_LocalFallback, throttling.SimpleRateThrottle):
    # Counted by address whoever is asking (AnonRateThrottle asks who the user is, which
    # during authentication would authenticate again).
    def get_cache_key(self, request, view):
        return self.cache_format % {"scope": self.scope, "ident": self.get_ident(request)}


class BadTokenThrottle(_PerAddress):
    """Failed token authentications per network address (``THROTTLE_BAD_TOKEN``)."""

    scope = "bad_token"


class SignUpThrottle(_PerAddress):
    """Sign-up attempts per network address (``SIGNUPS_PER_HOUR``)."""

    scope = "signup"

    def get_rate(self):
        return f"{settings.SIGNUPS_PER_HOUR}/hour"


class PasswordResetThrottle(_PerAddress):
    """Password-reset requests per network address (``PASSWORD_RESETS_PER_HOUR``)."""

    scope = "password_reset"

    def get_rate(self):
        return f"{settings.PASSWORD_RESETS_PER_HOUR}/hour"


class PasswordResetEmailThrottle(_LocalFallback, throttling.SimpleRateThrottle):
    """Password-reset requests for one e-mail address, from wherever they come
    (``PASSWORD_RESETS_PER_EMAIL_PER_HOUR``): a script cannot flood someone's inbox by asking
    from many networks. Counted whether or not the address has an account, so the limit tells
    nobody which addresses do."""

    scope = "password_reset_email"

    def __init__(self, email: str):
        self.email = email
        super().__init__()

    def get_rate(self):
        return f"{settings.PASSWORD_RESETS_PER_EMAIL_PER_HOUR}/hour"

    def get_cache_key(self, request, view):
        # Normalised as Django's reset form matches addresses (NFKC, case-folded), so that
        # spellings of one address share one count; keyed with SECRET_KEY, so that the cache
        # holds no address, nor a hash anyone could match against a list of addresses.
        normalised = unicodedata.normalize("NFKC", self.email.strip()).casefold()
        ident = salted_hmac(self.scope, normalised, algorithm="sha256").hexdigest()
        return self.cache_format % {"scope": self.scope, "ident": ident}


class ThrottledTokenAuthentication(TokenAuthentication):
    """Token authentication that counts failures per address: guessing tokens runs into 429
    with Retry-After, where every wrong guess was answered at full speed."""

    def authenticate(self, request):
        try:
            return super().authenticate(request)
        except exceptions.AuthenticationFailed:
            throttle = BadTokenThrottle()
            if not throttle.allow_request(request, None):
                raise exceptions.Throttled(wait=throttle.wait()) from None
            raise


def retry_after_seconds(throttle) -> int:
    """Whole seconds for a Retry-After header (at least one)."""
    return max(1, int((throttle.wait() or 0) + 0.999))


def client_address(request) -> str | None:
    """The client's network address, seen through TRUSTED_PROXY_COUNT proxies of ours: the
    same address for login lockouts (django-axes) as for every other limit. A forwarded value
    that is not an address (a misconfigured proxy) falls back to the connection's own."""
    address = throttling.BaseThrottle().get_ident(request)
    try:
        return str(ipaddress.ip_address((address or "").strip()))
    except ValueError:
        return request.META.get("REMOTE_ADDR")
