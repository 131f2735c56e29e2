-- A fleet job may name one release of its server major (e.g. "17.4"): only an agent that can run
-- exactly that release takes it, and coverage shows scenario × release. NULL: any release of
-- server_major, as every job before this.
ALTER TABLE "fleet_jobs" ADD COLUMN "server_release" TEXT;
