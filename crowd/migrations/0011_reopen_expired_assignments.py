"""An expired task is offered again to the worker who let it expire (crowd_assignment_claim).

Until now the claim passed over every HIT the worker had ever held, so a segment whose task ran
out while the worker was away was never offered to them again, although it still wanted work.
The worker holds at most one assignment per HIT (assignment_one_per_worker_hit), so the claim
reopens their expired row (status back to assigned, a new deadline) instead of inserting one,
under the same locks and the same count under the HIT's lock as a new assignment.

What is reopened, and what is not (``crowd_assignment_reopenable``): an assignment that expired
unsubmitted. Submitted, rejected and unverified work is done; a returned (skipped) task was
given back on purpose ("you will not be shown that task again"); an assignment tied to a
platform assignment or session stays as the platform knows it.

The function's text is 0009's (gold items) with three changes, each marked "Changed from
0009".
"""

import importlib

from django.db import migrations

REOPENABLE = """
CREATE OR REPLACE FUNCTION crowd_assignment_reopenable(a crowd_assignment, p_now timestamptz)
RETURNS boolean LANGUAGE sql IMMUTABLE AS $$
    SELECT (a.status = 'expired' OR (a.status = 'assigned' AND a.expires_at <= p_now))
       AND a.external_assignment_id = '' AND a.session_id IS NULL
$$;
"""

CLAIM = """
CREATE OR REPLACE FUNCTION crowd_assignment_claim(
    p_worker bigint,
    p_kind text,
    p_tier integer,
    p_now timestamptz,
    p_give_back_held boolean,
    p_access_checked boolean,
    p_campaign bigint,
    p_posting_hit_id text,
    p_external_assignment_id text,
    p_external_hit_id text,
    p_attempts integer
) RETURNS SETOF crowd_assignment
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
    hit_type crowd_hittype%ROWTYPE;
    candidate bigint;
    passed_over bigint[] := '{}';
    claimed crowd_assignment%ROWTYPE;
    taken bigint;
    gold_due boolean := false;
    want_gold boolean;
BEGIN
    -- Nothing to hand out under a type that asks for a qualification nobody checked; the
    -- caller finds out why (with the same checks as ever) and asks again.
    SELECT * INTO hit_type FROM crowd_hittype WHERE kind = p_kind;
    IF NOT FOUND OR (hit_type.qualification_required AND NOT p_access_checked) THEN
        RETURN;
    END IF;
    -- Serialise one worker's own claims; different workers never wait on each other here.
    -- A blocked worker gets nothing (the caller says why).
    PERFORM 1 FROM crowd_worker WHERE id = p_worker AND blocked_at IS NULL FOR NO KEY UPDATE;
    IF NOT FOUND THEN
        RETURN;
    END IF;
    IF p_give_back_held THEN
        RETURN QUERY
            SELECT a.* FROM crowd_assignment a JOIN crowd_hit h ON h.id = a.hit_id
            WHERE a.worker_id = p_worker AND h.hit_type_id = hit_type.id AND h.tier = p_tier
              AND a.status = 'assigned' AND a.expires_at > p_now
            ORDER BY a.id
            LIMIT 1;
        IF FOUND THEN
            RETURN;
        END IF;
    END IF;
    -- Is this claim the worker's turn for a gold item? Their n-th task of the type is gold
    -- when n × rate crosses a whole number, shifted per worker (by the golden ratio's
    -- fraction) so that workers meet their gold items at different task numbers.
    IF hit_type.gold_percent > 0 AND p_attempts > 0 THEN
        SELECT count(*) INTO taken FROM crowd_assignment a JOIN crowd_hit h ON h.id = a.hit_id
        WHERE a.worker_id = p_worker AND h.hit_type_id = hit_type.id;
        gold_due := floor((taken + 1) * hit_type.gold_percent / 100.0
                          + mod(p_worker * 0.6180339887498949, 1))
                  > floor(taken * hit_type.gold_percent / 100.0
                          + mod(p_worker * 0.6180339887498949, 1));
    END IF;
    -- A gold item when one is due and left for the worker, else (or then) ordinary work.
    FOR want_gold IN SELECT unnest(CASE WHEN gold_due THEN ARRAY[true, false]
                                        ELSE ARRAY[false] END) LOOP
    passed_over := '{}';
    FOR attempt IN 1..p_attempts LOOP
        -- The HIT with the fewest submissions that the worker has not had and that has room
        -- (submissions and live assignments under target); SKIP LOCKED spreads concurrent
        -- claims over different HITs instead of queueing them on one.
        SELECT h.id INTO candidate FROM crowd_hit h
        WHERE h.hit_type_id = hit_type.id AND h.tier = p_tier
          AND h.id <> ALL (passed_over)
          AND EXISTS (
                SELECT 1 FROM crowd_golditem g
                WHERE g.item_id = h.item_id AND g.retired_at IS NULL) = want_gold
          -- A campaign's session may be handed gold items the campaign never published
          -- (they are not its work to count); a platform HIT stands for one HIT only.
          AND (p_campaign IS NULL OR (want_gold AND p_posting_hit_id IS NULL) OR h.id IN (
                SELECT p.hit_id FROM crowd_campaignhit p
                WHERE p.campaign_id = p_campaign
                  AND (p_posting_hit_id IS NULL OR p.external_hit_id = p_posting_hit_id)))
          AND h.submitted_count < h.max_assignments - (
                SELECT count(*) FROM crowd_assignment a
                WHERE a.hit_id = h.id AND a.status = 'assigned' AND a.expires_at > p_now)
          -- Changed from 0009: a HIT the worker held and let expire is offered again.
          AND NOT EXISTS (
                SELECT 1 FROM crowd_assignment a WHERE a.hit_id = h.id AND a.worker_id = p_worker
                  AND NOT crowd_assignment_reopenable(a, p_now))
          -- A sentence is paraphrased once per worker, whatever the tier: a second version by
          -- the same person is not an independent paraphrase.
          AND (p_kind <> 'paraphrase' OR NOT EXISTS (
                SELECT 1 FROM crowd_assignment a JOIN crowd_hit o ON o.id = a.hit_id
                WHERE o.item_id = h.item_id AND o.hit_type_id = h.hit_type_id
                  AND a.worker_id = p_worker
                  -- Changed from 0009: except this very HIT, when it is theirs to reopen.
                  AND NOT (a.hit_id = h.id AND crowd_assignment_reopenable(a, p_now))))
        ORDER BY h.submitted_count, h.id
        LIMIT 1
        FOR UPDATE OF h SKIP LOCKED;
        IF candidate IS NULL THEN
            EXIT;
        END IF;
        -- The candidate query's view predates the lock; count again now that we hold it.
        -- Changed from 0009: the worker's own expired assignment to the HIT is reopened (one
        -- row per worker and HIT); the update waits for, and re-reads, a late submission of it.
        UPDATE crowd_assignment a
        SET status = 'assigned', accepted_at = p_now,
            expires_at = p_now + hit_type.assignment_duration
        FROM crowd_hit h
        WHERE a.hit_id = candidate AND a.worker_id = p_worker AND h.id = candidate
          AND crowd_assignment_reopenable(a, p_now)
          AND h.submitted_count < h.max_assignments - (
                SELECT count(*) FROM crowd_assignment b
                WHERE b.hit_id = h.id AND b.status = 'assigned' AND b.expires_at > p_now)
        RETURNING a.* INTO claimed;
        IF FOUND THEN
            RETURN NEXT claimed;
            RETURN;
        END IF;
        INSERT INTO crowd_assignment (
            hit_id, worker_id, status, accepted_at, expires_at, submitted_at,
            external_assignment_id, external_hit_id, campaign_id, verified_at
        )
        SELECT h.id, p_worker, 'assigned', p_now, p_now + hit_type.assignment_duration, NULL,
               p_external_assignment_id, p_external_hit_id, p_campaign, NULL
        FROM crowd_hit h
        WHERE h.id = candidate
          AND h.submitted_count < h.max_assignments - (
                SELECT count(*) FROM crowd_assignment a
                WHERE a.hit_id = h.id AND a.status = 'assigned' AND a.expires_at > p_now)
          AND NOT EXISTS (
                SELECT 1 FROM crowd_assignment a WHERE a.hit_id = h.id AND a.worker_id = p_worker)
        RETURNING * INTO claimed;
        IF FOUND THEN
            RETURN NEXT claimed;
            RETURN;
        END IF;
        passed_over := passed_over || candidate;
    END LOOP;
    END LOOP;
END
$$;
"""

# Going back: 0009's function, then the helper it no longer uses.
PREVIOUS = importlib.import_module("crowd.migrations.0009_gold_claim_function").CLAIM
DROP_REOPENABLE = "DROP FUNCTION crowd_assignment_reopenable(crowd_assignment, timestamptz)"


class Migration(migrations.Migration):
    dependencies = [
        ("crowd", "0010_hit_type_paste_allowed"),
    ]

    operations = [
        migrations.RunSQL(REOPENABLE, DROP_REOPENABLE),
        migrations.RunSQL(CLAIM, PREVIOUS),
    ]
