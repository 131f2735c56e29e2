-- A runner's name is the operator's (it may name an internal host); public responses show the
-- runner only by the label the operator chose to publish (`npm run admin -- set-public-label`).
-- NULL = the runner stays anonymous in public responses.
ALTER TABLE "runners" ADD COLUMN "public_label" TEXT;
