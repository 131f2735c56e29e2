-- What `tunelab probe` measured before each run (issue 29): one row per run, never part of the
-- hardware fingerprint; and the storage tier that names a profile's disk in its class, set by the
-- first run that measured the machine.

-- AlterTable
ALTER TABLE "hardware_profiles" ADD COLUMN "storage_tier" TEXT;

-- CreateTable
CREATE TABLE "hardware_measurements" (
    "run_id" UUID NOT NULL,
    "hardware_profile_id" UUID NOT NULL,
    "measured_at" TIMESTAMPTZ(3) NOT NULL,
    "duration_ms" DOUBLE PRECISION NOT NULL,
    "disk_tool" TEXT NOT NULL,
    "fsync_p50_us" DOUBLE PRECISION,
    "fsync_p99_us" DOUBLE PRECISION,
    "fsync_samples" INTEGER NOT NULL,
    "read_iops_qd1" DOUBLE PRECISION,
    "read_iops_qd16" DOUBLE PRECISION,
    "seq_write_mbps" DOUBLE PRECISION,
    "cpu_score" DOUBLE PRECISION,
    "cpu_workload" TEXT NOT NULL,
    "load_average_1m" DOUBLE PRECISION,
    "logical_cpus" INTEGER,
    "storage_tier" TEXT,

    CONSTRAINT "hardware_measurements_pkey" PRIMARY KEY ("run_id")
);

-- CreateIndex
CREATE INDEX "hardware_measurements_hardware_profile_id_measured_at_idx" ON "hardware_measurements"("hardware_profile_id", "measured_at");

-- AddForeignKey
ALTER TABLE "hardware_measurements" ADD CONSTRAINT "hardware_measurements_run_id_fkey" FOREIGN KEY ("run_id") REFERENCES "runs"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "hardware_measurements" ADD CONSTRAINT "hardware_measurements_hardware_profile_id_fkey" FOREIGN KEY ("hardware_profile_id") REFERENCES "hardware_profiles"("id") ON DELETE RESTRICT ON UPDATE CASCADE;
