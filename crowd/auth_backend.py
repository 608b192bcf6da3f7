"""Loading the signed-in user together with their worker profile."""

from django.contrib.auth import get_user_model
from django.contrib.auth.backends import ModelBackend


class WorkerProfileBackend(ModelBackend):
    """Django's model backend, except that the user of a session comes with their worker
    profile (if any) in the same query: every worker page needs both, and a burst of crowd
    workers is bound by round trips to the database."""

    def get_user(self, user_id):
        users = get_user_model()._default_manager.select_related("worker")
        user = users.filter(pk=user_id).first()
        return user if user is not None and self.user_can_authenticate(user) else None
