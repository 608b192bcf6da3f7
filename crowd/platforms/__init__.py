"""Connectors to crowd platforms: how ParaCrowd publishes work on a platform, reads back what
workers did there, and pays them through it. Each platform's module wraps its API; nothing
here touches the database, so the services decide what is stored and when.

``connector(platform)`` gives the configured connector of a platform (Mechanical Turk when
MTURK_ENABLED, Prolific when PROLIFIC_API_TOKEN is set), or raises ``NotConfigured``. Tests
``install`` a connector built on a stubbed client instead.
"""

from django.conf import settings
from django.urls import reverse

from .base import NotConfigured, PlatformError, Submission

_installed = {}

# The page a platform opens for each kind of task (each app serves its own).
ENTRANCES = {
    "description": "collector:platform_describe",
    "video_collection": "collector:platform_collect",
    "alignment": "annotations:platform_align",
    "rating": "research:platform_rate",
    "paraphrase": "collector:platform_paraphrase",
}


def entrance_url(kind: str) -> str:
    """The public address of the page a platform opens for tasks of ``kind``."""
    return settings.PLATFORM_PUBLIC_URL + reverse(ENTRANCES[kind])


def configured() -> list[str]:
    """The platforms a connector is configured for. With any, arrivals for work that no
    campaign published are refused."""
    platforms = []
    if settings.MTURK_ENABLED or "mturk" in _installed:
        platforms.append("mturk")
    if settings.PROLIFIC_API_TOKEN or "prolific" in _installed:
        platforms.append("prolific")
    return platforms


def connector(platform: str):
    if platform in _installed:
        return _installed[platform]
    if platform == "mturk" and settings.MTURK_ENABLED:
        from .mturk import MechanicalTurk

        return MechanicalTurk(sandbox=settings.MTURK_SANDBOX)
    if platform == "prolific" and settings.PROLIFIC_API_TOKEN:
        from .prolific import Prolific

        return Prolific(
            token=settings.PROLIFIC_API_TOKEN,
            base_url=settings.PROLIFIC_API_URL,
            workspace_id=settings.PROLIFIC_WORKSPACE_ID,
            project_id=settings.PROLIFIC_PROJECT_ID,
        )
    raise NotConfigured(f"No connector is configured for {platform}; see the README.")


def install(platform: str, instance) -> None:
    """Use ``instance`` as ``platform``'s connector (None: back to the configured one)."""
    if instance is None:
        _installed.pop(platform, None)
    else:
        _installed[platform] = instance


__all__ = [
    "ENTRANCES",
    "entrance_url",
    "NotConfigured",
    "PlatformError",
    "Submission",
    "configured",
    "connector",
    "install",
]
