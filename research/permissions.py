"""The research API's permission and the header's researcher link; who is a researcher is
decided in one place, ``crowd.access.is_researcher``."""

import functools

from rest_framework.permissions import BasePermission

from crowd.access import is_researcher


class IsResearcher(BasePermission):
    """Staff and researchers; anyone else is refused (403, or 401 without credentials)."""

    message = "The research API is for researchers and staff."

    def has_permission(self, request, view) -> bool:
        return is_researcher(request.user)


def researcher_links(request) -> dict:
    """Template context: whether to show the researcher page in the header (asked lazily, and
    once however often the page asks)."""
    return {"is_researcher": functools.cache(lambda: is_researcher(request.user))}
