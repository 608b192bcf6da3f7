"""The OpenAPI schema: every operation documents the errors it can answer with, and the schema
is generated once per process."""

import threading

from drf_spectacular.views import SpectacularAPIView
from rest_framework.response import Response

# research.refusals' shape.
ERROR = {
    "type": "object",
    "properties": {
        "detail": {"type": "string", "description": "what happened"},
        "status": {"type": "integer", "description": "the HTTP status"},
        "help": {"type": "string", "description": "what to do"},
    },
    "required": ["detail", "status", "help"],
}
FIELD_ERRORS = {
    "type": "object",
    "additionalProperties": {"anyOf": [{"type": "array"}, {"type": "object"}, {"type": "string"}]},
    "description": "each parameter or field that cannot be used, with its messages (or a "
    "detail, when the body is not JSON)",
}
ERROR_RESPONSES = {
    # A field's errors from the view, or the site's edge refusing what is not text.
    "400": (
        "A parameter or field that cannot be used, or a request holding what is not text.",
        {"anyOf": [FIELD_ERRORS, ERROR]},
    ),
    "401": ("No credentials, or a token that is not valid.", ERROR),
    "403": ("Not a researcher.", ERROR),
    "404": ("No such item (or not yours), or a page cursor that is not valid.", ERROR),
    "413": ("The body is over a size limit (the detail says which).", ERROR),
    "414": ("The address with its query string is over its length limit.", ERROR),
    "429": ("Too many requests: wait the seconds Retry-After gives.", ERROR),
}


def document_errors(result, generator, request, public):
    """drf-spectacular post-processing hook: add the error answers to every operation."""
    for path in result.get("paths", {}).values():
        for operation in path.values():
            responses = operation.setdefault("responses", {})
            for status, (description, schema) in ERROR_RESPONSES.items():
                responses.setdefault(
                    status,
                    {
                        "description": description,
                        "content": {"application/json": {"schema": schema}},
                    },
                )
    return result


class SchemaView(SpectacularAPIView):
    """The API's schema, generated once per process and served from memory since. drf-
    spectacular's generator is not thread-safe (it sets state on shared view instances), so
    concurrent generations under gunicorn's threads failed now and then with "Schema
    generation REQUIRES a view instance"; one generation under a lock cannot race, and spares
    every later request the work. The schema is public (SERVE_PUBLIC): it does not depend on
    who asks, so one copy serves everyone."""

    def _get_schema_response(self, request):
        version = self.api_version or request.version or self._get_version_parameter(request)
        with _GENERATING:
            if version not in _GENERATED:
                generator = self.generator_class(
                    urlconf=self.urlconf, api_version=version, patterns=self.patterns
                )
                _GENERATED[version] = generator.get_schema(request=None, public=self.serve_public)
        return Response(
            data=_GENERATED[version],
            headers={
                "Content-Disposition": (
                    f'inline; filename="{self._get_filename(request, version)}"'
                )
            },
        )


_GENERATING = threading.Lock()
_GENERATED: dict = {}
