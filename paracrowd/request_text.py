"""Refuse input that is not text at the edge, before any view or query sees it.

PostgreSQL refuses NUL in text (a query carrying one ends in a 500), a lone surrogate cannot be
encoded to UTF-8 at all, and Django decodes leniently: percent-encoded bytes that are not UTF-8
become U+FFFD, and a raw body or query string that is not UTF-8 is read as ISO-8859-1, so it
would be stored as mojibake ("ÿþ"). Control characters (tab and line breaks aside) belong in
no description, name, reason or search either, and once stored they travel into exports. So
every text a view may read — the path, query parameters, form fields, JSON bodies and the
headers the site reads — is checked here once, and a request carrying anything else is refused
whole with a 400 that says so (JSON on the API); nothing it asked for is done.

Bodies over Django's limits (DATA_UPLOAD_MAX_MEMORY_SIZE, DATA_UPLOAD_MAX_NUMBER_FIELDS, ...)
are answered here too, with a page that says which limit was passed, and so are addresses
longer than ADDRESS_MAX (414).
"""

import json
import unicodedata
from urllib.parse import unquote_to_bytes

from django.conf import settings
from django.core.exceptions import (
    RequestDataTooBig,
    TooManyFieldsSent,
    TooManyFilesSent,
)
from django.http import HttpResponse, JsonResponse
from django.template import loader

# Line breaks and tabs are text (a textarea sends CR LF); every other control character is not.
ALLOWED_CONTROLS = {"\t", "\n", "\r"}
REPLACEMENT = "\ufffd"
# The request headers the site reads: the API token, the client's address behind our proxies,
# a media byte range; and of the cookies, its own (session, CSRF, messages). Others
# (User-Agent, another site's cookies on a shared domain) are never read, so odd bytes there
# are no reason to refuse a request.
READ_HEADERS = ("HTTP_AUTHORIZATION", "HTTP_X_FORWARDED_FOR", "HTTP_RANGE")
MESSAGES_COOKIE = "messages"
FORM_TYPES = ("application/x-www-form-urlencoded", "multipart/form-data")
# The longest address (path and query string) answered: gunicorn's own default limit of the
# request line, so no address is refused that was served before. gunicorn.conf.py lets gunicorn
# take lines up to 8,190 bytes, so that up to there the refusal comes from here, in the site's
# words (JSON on the API), rather than as gunicorn's bare 414 page.
ADDRESS_MAX = 4094

NOT_TEXT = (
    "{where} holds characters that are not text: bytes that are not valid UTF-8, a NUL, a lone "
    "surrogate, or invisible control characters (often pasted from another program). Nothing "
    "was saved."
)
# The deepest nesting of arrays and objects a JSON body may have: far more than any document
# the API takes (a ratings file is three levels deep), far less than what would exhaust
# Python's recursion in a parser or serializer.
JSON_DEPTH_MAX = 64
TOO_DEEP = (
    f"The JSON body is nested too deeply: at most {JSON_DEPTH_MAX} levels of arrays and objects. "
    "Nothing was saved."
)
# Header names as a person knows them, for the refusal's message.
HEADER_NAMES = {
    "HTTP_AUTHORIZATION": "The Authorization header",
    "HTTP_X_FORWARDED_FOR": "The X-Forwarded-For header",
    "HTTP_RANGE": "The Range header",
}


def is_text(value: str) -> bool:
    """True for text a person could have typed: no U+FFFD (what undecodable bytes became), no
    lone surrogate, no control character other than tab and line breaks."""
    return REPLACEMENT not in value and not any(
        unicodedata.category(char) in ("Cc", "Cs") and char not in ALLOWED_CONTROLS
        for char in value
    )


def _is_utf8(raw: bytes) -> bool:
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def _raw_query_is_utf8(query: str) -> bool:
    # WSGI hands the query string over as ISO-8859-1; encoding it back gives the raw bytes.
    raw = query.encode("iso-8859-1", errors="replace")
    return _is_utf8(raw) and _is_utf8(unquote_to_bytes(raw.replace(b"+", b" ")))


class TooDeep(ValueError):
    """A JSON body nested deeper than JSON_DEPTH_MAX."""


def _json_strings(document):
    """Every string of a parsed JSON document, keys included; ``TooDeep`` past JSON_DEPTH_MAX
    levels. Walked with a stack of its own, so no depth can exhaust Python's."""
    stack = [(document, 0)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, str):
            yield value
        elif isinstance(value, list | dict):
            if depth >= JSON_DEPTH_MAX:
                raise TooDeep
            if isinstance(value, dict):
                yield from value.keys()
                value = value.values()
            stack.extend((item, depth + 1) for item in value)


def _json_problem(body: bytes) -> str | None:
    """What is wrong with a JSON body, for the refusal; None when nothing is (a body that is
    not JSON at all is left to the API's parser, which refuses it with its own 400)."""
    if not _is_utf8(body):
        return NOT_TEXT.format(where="The JSON body")
    try:
        # Escapes such as "\u0000" or "\ud800" only show once parsed.
        document = json.loads(body)
        if all(is_text(text) for text in _json_strings(document)):
            return None
    except (TooDeep, RecursionError):
        # Python's parser gives up (RecursionError) near a thousand levels; the site's limit
        # is far below, so that no view, serializer or JSON column ever recurses that deep.
        return TOO_DEEP
    except ValueError:
        return None
    return NOT_TEXT.format(where="The JSON body")


def request_problem(request) -> str | None:
    """What in ``request`` the site would refuse to read (see the module's docstring), as the
    refusal's message; None when nothing. Reads the body of form and JSON requests; raises
    Django's RequestDataTooBig and TooManyFieldsSent when a limit is passed."""
    where = _not_text(request)
    if where:
        return NOT_TEXT.format(where=where)
    if request.method not in ("GET", "HEAD", "OPTIONS") and _is_json(request):
        return _json_problem(request.body)
    return None


def _is_json(request) -> bool:
    # application/json and the types built on it (application/merge-patch+json, ...): the API
    # parses them all.
    return request.content_type == "application/json" or request.content_type.endswith("+json")


def _not_text(request) -> str | None:
    """Which text of ``request`` outside a JSON body is not text, named for the refusal ("The
    parameter workerId"); None when all are."""
    for name, label in HEADER_NAMES.items():
        if not _header_is_text(request.META.get(name, "")):
            return label
    for name in (settings.SESSION_COOKIE_NAME, settings.CSRF_COOKIE_NAME, MESSAGES_COOKIE):
        if not _header_is_text(request.COOKIES.get(name, "")):
            return f"The cookie {name}"
    if not is_text(request.path):
        return "The address"
    if not _raw_query_is_utf8(request.META.get("QUERY_STRING", "")):
        return "The query string"
    if where := _first_not_text(request.GET, "parameter"):
        return where
    if request.method in ("GET", "HEAD", "OPTIONS") or request.content_type not in FORM_TYPES:
        return None
    if request.content_type == FORM_TYPES[0] and not _is_utf8(unquote_to_bytes(request.body)):
        return "The form"
    return _first_not_text(request.POST, "field")


def _header_is_text(value: str) -> bool:
    # WSGI hands headers over as ISO-8859-1: their bytes must be UTF-8 text.
    return is_text(value) and _is_utf8(value.encode("iso-8859-1", errors="replace"))


def _first_not_text(data, noun: str) -> str | None:
    """The first of a QueryDict's names or values that is not text, named for a person (a name
    that is not text itself is not repeated back)."""
    for key, values in data.lists():
        if not is_text(key):
            return f"The name of a {noun}"
        if not all(is_text(value) for value in values):
            return f"The {noun} {key}"
    return None


def _limit_passed(error: Exception) -> tuple[int, str] | None:
    """The status and message for a request over one of Django's limits, else None."""
    if isinstance(error, RequestDataTooBig):
        size = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
        return 413, (
            f"The request is too large: its body (files aside) may be at most {size:,} bytes. "
            "Nothing was saved."
        )
    if isinstance(error, TooManyFieldsSent):
        count = settings.DATA_UPLOAD_MAX_NUMBER_FIELDS
        return 413, f"The request has too many fields: at most {count:,}. Nothing was saved."
    if isinstance(error, TooManyFilesSent):
        count = settings.DATA_UPLOAD_MAX_NUMBER_FILES
        return 413, f"The request has too many files: at most {count:,}. Nothing was saved."
    return None


# What to do, for the API's answers: the API answers every refusal as {detail, status, help}.
WHAT_TO_DO = {
    400: (
        "Send text only (UTF-8, without NUL, lone surrogates or control characters), and JSON "
        f"nested at most {JSON_DEPTH_MAX} levels deep."
    ),
    413: "Send less at once: split the file, or the request, into smaller ones.",
    414: "Ask with fewer or shorter parameters.",
}


def refusal(request, status: int, message: str) -> HttpResponse:
    """A refused request's answer: on the API the JSON every refusal there has, ``{"detail",
    "status", "help"}``; a page elsewhere."""
    if request.path.startswith("/api/"):
        body = {"detail": message, "status": status, "help": WHAT_TO_DO.get(status, "")}
        return JsonResponse(body, status=status)
    page = loader.get_template("400.html").render({"message": message, "status": status})
    return HttpResponse(page, status=status)


def bad_request(request, exception=None):
    """Django's handler400: says which limit a request passed when it was one (a view that
    read a body the guard below did not), instead of a bare "Bad Request (400)"."""
    status, message = _limit_passed(exception) or (400, "The request could not be understood.")
    return refusal(request, status, message)


class RequestTextMiddleware:
    """Every request: 400 when a text it carries is not text, 413 when it is over a size limit,
    414 when its address is; the view is not called in any of these cases."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if len(request.path) + len(request.META.get("QUERY_STRING", "")) > ADDRESS_MAX:
            message = (
                f"The address is too long: at most {ADDRESS_MAX:,} characters with its query "
                "string. Nothing was done."
            )
            return refusal(request, 414, message)
        try:
            problem = request_problem(request)
        except (RequestDataTooBig, TooManyFieldsSent, TooManyFilesSent) as error:
            return refusal(request, *_limit_passed(error))
        if problem:
            return refusal(request, 400, problem)
        return self.get_response(request)
