"""The circuit breaker counts consecutive failures in the cache shared by every process, and
in this process's memory when Redis is down."""

import itertools

import pytest

from paracrowd.breaker import Breaker, BreakerOpen
from tests.conftest import UNREACHABLE_CACHE

_names = (f"service-{n}" for n in itertools.count())


class Clock:
    now = 5_000_000.0

    def __call__(self) -> float:
        return self.now


def breaker(clock=None, **options) -> Breaker:
    return Breaker(next(_names), failures=3, cooldown=30, clock=clock or Clock(), **options)


def fail(breaker: Breaker, times: int) -> None:
    for _ in range(times):
        breaker.attempt().failed()


def test_it_opens_after_so_many_failures_in_a_row():
    service = breaker()
    fail(service, 2)
    assert not service.is_open()
    fail(service, 1)
    assert service.is_open()
    with pytest.raises(BreakerOpen):
        service.attempt()


def test_a_success_starts_the_count_again():
    service = breaker()
    fail(service, 2)
    service.attempt().succeeded()
    fail(service, 2)
    assert not service.is_open()


def test_after_the_cool_down_one_caller_tries_and_the_others_wait_for_it():
    clock = Clock()
    service = breaker(clock)
    fail(service, 3)
    clock.now += 30
    probe = service.attempt()
    with pytest.raises(BreakerOpen):
        Breaker(service.name, failures=3, cooldown=30, clock=clock).attempt()  # another process
    probe.succeeded()
    service.attempt().succeeded()
    fail(service, 2)
    assert not service.is_open()


def test_two_services_have_breakers_of_their_own():
    one, other = breaker(), breaker()
    fail(one, 3)
    assert one.is_open() and not other.is_open()
    other.attempt().succeeded()


def test_with_redis_down_it_counts_in_this_process(settings):
    settings.CACHES = UNREACHABLE_CACHE
    service = breaker()
    fail(service, 3)
    with pytest.raises(BreakerOpen):
        service.attempt()
