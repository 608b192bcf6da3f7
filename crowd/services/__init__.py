"""Writes that span the crowd's models: workers and their standing, handing out and taking
back work, and paying for it.

Every function is safe under concurrency. The database enforces the invariants (one assignment
per worker per HIT, never more submissions than a HIT's target, one payment per task); the code
checks them too so that a lost race ends in a clear ``WorkRefused``, not in bad data. Every
change an admin (or an automatic rule) makes to a worker's standing or pay is written to the
audit log in the same transaction.
"""

from .allocation import (
    assignment_claim,
    assignment_for_platform,
    assignment_reinstate,
    assignment_reject,
    assignment_return,
    assignment_submit,
    assignments_expire,
    assignments_held,
    hits_open,
    platform_arrival,
    worker_has_access,
)
from .campaigns import (
    campaign_create,
    campaign_expire,
    campaign_extend,
    campaign_publish,
    campaign_publish_check,
    campaign_sync,
    campaigns_to_sync,
)
from .errors import ArrivalsExceeded, WorkRefused
from .ledger import (
    assignments_auto_pay,
    bonus_pay,
    ledger_credit,
    ledger_pay_assignments,
    payout_record,
    platform_approval_record,
)
from .outbox import (
    ledger_entry_platform_payment,
    platform_action_queue,
    platform_actions_send,
    platform_qualification,
)
from .pay import (
    CampaignPlan,
    campaign_pay_check,
    campaign_plan,
    money,
    pay_summary,
    platform_fee_cents,
    task_time,
)
from .review import (
    ReviewOutcome,
    work_accept,
    work_auto_accept,
    work_overturn,
    work_reject,
)
from .sessions import (
    SessionProgress,
    session_abandon,
    session_after_submit,
    session_confirm,
    session_done,
    session_enter,
    session_finish,
    session_progress,
    session_task,
)
from .study_links import study_link_address, study_link_confirm, study_link_sheets
from .workers import (
    arrival_count,
    arrival_windows_forget,
    audit_record,
    qualification_grant,
    qualification_revoke,
    worker_block,
    worker_create,
    worker_from_platform,
    worker_unblock,
)

__all__ = [
    "ArrivalsExceeded",
    "ReviewOutcome",
    "work_accept",
    "work_auto_accept",
    "work_overturn",
    "work_reject",
    "SessionProgress",
    "arrival_count",
    "session_abandon",
    "session_after_submit",
    "session_confirm",
    "session_done",
    "session_enter",
    "session_finish",
    "session_progress",
    "session_task",
    "study_link_address",
    "study_link_confirm",
    "study_link_sheets",
    "WorkRefused",
    "arrival_windows_forget",
    "assignment_claim",
    "assignment_for_platform",
    "assignment_reinstate",
    "assignment_reject",
    "assignment_return",
    "assignment_submit",
    "assignments_auto_pay",
    "assignments_expire",
    "assignments_held",
    "audit_record",
    "bonus_pay",
    "campaign_create",
    "campaign_expire",
    "campaign_extend",
    "campaign_publish",
    "CampaignPlan",
    "campaign_pay_check",
    "campaign_plan",
    "campaign_publish_check",
    "money",
    "pay_summary",
    "task_time",
    "campaign_sync",
    "campaigns_to_sync",
    "hits_open",
    "ledger_credit",
    "ledger_pay_assignments",
    "payout_record",
    "platform_fee_cents",
    "ledger_entry_platform_payment",
    "platform_action_queue",
    "platform_actions_send",
    "platform_approval_record",
    "platform_qualification",
    "platform_arrival",
    "qualification_grant",
    "qualification_revoke",
    "worker_block",
    "worker_create",
    "worker_from_platform",
    "worker_has_access",
    "worker_unblock",
]
