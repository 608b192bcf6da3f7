"""Loading the signed-in user together with their worker profile and their groups."""

from django.contrib.auth import get_user_model
from django.contrib.auth.backends import ModelBackend
from django.contrib.auth.models import Group
from django.contrib.postgres.expressions import ArraySubquery
from django.db.models import OuterRef


class WorkerProfileBackend(ModelBackend):
    """Django's model backend, except that the user of a session comes with their worker
    profile (if any) and the names of their groups (``group_names``) in the same query: every
    page needs the user, worker pages the profile, and the header asks about a group; a burst
    of crowd workers is bound by round trips to the database."""

    def get_user(self, user_id):
        groups = Group.objects.filter(user=OuterRef("pk")).order_by().values("name")
        users = get_user_model()._default_manager.select_related("worker")
        user = users.annotate(group_names=ArraySubquery(groups)).filter(pk=user_id).first()
        return user if user is not None and self.user_can_authenticate(user) else None
