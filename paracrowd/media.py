"""Serves local media's public folders (PUBLIC_FOLDERS: the videos workers watch) with HTTP
Range support: browsers seek in a video (to a segment's start) only when the server can answer
byte ranges. Anything else under MEDIA_ROOT answers 404 here. With S3 or a web server in front,
this is unused (and the web server must keep to the same folders)."""

import mimetypes
import re
from pathlib import Path

from django.conf import settings
from django.core.exceptions import SuspiciousFileOperation
from django.http import FileResponse, Http404, HttpResponse
from django.utils._os import safe_join

RANGE = re.compile(r"^bytes=(\d*)-(\d*)$")


# The only media folders served to anyone who asks: the videos workers watch (uploaded files
# and the demo's clip, collector.models' upload_to). Everything else the storage holds is
# private unless named here, whatever adds it later: researchers' exports and releases go out
# through views that check who is asking (research.api.ExportFile, research.views.release_file).
PUBLIC_FOLDERS = {"videos"}


def _public(file_path: Path) -> bool:
    try:
        relative = file_path.resolve().relative_to(Path(settings.MEDIA_ROOT).resolve())
    except ValueError:  # a link leading out of MEDIA_ROOT
        return False
    return len(relative.parts) > 1 and relative.parts[0] in PUBLIC_FOLDERS


def serve_media(request, path):
    try:
        file_path = Path(safe_join(settings.MEDIA_ROOT, path))
    except SuspiciousFileOperation:  # a path escaping MEDIA_ROOT
        raise Http404 from None
    if not file_path.is_file() or not _public(file_path):
        raise Http404
    size = file_path.stat().st_size
    content_type = mimetypes.guess_type(file_path.name)[0] or "application/octet-stream"
    match = RANGE.match(request.headers.get("Range", ""))
    if not match or match.groups() == ("", ""):
        response = FileResponse(file_path.open("rb"), content_type=content_type)
        response["Accept-Ranges"] = "bytes"
        return response
    first, last = match.groups()
    if first:
        start, end = int(first), min(int(last) if last else size - 1, size - 1)
    else:  # "bytes=-N": the last N bytes
        start, end = max(size - int(last), 0), size - 1
    if start > end or start >= size:
        response = HttpResponse(status=416)
        response["Content-Range"] = f"bytes */{size}"
        return response
    with file_path.open("rb") as media:
        media.seek(start)
        response = HttpResponse(media.read(end - start + 1), status=206, content_type=content_type)
    response["Content-Range"] = f"bytes {start}-{end}/{size}"
    response["Accept-Ranges"] = "bytes"
    return response
