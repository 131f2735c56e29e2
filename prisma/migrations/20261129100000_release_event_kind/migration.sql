-- Release events gain a kind: `between-releases` (every event recorded so far: a change from one
-- release to the next, with its BH-adjusted p) or `over-time` (a change within one release: the
-- pair's per-run ratio moved from the run `run_id`, received at `received_at`, on, `runs_before`
-- runs into the release's series; `ratio_before` → `ratio_after`, Otava's t-test `p`; `nth`: the
-- release's first, second… change in that direction, part of its key instead of the start run).
-- The columns of the other kind are null, so the releases and the adjusted p become nullable; a
-- check keeps each kind's own columns filled.
ALTER TABLE "release_events"
    ADD COLUMN "kind" TEXT NOT NULL DEFAULT 'between-releases',
    ADD COLUMN "release" TEXT,
    ADD COLUMN "run_id" UUID,
    ADD COLUMN "received_at" TIMESTAMPTZ(3),
    ADD COLUMN "runs_before" INTEGER,
    ADD COLUMN "ratio_before" DOUBLE PRECISION,
    ADD COLUMN "ratio_after" DOUBLE PRECISION,
    ADD COLUMN "p" DOUBLE PRECISION,
    ADD COLUMN "nth" INTEGER,
    ALTER COLUMN "from_release" DROP NOT NULL,
    ALTER COLUMN "to_release" DROP NOT NULL,
    ALTER COLUMN "p_adjusted" DROP NOT NULL,
    ADD CONSTRAINT "release_events_kind_check" CHECK (
        ("kind" = 'between-releases' AND "from_release" IS NOT NULL AND "to_release" IS NOT NULL
            AND "p_adjusted" IS NOT NULL)
        OR ("kind" = 'over-time' AND "release" IS NOT NULL AND "run_id" IS NOT NULL
            AND "received_at" IS NOT NULL AND "runs_before" IS NOT NULL AND "ratio_before" IS NOT NULL
            AND "ratio_after" IS NOT NULL AND "p" IS NOT NULL AND "nth" IS NOT NULL)
    );
