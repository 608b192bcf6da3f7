"""Who may open a task page: the decorator and look-up every worker-facing view uses."""

from functools import cache, wraps

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpResponseForbidden

from paracrowd.compiled_query import CompiledQuery

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
    relations to load with it (the item the task is about). ``worker`` is a worker or its id."""
    worker_id = worker.pk if isinstance(worker, Worker) else worker
    try:
        pk, worker_id = int(pk), int(worker_id)
    except (TypeError, ValueError):
        raise Http404("No such assignment.") from None
    found = _own_assignment_query(kind, tuple(related)).fetch(pk=pk, worker_id=worker_id)
    if not found:
        raise Http404("No such assignment.")
    return found[0]


@cache
def _own_assignment_query(kind, related: tuple[str, ...]) -> CompiledQuery:
    """Every task page runs this look-up: compiled once per process for each kind of page."""

    def build(pk, worker_id):
        assignments = Assignment.objects.select_related("hit__hit_type", *related)
        if kind:
            assignments = assignments.filter(hit__hit_type__kind=kind)
        return assignments.filter(pk=pk, worker_id=worker_id)

    return CompiledQuery(build, "pk", "worker_id")
