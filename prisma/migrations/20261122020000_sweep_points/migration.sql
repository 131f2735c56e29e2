-- Sweep points: a scenario may run every variant at several values of one parameter (virtual
-- users, table count) in one run; each sample and time-series point carries the point it was
-- measured at. NULL = the scenario declares no sweep. A sample is unique per
-- (run, variant, repetition, metric, point); NULLS NOT DISTINCT keeps point-less samples unique too.
ALTER TABLE "samples" ADD COLUMN "point_param" TEXT, ADD COLUMN "point_value" DOUBLE PRECISION;
ALTER TABLE "time_series_points" ADD COLUMN "point_param" TEXT, ADD COLUMN "point_value" DOUBLE PRECISION;
DROP INDEX "samples_run_id_variant_repetition_metric_key";
CREATE UNIQUE INDEX "samples_run_id_variant_repetition_metric_point_param_point_value_key" ON "samples"("run_id", "variant", "repetition", "metric", "point_param", "point_value") NULLS NOT DISTINCT;
