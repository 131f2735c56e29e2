-- CreateTable
CREATE TABLE "hardware_profiles" (
    "id" UUID NOT NULL,
    "fingerprint" CHAR(64) NOT NULL,
    "hardware_class" TEXT NOT NULL,
    "cpu_model" TEXT NOT NULL,
    "physical_cores" INTEGER NOT NULL,
    "logical_cpus" INTEGER NOT NULL,
    "memory_bytes" BIGINT NOT NULL,
    "storage_kind" TEXT NOT NULL,
    "storage_model" TEXT,
    "filesystem" TEXT,
    "os" TEXT NOT NULL,
    "kernel" TEXT NOT NULL,
    "virtualization" TEXT,
    "spec" JSONB NOT NULL,
    "source" TEXT NOT NULL DEFAULT 'measured',
    "first_seen_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "last_seen_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "hardware_profiles_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "runners" (
    "id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "token_hash" CHAR(64) NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "last_seen_at" TIMESTAMPTZ(3),
    "revoked_at" TIMESTAMPTZ(3),

    CONSTRAINT "runners_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "scenarios" (
    "id" UUID NOT NULL,
    "key" TEXT NOT NULL,
    "title" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "scenarios_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "scenario_versions" (
    "id" UUID NOT NULL,
    "scenario_id" UUID NOT NULL,
    "version_hash" CHAR(64) NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "scenario_versions_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "database_environments" (
    "id" UUID NOT NULL,
    "engine" TEXT NOT NULL,
    "version" TEXT NOT NULL,
    "major" INTEGER NOT NULL,
    "minor" INTEGER NOT NULL,
    "settings_hash" CHAR(64) NOT NULL,
    "settings" JSONB NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "database_environments_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "runs" (
    "id" UUID NOT NULL,
    "idempotency_key" TEXT NOT NULL,
    "request_hash" CHAR(64) NOT NULL,
    "source" TEXT NOT NULL DEFAULT 'measured',
    "status" TEXT NOT NULL DEFAULT 'stored',
    "runner_id" UUID,
    "scenario_version_id" UUID NOT NULL,
    "hardware_profile_id" UUID NOT NULL,
    "database_environment_id" UUID NOT NULL,
    "params" JSONB NOT NULL,
    "runner_version" TEXT NOT NULL,
    "started_at" TIMESTAMPTZ(3) NOT NULL,
    "finished_at" TIMESTAMPTZ(3) NOT NULL,
    "received_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "sample_count" INTEGER NOT NULL,
    "time_series_count" INTEGER NOT NULL,
    "document" JSON NOT NULL,

    CONSTRAINT "runs_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "samples" (
    "id" BIGSERIAL NOT NULL,
    "run_id" UUID NOT NULL,
    "scenario_version_id" UUID NOT NULL,
    "hardware_profile_id" UUID NOT NULL,
    "variant" TEXT NOT NULL,
    "repetition" INTEGER NOT NULL,
    "metric" TEXT NOT NULL,
    "unit" TEXT NOT NULL,
    "value" DOUBLE PRECISION NOT NULL,

    CONSTRAINT "samples_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "time_series_points" (
    "id" BIGSERIAL NOT NULL,
    "run_id" UUID NOT NULL,
    "variant" TEXT NOT NULL,
    "repetition" INTEGER NOT NULL,
    "metric" TEXT NOT NULL,
    "x" DOUBLE PRECISION NOT NULL,
    "value" DOUBLE PRECISION NOT NULL,

    CONSTRAINT "time_series_points_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "hardware_profiles_fingerprint_key" ON "hardware_profiles"("fingerprint");

-- CreateIndex
CREATE INDEX "hardware_profiles_hardware_class_idx" ON "hardware_profiles"("hardware_class");

-- CreateIndex
CREATE INDEX "hardware_profiles_storage_kind_physical_cores_memory_bytes_idx" ON "hardware_profiles"("storage_kind", "physical_cores", "memory_bytes");

-- CreateIndex
CREATE UNIQUE INDEX "runners_name_key" ON "runners"("name");

-- CreateIndex
CREATE UNIQUE INDEX "runners_token_hash_key" ON "runners"("token_hash");

-- CreateIndex
CREATE UNIQUE INDEX "scenarios_key_key" ON "scenarios"("key");

-- CreateIndex
CREATE UNIQUE INDEX "scenario_versions_scenario_id_version_hash_key" ON "scenario_versions"("scenario_id", "version_hash");

-- CreateIndex
CREATE INDEX "database_environments_engine_major_idx" ON "database_environments"("engine", "major");

-- CreateIndex
CREATE UNIQUE INDEX "database_environments_engine_version_settings_hash_key" ON "database_environments"("engine", "version", "settings_hash");

-- CreateIndex
CREATE UNIQUE INDEX "runs_idempotency_key_key" ON "runs"("idempotency_key");

-- CreateIndex
CREATE INDEX "runs_scenario_version_id_hardware_profile_id_idx" ON "runs"("scenario_version_id", "hardware_profile_id");

-- CreateIndex
CREATE INDEX "runs_hardware_profile_id_idx" ON "runs"("hardware_profile_id");

-- CreateIndex
CREATE INDEX "runs_received_at_id_idx" ON "runs"("received_at", "id");

-- CreateIndex
CREATE UNIQUE INDEX "samples_run_id_variant_repetition_metric_key" ON "samples"("run_id", "variant", "repetition", "metric");

-- CreateIndex
CREATE INDEX "samples_scenario_version_id_metric_hardware_profile_id_vari_idx" ON "samples"("scenario_version_id", "metric", "hardware_profile_id", "variant");

-- CreateIndex
CREATE INDEX "time_series_points_run_id_metric_variant_repetition_idx" ON "time_series_points"("run_id", "metric", "variant", "repetition");

-- AddForeignKey
ALTER TABLE "scenario_versions" ADD CONSTRAINT "scenario_versions_scenario_id_fkey" FOREIGN KEY ("scenario_id") REFERENCES "scenarios"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "runs" ADD CONSTRAINT "runs_runner_id_fkey" FOREIGN KEY ("runner_id") REFERENCES "runners"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "runs" ADD CONSTRAINT "runs_scenario_version_id_fkey" FOREIGN KEY ("scenario_version_id") REFERENCES "scenario_versions"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "runs" ADD CONSTRAINT "runs_hardware_profile_id_fkey" FOREIGN KEY ("hardware_profile_id") REFERENCES "hardware_profiles"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "runs" ADD CONSTRAINT "runs_database_environment_id_fkey" FOREIGN KEY ("database_environment_id") REFERENCES "database_environments"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "samples" ADD CONSTRAINT "samples_run_id_fkey" FOREIGN KEY ("run_id") REFERENCES "runs"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "time_series_points" ADD CONSTRAINT "time_series_points_run_id_fkey" FOREIGN KEY ("run_id") REFERENCES "runs"("id") ON DELETE CASCADE ON UPDATE CASCADE;
