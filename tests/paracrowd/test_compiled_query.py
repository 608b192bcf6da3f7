"""A queryset compiled once and run again with other ids gives what the queryset itself gives."""

import pytest
from django.contrib.auth.models import Group

from crowd.access import own_assignment
from crowd.auth_backend import USER_WITH_PROFILE, WorkerProfileBackend, _user_with_profile
from crowd.models import Assignment
from paracrowd.compiled_query import CompiledQuery
from tests.factories import make_segment, make_worker

pytestmark = pytest.mark.django_db


def test_it_gives_the_user_with_profile_and_groups_as_the_queryset_does():
    alice, bob = make_worker(), make_worker()
    alice.user.groups.add(Group.objects.create(name="translators"))
    for worker in (alice, bob):
        (compiled,) = USER_WITH_PROFILE.fetch(user_id=worker.user.pk)
        (expected,) = _user_with_profile(worker.user.pk)
        assert compiled.__dict__.keys() >= {"group_names", "username", "password"}
        assert [compiled.pk, compiled.username, compiled.group_names, compiled.date_joined] == [
            expected.pk,
            expected.username,
            expected.group_names,
            expected.date_joined,
        ]
        assert compiled.worker.pk == worker.pk


def test_it_loads_the_profile_with_the_user_without_another_query(django_assert_num_queries):
    alice = make_worker()
    with django_assert_num_queries(1):
        user = WorkerProfileBackend().get_user(alice.user.pk)
        assert user.worker.pk == alice.pk


def test_a_user_without_a_worker_profile_has_none():
    from django.contrib.auth import get_user_model

    staff = get_user_model().objects.create_user("charlie", password="correct horse battery")
    user = WorkerProfileBackend().get_user(staff.pk)
    assert user.pk == staff.pk
    assert not hasattr(user, "worker")


def test_it_finds_nothing_for_an_id_that_does_not_exist():
    assert USER_WITH_PROFILE.fetch(user_id=987654321) == []


def test_another_workers_assignment_is_not_found(client):
    from django.http import Http404

    from crowd import services

    alice, charlie = make_worker(), make_worker()
    make_segment()
    assignment = services.assignment_claim(worker=alice, tier=1)
    found = own_assignment(assignment.pk, alice, "description", related=("hit__item__segment",))
    assert found.pk == assignment.pk
    assert found.hit.item.segment.pk == assignment.hit.item.segment.pk
    with pytest.raises(Http404):
        own_assignment(assignment.pk, charlie, "description", related=("hit__item__segment",))


def test_a_placeholder_that_is_not_a_parameter_of_the_sql_is_refused():
    def build(pk, worker_id):
        return Assignment.objects.filter(pk=pk)  # worker_id never reaches the SQL

    with pytest.raises(ValueError, match="worker_id"):
        CompiledQuery(build, "pk", "worker_id").fetch(pk=1, worker_id=1)
