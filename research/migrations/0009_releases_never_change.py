"""A release that is done never changes (research.releases): the database refuses to update or
delete its row, and to change or remove the record of the descriptions it holds, whoever asks
(the admin, a shell, a bug). TRUNCATE, which tests use to empty tables, fires no row trigger."""

from django.db import migrations

NEVER_CHANGE = """
CREATE FUNCTION research_release_never_changes() RETURNS trigger AS $$
BEGIN
    IF TG_TABLE_NAME = 'research_release' THEN
        IF OLD.state = 'done' THEN
            RAISE EXCEPTION 'release % is made and never changes', OLD.number
                USING ERRCODE = 'restrict_violation';
        END IF;
    ELSIF EXISTS (
        SELECT 1 FROM research_release WHERE id = OLD.release_id AND state = 'done'
    ) THEN
        RAISE EXCEPTION 'what release id % holds is recorded and never changes', OLD.release_id
            USING ERRCODE = 'restrict_violation';
    END IF;
    IF TG_OP = 'DELETE' THEN
        RETURN OLD;
    END IF;
    RETURN NEW;
END;
$$ LANGUAGE plpgsql;

CREATE TRIGGER research_release_never_changes
    BEFORE UPDATE OR DELETE ON research_release
    FOR EACH ROW EXECUTE FUNCTION research_release_never_changes();
CREATE TRIGGER research_releasedescription_never_changes
    BEFORE UPDATE OR DELETE ON research_releasedescription
    FOR EACH ROW EXECUTE FUNCTION research_release_never_changes();
"""
DROP = """
DROP TRIGGER research_releasedescription_never_changes ON research_releasedescription;
DROP TRIGGER research_release_never_changes ON research_release;
DROP FUNCTION research_release_never_changes();
"""


class Migration(migrations.Migration):
    dependencies = [("research", "0008_releases")]

    operations = [migrations.RunSQL(NEVER_CHANGE, DROP)]
