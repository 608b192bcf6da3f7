"""Where crowd platforms send workers: one entrance page per kind of task."""

from django.conf import settings
from django.urls import reverse

ENTRANCES = {
    "description": "collector:platform_describe",
    "video_collection": "collector:platform_collect",
    "alignment": "annotations:platform_align",
}


def entrance_url(kind: str) -> str:
    """The absolute address of ``kind``'s entrance, as a platform links to it."""
    return settings.PLATFORM_PUBLIC_URL + reverse(ENTRANCES[kind])
