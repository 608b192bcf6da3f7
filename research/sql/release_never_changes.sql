-- A release that is done never changes (research.releases): the database refuses to update or
-- delete its row, and to add to, change or remove the record of the descriptions it holds,
-- whoever asks (the admin, a shell, a bug). One column is let through: ``public``, who may
-- download the files, which the operator may change at any time; what the release is, never.
-- TRUNCATE, which tests use to empty tables, fires no row trigger.
--
-- The one copy of this function and its triggers: a migration that changes them edits this
-- file and runs it again (CREATE OR REPLACE), as research/migrations/0010 and 0011 do.

CREATE OR REPLACE FUNCTION research_release_never_changes() RETURNS trigger AS $$
DECLARE
    touched bigint[] := '{}';
    release record;
BEGIN
    IF TG_TABLE_NAME = 'research_release' THEN
        IF OLD.state = 'done' AND (
            TG_OP = 'DELETE' OR to_jsonb(NEW) - 'public' IS DISTINCT FROM to_jsonb(OLD) - 'public'
        ) THEN
            RAISE EXCEPTION 'release % is made and never changes', OLD.number
                USING ERRCODE = 'restrict_violation';
        END IF;
    ELSE
        IF TG_OP <> 'INSERT' THEN
            touched := touched || OLD.release_id;
        END IF;
        IF TG_OP <> 'DELETE' THEN
            touched := touched || NEW.release_id;
        END IF;
        -- Locked as the foreign key's check locks them, so read as they are now: a row added
        -- while its release is being finished waits for the finish, and is then refused. (No
        -- condition on the state in this query: it would be tested before the wait.)
        FOR release IN
            SELECT number, state FROM research_release WHERE id = ANY (touched) FOR KEY SHARE
        LOOP
            IF release.state = 'done' THEN
                RAISE EXCEPTION 'what release % holds is recorded and never changes', release.number
                    USING ERRCODE = 'restrict_violation';
            END IF;
        END LOOP;
    END IF;
    IF TG_OP = 'DELETE' THEN
        RETURN OLD;
    END IF;
    RETURN NEW;
END;
$$ LANGUAGE plpgsql;

CREATE OR REPLACE TRIGGER research_release_never_changes
    BEFORE UPDATE OR DELETE ON research_release
    FOR EACH ROW EXECUTE FUNCTION research_release_never_changes();
CREATE OR REPLACE TRIGGER research_releasedescription_never_changes
    BEFORE INSERT OR UPDATE OR DELETE ON research_releasedescription
    FOR EACH ROW EXECUTE FUNCTION research_release_never_changes();
