"""Who is a researcher: staff, and members of the "researchers" group."""

import functools
from functools import wraps

from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import PermissionDenied
from rest_framework.permissions import BasePermission

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


class IsResearcher(BasePermission):
    """Staff and researchers; anyone else is refused (403, or 401 without credentials)."""

    message = "The research API is for researchers and staff."

    def has_permission(self, request, view) -> bool:
        return is_researcher(request.user)


def researcher_required(view):
    """Pages: a visitor who is not logged in is sent to log in; a worker gets 403."""

    @wraps(view)
    def wrapper(request, *args, **kwargs):
        if not request.user.is_authenticated:
            return redirect_to_login(request.get_full_path())
        if not is_researcher(request.user):
            raise PermissionDenied("This page is for researchers and staff.")
        return view(request, *args, **kwargs)

    return wrapper


def researcher_links(request) -> dict:
    """Template context: whether to show the researcher page in the header (asked lazily, and
    once however often the page asks)."""
    return {"is_researcher": functools.cache(lambda: is_researcher(request.user))}
