"""Who may open a page: workers (the decorator and look-up every task page uses), staff (the
review pages, wherever they live) and researchers (staff, and members of the "researchers"
group: the research pages and the corpus measures, which live in apps on both sides of the
layers).

Every refusal is one of two: a visitor who is not logged in is sent to the site's log-in page,
and back afterwards; someone logged in without the role gets the one refusal page (403.html),
which says who they are logged in as and what to do."""

from functools import cache, wraps

from django.contrib.auth.decorators import login_required
from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import PermissionDenied
from django.http import Http404

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
            raise PermissionDenied("These pages are for workers; this account is not one.")
        return view(request, *args, worker=worker, **kwargs)

    return wrapper


RESEARCHERS_GROUP = "researchers"


def is_researcher(user) -> bool:
    return bool(
        user
        and user.is_authenticated
        and user.is_active
        and (user.is_staff or _in_group(user, RESEARCHERS_GROUP))
    )


def _in_group(user, name: str) -> bool:
    # The signed-in user of a request comes with their groups' names (crowd.auth_backend).
    names = getattr(user, "group_names", None)
    if names is not None:
        return name in names
    return user.groups.filter(name=name).exists()


def is_staff(user) -> bool:
    return bool(user and user.is_authenticated and user.is_active and user.is_staff)


def _role_required(allowed, refusal: str):
    def decorator(view):
        @wraps(view)
        def wrapper(request, *args, **kwargs):
            if not request.user.is_authenticated:
                return redirect_to_login(request.get_full_path())
            if not allowed(request.user):
                raise PermissionDenied(refusal)
            return view(request, *args, **kwargs)

        return wrapper

    return decorator


# Pages: a visitor who is not logged in is sent to the site's log-in page (not the admin's);
# anyone else without the role gets 403.
staff_required = _role_required(is_staff, "This page is for staff.")
researcher_required = _role_required(is_researcher, "This page is for researchers and staff.")


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
