"""One JSON shape for every refusal the API answers (401, 403, 404, 429), as the site has one
refusal page: ``{"detail": what happened, "status": the HTTP status, "help": what to do}``.

DRF's exception handler makes the response; this one reshapes it. ``not_found`` answers
addresses under /api/ that name no endpoint the same way."""

from django.http import JsonResponse
from rest_framework.views import exception_handler

WHAT_TO_DO = {
    401: "Send your API token as the header 'Authorization: Token <key>'; a researcher finds "
    "theirs on the research page (/research/).",
    403: "The API is for researchers and staff: ask the project's staff to add your account "
    "to the researchers group. A POST with a browser session also needs its CSRF token; one "
    "with an API token needs none.",
    404: "Check the address and the id; GET /api/ lists the endpoints.",
    429: "Wait the number of seconds the Retry-After header gives, then try again.",
}


def refusal(status: int, detail: str) -> dict:
    return {"detail": detail, "status": status, "help": WHAT_TO_DO[status]}


def api_exception_handler(exc, context):
    """DRF's EXCEPTION_HANDLER: refusals in the one shape; anything else (a field's errors,
    400) as DRF makes it."""
    response = exception_handler(exc, context)
    if response is not None and response.status_code in WHAT_TO_DO:
        detail = response.data.get("detail", "") if isinstance(response.data, dict) else ""
        response.data = refusal(response.status_code, str(detail))
    return response


def not_found(request, *args, **kwargs):
    """Any other address under the API: a JSON 404, as the API answers everything in JSON."""
    return JsonResponse(refusal(404, "Not found."), status=404)
