"""Loading the signed-in user together with their worker profile and their groups."""

from django.contrib.auth import get_user_model
from django.contrib.auth.backends import ModelBackend
from django.contrib.postgres.fields import ArrayField
from django.db.models import CharField
from django.db.models.expressions import RawSQL

from paracrowd.compiled_query import CompiledQuery

# The names of the user's groups, as a column of the user's row. Written out rather than as an
# ArraySubquery: the ORM's subquery costs a millisecond to compile on every request.
GROUP_NAMES = RawSQL(
    "ARRAY(SELECT g.name FROM auth_group g JOIN auth_user_groups m ON m.group_id = g.id"
    " WHERE m.user_id = auth_user.id)",
    (),
    output_field=ArrayField(CharField()),
)


def _user_with_profile(user_id):
    users = get_user_model()._default_manager.select_related("worker")
    return users.annotate(group_names=GROUP_NAMES).filter(pk=user_id)


# Compiled once per process: this query runs on every request of a signed-in user.
USER_WITH_PROFILE = CompiledQuery(_user_with_profile, "user_id")


class WorkerProfileBackend(ModelBackend):
    """Django's model backend, except that the user of a session comes with their worker
    profile (if any) and the names of their groups (``group_names``) in the same query: every
    page needs the user, worker pages the profile, and the header asks about a group; a burst
    of crowd workers is bound by round trips to the database."""

    def get_user(self, user_id):
        try:
            found = USER_WITH_PROFILE.fetch(user_id=int(user_id))
        except (TypeError, ValueError):
            return None
        user = found[0] if found else None
        return user if user is not None and self.user_can_authenticate(user) else None
