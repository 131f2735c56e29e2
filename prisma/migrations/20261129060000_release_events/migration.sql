-- A change between adjacent PostgreSQL releases, recorded once: the first time a release series
-- reported it (GET /v1/release-events, a site build), keyed by what the change is of — scenario,
-- scenario version, hardware class, engine, parameters, sweep point, pair, metric and the two
-- releases. Its figures follow the newest computation; its state is `new`, `expected` (a step to a
-- new major) or `acknowledged` (an operator said so, with a note). `current` is false once the
-- series no longer reports it (more runs moved it inside the noise); the event stays.
CREATE TABLE "release_events" (
    "id" UUID NOT NULL,
    "key" CHAR(64) NOT NULL,
    "scenario_key" TEXT NOT NULL,
    "scenario_version" TEXT NOT NULL,
    "hardware_class" TEXT NOT NULL,
    "engine" TEXT NOT NULL,
    "params" JSONB NOT NULL,
    "point" JSONB,
    "metric" TEXT NOT NULL,
    "baseline" TEXT NOT NULL,
    "candidate" TEXT NOT NULL,
    "from_release" TEXT NOT NULL,
    "to_release" TEXT NOT NULL,
    "change" DOUBLE PRECISION NOT NULL,
    "ci_low" DOUBLE PRECISION,
    "ci_high" DOUBLE PRECISION,
    "p_adjusted" DOUBLE PRECISION NOT NULL,
    "sentence" TEXT NOT NULL,
    "state" TEXT NOT NULL,
    "current" BOOLEAN NOT NULL DEFAULT true,
    "first_seen_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "last_seen_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "acknowledged_at" TIMESTAMPTZ(3),
    "acknowledged_by" UUID,
    "note" TEXT,

    CONSTRAINT "release_events_pkey" PRIMARY KEY ("id")
);

CREATE UNIQUE INDEX "release_events_key_key" ON "release_events"("key");
CREATE INDEX "release_events_scenario_key_idx" ON "release_events"("scenario_key");
