"""The webhook crowd platforms send their events to (``/platforms/<name>/hooks/``).

Security behaviour: anyone may POST, and no login or CSRF token is asked (the platform has
neither). Only a request the platform signed with the workspace's secret, less than five
minutes ago, is stored; any other answers 403 and changes nothing. A body over
EVENT_BODY_MAX_BYTES answers 413 unread. An event already stored (a redelivery, a replay)
answers 200 and changes nothing. The answer comes at once: the event is applied by a Celery
task queued when it is stored. A subscription's handshake (``X-Hook-Secret``, unsigned) is
answered by echoing it, which tells the caller nothing it did not send.
"""

from django.http import Http404, HttpResponse, JsonResponse
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_POST

from . import platforms, services
from .models import EVENT_BODY_MAX_BYTES
from .platforms.base import WebhookRefused


@csrf_exempt
@require_POST
def receive(request, platform: str):
    chosen = platforms.REGISTRY.get(platform)
    if chosen is None or not chosen.webhook_events:
        raise Http404("This platform sends no webhooks.")
    try:
        length = int(request.headers.get("Content-Length") or 0)
    except ValueError:
        return JsonResponse({"detail": "The Content-Length is not a number."}, status=400)
    if length > EVENT_BODY_MAX_BYTES:
        return JsonResponse({"detail": "The event is too large."}, status=413)
    handshake = chosen.webhook_handshake(request.headers)
    if handshake:
        return HttpResponse(status=200, headers=handshake)
    try:
        stored = services.platform_event_receive(
            platform=platform, headers=request.headers, body=request.body
        )
    except WebhookRefused as refusal:
        return JsonResponse({"detail": str(refusal)}, status=refusal.status)
    return JsonResponse({"stored": stored})
