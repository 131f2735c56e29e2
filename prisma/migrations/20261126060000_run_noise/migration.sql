-- How noisy the machine was while a run measured (issue 28; the shape is contracts' RunNoise):
-- CPU steal, load and timer lateness over the measured window, the spread of a CPU and an fsync
-- probe before and after it. NULL for runs from before it was measured and for an article's
-- figures. Whether a run is noisy is not stored: contracts' judgeNoise decides it from these
-- figures when they are read, so a changed threshold applies to every run at once.
ALTER TABLE "runs" ADD COLUMN "noise" JSONB;

-- Runs already stored that sent it (none before this migration's runner, but the document is the record).
UPDATE "runs" SET "noise" = ("document" -> 'noise')::jsonb WHERE "document" -> 'noise' IS NOT NULL;
