-- The comparison pairs a scenario version declares ([{"baseline","candidate"}, …]), e.g. from a
-- published article's table. NULL = none declared: comparisons then pair every two variants.
ALTER TABLE "scenario_versions" ADD COLUMN "comparisons" JSONB;
