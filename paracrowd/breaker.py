"""A circuit breaker for calls to another service that a visitor waits on.

While a service fails, every request that asks it waits out a timeout and ties up a web thread;
when Prolific answered 5xx, arrivals took up to 78 s to be refused and the log-in page 14.6 s.
A breaker counts consecutive failures in the cache, shared by every web process: after
``failures`` of them within ``window`` seconds it *opens*, and callers are refused at once,
without calling, for ``cooldown`` seconds. Then it is *half-open*: one caller (one in all the
processes) tries the service; a success closes the breaker, a failure opens it again.

Like the rate limits (paracrowd.throttling), it does not depend on Redis: when the cache
cannot be reached it counts in this process's memory, so a failing service is still cut off
(per process) rather than waited on by every request.
"""

import logging
import time
from collections.abc import Callable

from django.core.cache import caches
from django.core.cache.backends.locmem import LocMemCache
from redis.exceptions import RedisError

logger = logging.getLogger(__name__)

# This process's own records, used while Redis cannot be reached.
LOCAL_RECORDS = LocMemCache("paracrowd-breakers", {"OPTIONS": {"MAX_ENTRIES": 1_000}})


class BreakerOpen(Exception):
    """The service failed too often lately; it is not being called for now."""


class Breaker:
    """The breaker of the service called ``name`` (a key: one per service and address).
    ``clock`` gives the time in seconds (tests pass their own)."""

    def __init__(
        self,
        name: str,
        *,
        failures: int = 5,
        window: float = 60,
        cooldown: float = 30,
        clock: Callable[[], float] = time.time,
    ):
        self.name, self.failures, self.window, self.cooldown = name, failures, window, cooldown
        self.clock = clock
        self._failures_key = f"breaker:{name}:failures"
        self._open_key = f"breaker:{name}:open-until"
        self._probe_key = f"breaker:{name}:probe"

    def attempt(self) -> "Attempt":
        """Leave to call the service, to be reported with ``succeeded`` or ``failed``; raises
        ``BreakerOpen`` instead while the breaker is open (or another caller is probing)."""
        state = self._cached(lambda cache: cache.get_many([self._failures_key, self._open_key]))
        open_until = state.get(self._open_key)
        if open_until is not None:
            if self.clock() < open_until:
                raise BreakerOpen(self.name)
            # Half-open: one caller tries while the others are still refused.
            probe_seconds = max(1, int(self.cooldown))
            if not self._cached(lambda cache: cache.add(self._probe_key, 1, probe_seconds)):
                raise BreakerOpen(self.name)
        return Attempt(self, failures=state.get(self._failures_key, 0), probing=bool(open_until))

    def is_open(self) -> bool:
        """Whether calls are being refused now (for pages that report it)."""
        open_until = self._cached(lambda cache: cache.get(self._open_key))
        return open_until is not None and self.clock() < open_until

    def _succeeded(self, attempt: "Attempt") -> None:
        if attempt.failures or attempt.probing:  # a healthy service costs no write
            keys = [self._failures_key, self._open_key, self._probe_key]
            self._cached(lambda cache: cache.delete_many(keys))

    def _failed(self, attempt: "Attempt") -> None:
        def record(cache):
            cache.add(self._failures_key, 0, int(self.window) or 1)
            try:
                count = cache.incr(self._failures_key)
            except ValueError:  # expired between the two calls: a new window
                cache.set(self._failures_key, 1, int(self.window) or 1)
                count = 1
            if attempt.probing or count >= self.failures:
                # Kept past the cool-down (so a later caller finds the breaker half-open,
                # not closed) until a success deletes it.
                keep = int(self.cooldown + self.window) + 1
                cache.set(self._open_key, self.clock() + self.cooldown, keep)
                cache.delete(self._probe_key)
                return True
            return False

        if self._cached(record) and not attempt.probing:
            logger.warning(
                "%s failed %d times in a row; not called for %d s",
                self.name,
                self.failures,
                self.cooldown,
            )

    def _cached(self, operation):
        try:
            return operation(caches["default"])
        except RedisError:
            logger.warning("breaker %s kept in this process: Redis is unreachable", self.name)
            return operation(LOCAL_RECORDS)


class Attempt:
    """One call let through by a ``Breaker``; report how it went."""

    def __init__(self, breaker: Breaker, *, failures: int, probing: bool):
        self.breaker, self.failures, self.probing = breaker, failures, probing

    def succeeded(self) -> None:
        self.breaker._succeeded(self)

    def failed(self) -> None:
        self.breaker._failed(self)
