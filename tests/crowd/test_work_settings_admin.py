"""Quality rules and HIT types edited in the admin: every create, change and delete writes one
audit entry saying what changed, and a save that changes nothing or fails writes none."""

import pytest
from django.db import IntegrityError
from django.forms.models import model_to_dict
from django.urls import reverse
from django.utils.duration import duration_string

from crowd import services as crowd
from crowd.models import AuditEntry, HitType, QualityRule

pytestmark = pytest.mark.django_db


@pytest.fixture
def staff(client, admin_user):
    client.force_login(admin_user)
    return admin_user


@pytest.fixture
def typing_rule():
    return QualityRule.objects.create(check_kind="typing", warn_after=2, stop_after=5, window=10)


def settings_entries():
    return AuditEntry.objects.filter(action=AuditEntry.Action.SETTINGS)


def admin_form(record, **changes) -> dict:
    """What the admin's change form sends for ``record`` with ``changes`` typed in."""
    values = {**model_to_dict(record, exclude=["id"]), **changes}
    form = {}
    for name, value in values.items():
        if value is False:
            continue  # an unticked box is not sent
        form[name] = duration_string(value) if hasattr(value, "total_seconds") else value
    return form


def post_change(client, record, **changes):
    url = reverse(f"admin:crowd_{record._meta.model_name}_change", args=[record.pk])
    return client.post(url, admin_form(record, **changes))


def test_editing_a_quality_rule_writes_one_entry_saying_old_to_new(client, staff, typing_rule):
    response = post_change(client, typing_rule, stop_after=3)
    assert response.status_code == 302
    typing_rule.refresh_from_db()
    assert typing_rule.stop_after == 3
    entry = settings_entries().get()
    assert (entry.actor, entry.worker) == (staff, None)
    assert entry.reason == "Quality rule typing: stop_after 5 → 3"
    assert entry.details == {
        "model": "crowd.qualityrule",
        "id": typing_rule.pk,
        "changes": {"stop_after": ["5", "3"]},
    }


def test_editing_a_hit_type_writes_one_entry_with_every_field_changed(client, staff):
    description = HitType.objects.for_kind(HitType.Kind.DESCRIPTION)
    assert (description.paste_allowed, description.gold_percent) == (True, 0)
    response = post_change(client, description, paste_allowed=False, gold_percent=10)
    assert response.status_code == 302
    description.refresh_from_db()
    assert (description.paste_allowed, description.gold_percent) == (False, 10)
    entry = settings_entries().get()
    assert entry.actor == staff
    assert entry.reason == ("HIT type description: paste_allowed True → False; gold_percent 0 → 10")


def test_saving_a_rule_or_a_hit_type_unchanged_writes_nothing(client, staff, typing_rule):
    assert post_change(client, typing_rule).status_code == 302
    description = HitType.objects.for_kind(HitType.Kind.DESCRIPTION)
    assert post_change(client, description).status_code == 302
    assert not settings_entries().exists()


def test_a_save_the_form_refuses_writes_nothing(client, staff, typing_rule):
    # More failures than the window counts, and more gold than all of the work.
    response = post_change(client, typing_rule, stop_after=11)
    assert response.status_code == 200 and "At most the window" in response.content.decode()
    description = HitType.objects.for_kind(HitType.Kind.DESCRIPTION)
    assert post_change(client, description, gold_percent=101).status_code == 200
    typing_rule.refresh_from_db()
    description.refresh_from_db()
    assert (typing_rule.stop_after, description.gold_percent) == (5, 0)
    assert not settings_entries().exists()


def test_a_save_the_database_refuses_writes_no_audit_entry(staff, typing_rule):
    typing_rule.stop_after = 11  # over the window: the database's check refuses it
    with pytest.raises(IntegrityError):
        crowd.work_settings_save(record=typing_rule, saved_by=staff)
    typing_rule.refresh_from_db()
    assert typing_rule.stop_after == 5
    assert not settings_entries().exists()


def test_creating_and_deleting_a_rule_are_audited(client, staff):
    response = client.post(
        reverse("admin:crowd_qualityrule_add"),
        {"check_kind": "gold", "warn_after": 1, "stop_after": 3, "window": 5},
    )
    assert response.status_code == 302
    rule = QualityRule.objects.get(check_kind="gold")
    created = settings_entries().get()
    assert created.reason == "Created quality rule gold: check_kind “gold”, warn_after 1, " + (
        "stop_after 3, window 5"
    )
    response = client.post(
        reverse("admin:crowd_qualityrule_delete", args=[rule.pk]), {"post": "yes"}
    )
    assert response.status_code == 302
    assert not QualityRule.objects.exists()
    deleted = settings_entries().exclude(pk=created.pk).get()
    assert (deleted.actor, deleted.worker) == (staff, None)
    assert deleted.reason == (
        "Deleted quality rule gold (check_kind “gold”, warn_after 1, stop_after 3, window 5)"
    )


def test_deleting_rules_from_the_list_writes_one_entry_each(client, staff, typing_rule):
    gold = QualityRule.objects.create(check_kind="gold")
    response = client.post(
        reverse("admin:crowd_qualityrule_changelist"),
        {"action": "delete_selected", "_selected_action": [typing_rule.pk, gold.pk], "post": "yes"},
    )
    assert response.status_code == 302
    assert not QualityRule.objects.exists()
    reasons = sorted(settings_entries().values_list("reason", flat=True))
    assert [reason.split(" (")[0] for reason in reasons] == [
        "Deleted quality rule gold",
        "Deleted quality rule typing",
    ]


def test_the_audit_page_shows_settings_changes_escaped_with_no_worker(client, staff):
    response = client.post(
        reverse("admin:crowd_qualityrule_add"),
        {"check_kind": "<b>typing</b>", "warn_after": 2, "stop_after": 5, "window": 10},
    )
    assert response.status_code == 302
    page = client.get(reverse("review:audit"), {"action": "settings"}).content.decode()
    assert "Changed work settings" in page
    assert "Created quality rule &lt;b&gt;typing&lt;/b&gt;" in page and "<b>typing</b>" not in page
    assert "<td>—</td>" in page
