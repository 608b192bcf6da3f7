"""The site's own pages for the answers Django gives bare: 405 (a view that takes POST only,
asked with GET, answers an empty HttpResponseNotAllowed, which a browser shows as its own
error page) and, under DEBUG (``make run``), 404, which Django then answers with its debug page
listing every address instead of calling ``handler404``. JSON on the API."""

from django.conf import settings
from django.http import Http404, HttpResponse, HttpResponseNotAllowed, JsonResponse
from django.template import loader
from django.views.defaults import page_not_found

API = "/api/"


class ErrorPagesMiddleware:
    """Every response: an empty 405 becomes the site's page (JSON on the API), keeping its
    Allow header; under DEBUG a 404 becomes the site's page, as it is without DEBUG."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        if isinstance(response, HttpResponseNotAllowed) and not response.content:
            return not_allowed(request, response["Allow"])
        # No view was found (resolver_match stays None): Django's debug 404 under DEBUG.
        if settings.DEBUG and response.status_code == 404 and request.resolver_match is None:
            return page_not_found(request, Http404())
        return response

    def process_exception(self, request, exception):
        # A view's Http404 under DEBUG; without DEBUG handler404 already answers it.
        if settings.DEBUG and isinstance(exception, Http404) and not request.path.startswith(API):
            return page_not_found(request, exception)
        return None


def not_allowed(request, allowed: str) -> HttpResponse:
    """405 in words: which methods the address takes, and what to do instead."""
    methods = [method.strip() for method in allowed.split(",") if method.strip()]
    if request.path.startswith(API):
        body = {
            "detail": f'Method "{request.method}" not allowed.',
            "status": 405,
            "help": f"This address takes {', '.join(methods)}.",
        }
        response = JsonResponse(body, status=405)
    else:
        context = {"methods": methods, "method": request.method}
        page = loader.get_template("405.html").render(context, request)
        response = HttpResponse(page, status=405)
    response["Allow"] = allowed
    return response
