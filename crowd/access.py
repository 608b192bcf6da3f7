"""Who may open a task page: the decorator and look-up every worker-facing view uses."""

from functools import wraps

from django.contrib.auth.decorators import login_required
from django.http import HttpResponseForbidden
from django.shortcuts import get_object_or_404

from .models import Assignment, Worker


def worker_required(view):
    """Logged in, with a worker profile; the view receives ``worker``."""

    @login_required
    @wraps(view)
    def wrapper(request, *args, **kwargs):
        try:
            # Loaded with the user by crowd.auth_backend: no query of its own.
            worker = request.user.worker
        except Worker.DoesNotExist:
            worker = None
        if worker is None:
            return HttpResponseForbidden("This account is not a worker account.")
        return view(request, *args, worker=worker, **kwargs)

    return wrapper


def own_assignment(pk, worker, kind=None, *, related=()) -> Assignment:
    """The worker's own assignment ``pk`` (of ``kind``, when given), or 404: another worker's
    assignment id is indistinguishable from one that does not exist. ``related`` names further
    relations to load with it (the item the task is about)."""
    assignments = Assignment.objects.select_related("hit__hit_type", *related)
    if kind:
        assignments = assignments.filter(hit__hit_type__kind=kind)
    return get_object_or_404(assignments, pk=pk, worker=worker)
