"""Crowd platforms: one package per platform (``prolific/``, ``studylink/``, ``mturk/``), each
holding its API client and a ``Platform`` (base.py) that answers everything the rest of the
site must know of it. Nothing here touches the database, so the services decide what is
stored and when.

``get(name)`` gives a platform's ``Platform``; ``connector(name)`` its configured API client
(Prolific when PROLIFIC_API_TOKEN is set, Mechanical Turk when MTURK_ENABLED), or raises
``NotConfigured``. Tests ``install`` a connector built on a stubbed client instead.
"""

from django.conf import settings
from django.urls import reverse

from .base import (
    ArrivalContext,
    ArrivalIds,
    ArrivalInvalid,
    Completion,
    NotConfigured,
    Platform,
    PlatformError,
    Submission,
)
from .mturk import MechanicalTurkPlatform
from .origins import ORIGINS
from .prolific import ProlificPlatform
from .studylink import StudyLinkPlatform

REGISTRY: dict[str, Platform] = {
    platform.name: platform
    # In the order an arrival's parameters are offered to them (crowd.arrivals.arrival_parse).
    for platform in (ProlificPlatform(), StudyLinkPlatform(), MechanicalTurkPlatform())
}

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


def get(name: str) -> Platform:
    """The platform called ``name`` (a ``Worker.Platform`` value); KeyError for any other."""
    return REGISTRY[name]


def origin(name: str) -> Platform:
    """Where a worker of ``name`` (a ``Worker.Platform`` value) comes from: a crowd platform,
    the site's own sign-ups or an imported corpus; KeyError for any other."""
    return REGISTRY.get(name) or ORIGINS[name]


def origins_where(attribute: str) -> list[str]:
    """The names of every origin whose ``attribute`` is true, for a query."""
    return [name for name, each in {**REGISTRY, **ORIGINS}.items() if getattr(each, attribute)]


def configured() -> list[str]:
    """The platforms with an API connector configured. With any, arrivals for work that no
    campaign published are refused."""
    return [
        name
        for name, platform in REGISTRY.items()
        if name in _installed or (platform.configured() and _has_api(platform))
    ]


def _has_api(platform: Platform) -> bool:
    return type(platform).make_connector is not Platform.make_connector


def connector(platform: str):
    if platform in _installed:
        return _installed[platform]
    chosen = REGISTRY.get(platform)
    if chosen is not None and chosen.configured() and _has_api(chosen):
        return chosen.make_connector()
    raise NotConfigured(
        f"No connector is configured for {platform}; see docs/operators/crowd-platforms.md."
    )


def install(platform: str, instance) -> None:
    """Use ``instance`` as ``platform``'s connector (None: back to the configured one)."""
    if instance is None:
        _installed.pop(platform, None)
    else:
        _installed[platform] = instance


__all__ = [
    "ENTRANCES",
    "ArrivalContext",
    "ArrivalIds",
    "ArrivalInvalid",
    "Completion",
    "REGISTRY",
    "Platform",
    "get",
    "origin",
    "origins_where",
    "entrance_url",
    "NotConfigured",
    "PlatformError",
    "Submission",
    "configured",
    "connector",
    "install",
]
