-- Kept answers: GET /v1/answers of a scenario's plain queries (scenario, metric, source) as last
-- computed, with the data version they were computed from, so a read never waits for a computation
-- over every run of the scenario.
--
-- `answer_data_versions` counts, per scenario, the changes to its runs: every INSERT, UPDATE and
-- DELETE of `runs` (whoever makes it: the API's ingest, an import, another API process) bumps the
-- scenario's counter in the same transaction, and so does a machine moving to another hardware
-- class (a retier), for every scenario with runs on it. A kept answer is current exactly when its
-- `data_version` equals the counter (and its `scenario_version`, the scenario folder's hash, the
-- catalog's).
CREATE TABLE "answer_data_versions" (
    "scenario_key" TEXT NOT NULL,
    "version" BIGINT NOT NULL DEFAULT 1,

    CONSTRAINT "answer_data_versions_pkey" PRIMARY KEY ("scenario_key")
);

CREATE TABLE "kept_answers" (
    "scenario_key" TEXT NOT NULL,
    "query_key" TEXT NOT NULL,
    "scenario_version" TEXT NOT NULL,
    "data_version" BIGINT NOT NULL,
    "body" TEXT NOT NULL,
    "computed_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "compute_ms" INTEGER NOT NULL,
    "failed_at" TIMESTAMPTZ(3),
    "failure" TEXT,

    CONSTRAINT "kept_answers_pkey" PRIMARY KEY ("scenario_key", "query_key")
);

-- Rows in key order, so two transactions bumping the same scenarios lock them in the same order.
CREATE FUNCTION "bump_answer_data_versions"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "answer_data_versions" AS v ("scenario_key", "version")
  SELECT DISTINCT s."key", 1
    FROM "changed_runs" r
    JOIN "scenario_versions" sv ON sv."id" = r."scenario_version_id"
    JOIN "scenarios" s ON s."id" = sv."scenario_id"
   ORDER BY 1
  ON CONFLICT ("scenario_key") DO UPDATE SET "version" = v."version" + 1;
  RETURN NULL;
END $$;

CREATE TRIGGER "runs_bump_answer_data_versions_insert" AFTER INSERT ON "runs"
  REFERENCING NEW TABLE AS "changed_runs" FOR EACH STATEMENT EXECUTE FUNCTION "bump_answer_data_versions"();
CREATE TRIGGER "runs_bump_answer_data_versions_update" AFTER UPDATE ON "runs"
  REFERENCING NEW TABLE AS "changed_runs" FOR EACH STATEMENT EXECUTE FUNCTION "bump_answer_data_versions"();
CREATE TRIGGER "runs_bump_answer_data_versions_delete" AFTER DELETE ON "runs"
  REFERENCING OLD TABLE AS "changed_runs" FOR EACH STATEMENT EXECUTE FUNCTION "bump_answer_data_versions"();

CREATE FUNCTION "bump_answer_data_versions_of_machine"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "answer_data_versions" AS v ("scenario_key", "version")
  SELECT DISTINCT s."key", 1
    FROM "runs" r
    JOIN "scenario_versions" sv ON sv."id" = r."scenario_version_id"
    JOIN "scenarios" s ON s."id" = sv."scenario_id"
   WHERE r."hardware_profile_id" = NEW."id"
   ORDER BY 1
  ON CONFLICT ("scenario_key") DO UPDATE SET "version" = v."version" + 1;
  RETURN NULL;
END $$;

CREATE TRIGGER "hardware_profiles_bump_answer_data_versions" AFTER UPDATE ON "hardware_profiles"
  FOR EACH ROW WHEN (OLD."hardware_class" IS DISTINCT FROM NEW."hardware_class"
                     OR OLD."storage_tier" IS DISTINCT FROM NEW."storage_tier")
  EXECUTE FUNCTION "bump_answer_data_versions_of_machine"();
