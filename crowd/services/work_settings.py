"""The work settings staff edit in the admin: the warn and stop rule of each kind of quality
check (``QualityRule``) and each HIT type's pay, targets, gold share and paste rule
(``HitType``). They decide what is asked of workers and how they are judged, so every change
is audit-logged, field by field, in the transaction that makes it."""

from django.db import transaction

from ..models import AuditEntry, HitType, QualityRule
from .workers import audit_record

# How the audit log names one record of each kind of setting: its label and the field that
# tells the records apart.
NAMED_BY = {QualityRule: ("quality rule", "check_kind"), HitType: ("HIT type", "kind")}


def work_settings_save(*, record: QualityRule | HitType, saved_by) -> AuditEntry | None:
    """Create or change ``record`` and audit-log what changed (old → new for each field), with
    ``saved_by`` as the actor. A save that changes nothing writes nothing and returns None; a
    save the database refuses writes no audit entry either."""
    with transaction.atomic():
        if record.pk is None:
            record.save()
            return _audit(
                record, saved_by, f"Created {_name(record)}: {_listed(record)}", changes=None
            )
        # The stored row, locked, is what the change is measured against (not what the form
        # was shown, which another staff member may have saved over since).
        stored = type(record).objects.select_for_update().get(pk=record.pk)
        before, after = _values(stored), _values(record)
        changes = {
            name: (before[name], after[name]) for name in after if before[name] != after[name]
        }
        if not changes:
            return None
        record.save()
        shown = "; ".join(f"{name} {old} → {new}" for name, (old, new) in changes.items())
        name = _name(stored)
        return _audit(stored, saved_by, f"{name[:1].upper()}{name[1:]}: {shown}", changes=changes)


def work_settings_delete(*, record: QualityRule | HitType, deleted_by) -> AuditEntry:
    """Delete ``record`` and audit-log it with the values it had. Deleting a quality rule puts
    its kind of check back on the default rule (see ``quality_rule``); a deleted HIT type comes
    back with the study's defaults when next needed (``HitType.objects.for_kind``)."""
    with transaction.atomic():
        reason = f"Deleted {_name(record)} ({_listed(record)})"
        entry = _audit(record, deleted_by, reason, changes=None)
        record.delete()
        return entry


def _name(record) -> str:
    label, key = NAMED_BY[type(record)]
    return f"{label} {getattr(record, key)}"


def _listed(record) -> str:
    return ", ".join(f"{name} {value}" for name, value in _values(record).items())


def _values(record) -> dict[str, str]:
    """Every stored field but the id, as the audit log shows it."""
    return {
        field.name: _shown(field.value_from_object(record))
        for field in record._meta.concrete_fields
        if not field.primary_key
    }


def _shown(value) -> str:
    return f"“{value}”" if isinstance(value, str) else str(value)


def _audit(record, actor, reason: str, *, changes) -> AuditEntry:
    details = {"model": record._meta.label_lower, "id": record.pk}
    if changes is not None:
        details["changes"] = {name: list(pair) for name, pair in changes.items()}
    return audit_record(
        actor=actor, action=AuditEntry.Action.SETTINGS, reason=reason, details=details
    )
