-- The fleet: operator tokens (a kind of runner row) and the jobs operators request. The queue
-- itself (states, leases, retries) is pg-boss's, in its own schema "tunelab_fleet", installed by
-- pg-boss when the API starts; this table keeps the request and the one run that answered it.
ALTER TABLE "runners" ADD COLUMN "kind" TEXT NOT NULL DEFAULT 'runner';

CREATE TABLE "fleet_jobs" (
    "id" UUID NOT NULL,
    "queue" TEXT NOT NULL,
    "scenario_key" TEXT NOT NULL,
    "params" JSONB NOT NULL,
    "repetitions" INTEGER,
    "engine" TEXT NOT NULL,
    "server_major" INTEGER,
    "for_kind" TEXT NOT NULL,
    "for_value" TEXT,
    "priority" INTEGER NOT NULL DEFAULT 0,
    "requested_by" UUID,
    "claimed_by" TEXT,
    "run_key" TEXT,
    "run_id" UUID,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "fleet_jobs_pkey" PRIMARY KEY ("id")
);

CREATE UNIQUE INDEX "fleet_jobs_run_id_key" ON "fleet_jobs"("run_id");
CREATE INDEX "fleet_jobs_scenario_key_idx" ON "fleet_jobs"("scenario_key");
CREATE INDEX "fleet_jobs_queue_idx" ON "fleet_jobs"("queue");
