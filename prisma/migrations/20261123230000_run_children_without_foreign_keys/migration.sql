-- Samples and time-series points without foreign keys to runs (issue 21): the per-row checks of
-- `samples_run_id_fkey` and `time_series_points_run_id_fkey` were a third of PostgreSQL's time per
-- ingested run (360 key-share lookups of the same run row; apps/api/bench/README.md). Integrity is
-- kept by statement-level triggers instead, once per statement rather than once per row:
--   * insert: every run_id a statement writes must name a run (the ingest statement writes the
--     run and its rows together; the check sees the run row the same statement inserted);
--   * delete: deleting runs deletes their samples and points (what ON DELETE CASCADE did),
--     TRUNCATE runs truncates them too;
--   * a run's id never changes (no ON UPDATE path is needed).
ALTER TABLE "samples" DROP CONSTRAINT "samples_run_id_fkey";
ALTER TABLE "time_series_points" DROP CONSTRAINT "time_series_points_run_id_fkey";

CREATE FUNCTION "run_children_check_insert"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    rid uuid;
BEGIN
    -- One index lookup per distinct run (one per ingest statement), not a join the planner could
    -- turn into a scan of runs.
    FOR rid IN SELECT DISTINCT run_id FROM new_rows LOOP
        PERFORM FROM "runs" WHERE "id" = rid;
        IF NOT FOUND THEN
            RAISE EXCEPTION 'insert or update on table "%" violates run integrity: run % does not exist', TG_TABLE_NAME, rid
                USING ERRCODE = 'foreign_key_violation', TABLE = TG_TABLE_NAME;
        END IF;
    END LOOP;
    RETURN NULL;
END
$$;

CREATE TRIGGER "samples_run_exists" AFTER INSERT ON "samples"
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "run_children_check_insert"();
CREATE TRIGGER "time_series_points_run_exists" AFTER INSERT ON "time_series_points"
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "run_children_check_insert"();

-- An UPDATE of run_id is checked like an insert.
CREATE TRIGGER "samples_run_exists_on_update" AFTER UPDATE ON "samples"
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "run_children_check_insert"();
CREATE TRIGGER "time_series_points_run_exists_on_update" AFTER UPDATE ON "time_series_points"
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "run_children_check_insert"();

CREATE FUNCTION "runs_delete_children"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    DELETE FROM "samples" WHERE "run_id" IN (SELECT "id" FROM old_rows);
    DELETE FROM "time_series_points" WHERE "run_id" IN (SELECT "id" FROM old_rows);
    RETURN NULL;
END
$$;

CREATE TRIGGER "runs_delete_children" AFTER DELETE ON "runs"
    REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION "runs_delete_children"();

CREATE FUNCTION "runs_truncate_children"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    TRUNCATE "samples", "time_series_points";
    RETURN NULL;
END
$$;

CREATE TRIGGER "runs_truncate_children" AFTER TRUNCATE ON "runs"
    FOR EACH STATEMENT EXECUTE FUNCTION "runs_truncate_children"();

CREATE FUNCTION "runs_keep_id"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'the id of run % cannot change (its samples and points refer to it)', OLD."id"
        USING ERRCODE = 'foreign_key_violation';
END
$$;

CREATE TRIGGER "runs_keep_id" BEFORE UPDATE OF "id" ON "runs"
    FOR EACH ROW WHEN (OLD."id" IS DISTINCT FROM NEW."id") EXECUTE FUNCTION "runs_keep_id"();
