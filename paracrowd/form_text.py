"""Refuse form input that is not text, before any view sees it.

Django decodes form data leniently: bytes that are not UTF-8 become U+FFFD, so a broken
client's input would be stored as replacement characters, and control characters (NUL aside)
pass every form field. Neither belongs in a description, a name or a reason, and once stored
they travel into exports. So a request carrying either is refused whole, with a page saying
so, and nothing it asked for is done.
"""

import unicodedata

from django.shortcuts import render

# Line breaks and tabs are text (a textarea sends CR LF); every other control character is not.
ALLOWED_CONTROLS = {"\t", "\n", "\r"}
REPLACEMENT = "\ufffd"


def is_text(value: str) -> bool:
    return REPLACEMENT not in value and not any(
        unicodedata.category(char) == "Cc" and char not in ALLOWED_CONTROLS for char in value
    )


class FormTextMiddleware:
    """Form bodies (urlencoded or multipart) must be UTF-8 text without control characters;
    otherwise 400 and the view is not called. Query strings store nothing and each view that
    reads one checks its own parameters; JSON bodies are left to the API's parser, which
    refuses invalid UTF-8 itself."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if request.method == "POST" and request.content_type in (
            "application/x-www-form-urlencoded",
            "multipart/form-data",
        ):
            for key, values in request.POST.lists():
                if not all(is_text(text) for text in (key, *values)):
                    return render(request, "400_not_text.html", status=400)
        return self.get_response(request)
