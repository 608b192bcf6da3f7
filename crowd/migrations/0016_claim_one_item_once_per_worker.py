"""An item is worked on once per worker, whatever the tier (crowd_assignment_claim).

Until now only paraphrases were kept apart across tiers: for every other kind the claim passed
over the HITs the worker had held, and a HIT is one item in one tier, so a worker promoted to
Tier 2 was handed the very segments they had described in Tier 1 again. A second description
by the same person is not an independent one, and it is paid twice for one piece of insight.

The rule is now the paraphrases' for every kind with items: no HIT whose item the worker has
had in any tier of the same HIT type, except the worker's own expired assignment to this very
HIT, which is theirs to reopen (0011). The claim holds the worker's row lock, so two claims
of one worker (one per tier, at once) still queue and the second sees the first's row.

The function is 0011's with one condition changed, marked "Changed from 0011".
"""

import importlib

from django.db import migrations

PREVIOUS = importlib.import_module("crowd.migrations.0011_reopen_expired_assignments").CLAIM

OLD_CONDITION = """          -- A sentence is paraphrased once per worker, whatever the tier: a second version by
          -- the same person is not an independent paraphrase.
          AND (p_kind <> 'paraphrase' OR NOT EXISTS ("""
NEW_CONDITION = """          -- Changed from 0011: an item (a segment, a sentence, a pair) is worked on once per
          -- worker, whatever the tier: a second version by the same person is not independent.
          AND (NOT EXISTS ("""

assert PREVIOUS.count(OLD_CONDITION) == 1
CLAIM = PREVIOUS.replace(OLD_CONDITION, NEW_CONDITION)


class Migration(migrations.Migration):
    dependencies = [
        ("crowd", "0015_campaign_study_link_preset_and_confirm_hours"),
    ]

    operations = [
        migrations.RunSQL(CLAIM, PREVIOUS),
    ]
