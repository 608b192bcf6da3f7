"""The crowd's models: the work itself (``work``) and its publication on crowd platforms
(``campaigns``)."""

from .campaigns import Campaign, CampaignEvent, CampaignHit, PlatformAction, PlatformQualification
from .ledger import LedgerEntry, Payout
from .platform_events import EVENT_BODY_MAX_BYTES, PlatformEvent, PlatformHookSecret
from .quality import GoldItem, QualityCheck, QualityRule
from .review import Reviewed, ReviewedQuerySet, ReviewStatus
from .sessions import WorkSession, WorkSessionQuerySet
from .work import (
    ArrivalWindow,
    Assignment,
    AuditEntry,
    Hit,
    HitQuerySet,
    HitType,
    HitTypeQuerySet,
    Item,
    Offered,
    Qualification,
    QualificationQuerySet,
    Tier,
    Worker,
    WorkerQuerySet,
    worker_label_sql,
)

__all__ = [
    "ArrivalWindow",
    "Assignment",
    "AuditEntry",
    "Campaign",
    "CampaignEvent",
    "CampaignHit",
    "EVENT_BODY_MAX_BYTES",
    "Hit",
    "GoldItem",
    "HitQuerySet",
    "HitType",
    "HitTypeQuerySet",
    "Item",
    "LedgerEntry",
    "Offered",
    "Payout",
    "PlatformAction",
    "PlatformEvent",
    "PlatformHookSecret",
    "PlatformQualification",
    "Qualification",
    "Reviewed",
    "ReviewedQuerySet",
    "ReviewStatus",
    "QualificationQuerySet",
    "QualityCheck",
    "QualityRule",
    "Tier",
    "Worker",
    "WorkerQuerySet",
    "WorkSession",
    "WorkSessionQuerySet",
    "worker_label_sql",
]
