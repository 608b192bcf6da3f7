"""A gold item is handed out to a worker who has no other work left (crowd_assignment_claim).

Until now a gold item's HIT was handed out only on the worker's gold turn (the HIT type's
gold rate), so making an item gold took it out of ordinary work: at the default rate of 0 %
it was never handed out again, and a worker was told the kind's work was over while its
dashboard still counted the item as open. Now a worker who has done everything else meets
the gold items they have not answered, after all ordinary work and at any rate; outside a
campaign only, since a campaign's sessions are sized and paid for its own published work.

The function is 0016's with one line changed, marked "Changed from 0016".
"""

import importlib

from django.db import migrations

PREVIOUS = importlib.import_module("crowd.migrations.0016_claim_one_item_once_per_worker").CLAIM

OLD_ORDER = """    FOR want_gold IN SELECT unnest(CASE WHEN gold_due THEN ARRAY[true, false]
                                        ELSE ARRAY[false] END) LOOP"""
NEW_ORDER = """    -- Changed from 0016: with nothing else left, a gold item (never in a campaign's session).
    FOR want_gold IN SELECT unnest(CASE WHEN gold_due THEN ARRAY[true, false]
                                        WHEN p_campaign IS NULL THEN ARRAY[false, true]
                                        ELSE ARRAY[false] END) LOOP"""

assert PREVIOUS.count(OLD_ORDER) == 1
CLAIM = PREVIOUS.replace(OLD_ORDER, NEW_ORDER)


class Migration(migrations.Migration):
    dependencies = [
        ("crowd", "0017_session_consent_and_failed_check_code"),
    ]

    operations = [
        migrations.RunSQL(CLAIM, PREVIOUS),
    ]
