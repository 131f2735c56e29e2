-- Paired blocks (issue 40): a run's repetition is a block that runs every variant once, in a
-- random order; `position` is the sample's place in its block (1 = ran first). NULL for runs from
-- before blocks, whose repetitions ran in a fixed order: their answers stay independent samples
-- (Welch), while runs whose samples carry a position are answered from within-block log ratios.
ALTER TABLE "samples" ADD COLUMN "position" INTEGER;
