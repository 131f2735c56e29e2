import type { RunSubmissionInput } from '@tunelab/contracts';
import { sha256Hex } from '@tunelab/results-db';
import { seededRandom } from '@tunelab/stats';

/**
 * Realistic submissions for the ingest benchmark: 4 variants × 5 repetitions × 8 metrics = 160
 * samples and a 200-point time series (4 variants × 5 repetitions × 10 readings of dead tuples),
 * spread over a handful of machines, two scenarios and two server versions, so the shared parent
 * rows (hardware profiles, scenario versions, environments) are both inserted and found.
 */

export const VARIANTS = ['index-cleanup-on', 'index-cleanup-off', 'drop-recreate', 'vacuum-full'] as const;
export const REPETITIONS = 5;
export const METRICS = [
  ['duration', 's'],
  ['wal_bytes', 'bytes'],
  ['table_size_after', 'bytes'],
  ['index_size_after', 'bytes'],
  ['cpu_user', 's'],
  ['cpu_system', 's'],
  ['read_bytes', 'bytes'],
  ['written_bytes', 'bytes'],
] as const;
export const TIME_SERIES_STEPS = 10;

const GIB = 1024 ** 3;

const MACHINES: RunSubmissionInput['hardware'][] = [
  {
    cpuModel: 'AMD EPYC 7B13',
    physicalCores: 2,
    logicalCpus: 2,
    memoryBytes: 24 * GIB,
    storage: { kind: 'ssd', model: 'QEMU HARDDISK' },
    filesystem: 'ext4',
    os: 'Debian GNU/Linux 12 (bookworm)',
    kernel: '6.1.0-26-amd64',
    virtualization: 'kvm',
    cpuSpeedGhz: 2.45,
  },
  {
    cpuModel: 'Intel(R) Xeon(R) Platinum 8375C CPU @ 2.90GHz',
    physicalCores: 8,
    logicalCpus: 16,
    memoryBytes: 64 * GIB - 123_456_789,
    storage: { kind: 'nvme', model: 'Amazon EC2 NVMe Instance Storage' },
    filesystem: 'xfs',
    os: 'Ubuntu 24.04.1 LTS',
    kernel: '6.8.0-1015-aws',
    virtualization: 'kvm',
    cpuSpeedGhz: 2.9,
  },
  {
    cpuModel: 'Apple M2 Pro',
    physicalCores: 12,
    logicalCpus: 12,
    memoryBytes: 32 * GIB,
    storage: { kind: 'nvme', model: 'APPLE SSD AP1024Z' },
    filesystem: 'apfs',
    os: 'macOS 15.1',
    kernel: 'Darwin 24.1.0',
    virtualization: null,
  },
  {
    cpuModel: 'AMD Ryzen 9 7950X 16-Core Processor',
    physicalCores: 16,
    logicalCpus: 32,
    memoryBytes: 128 * GIB,
    storage: { kind: 'nvme', model: 'Samsung SSD 990 PRO 2TB' },
    filesystem: 'ext4',
    os: 'Fedora Linux 41',
    kernel: '6.11.8-300.fc41.x86_64',
    virtualization: null,
    cpuSpeedGhz: 4.5,
  },
  {
    cpuModel: 'Intel(R) Core(TM) i5-6500 CPU @ 3.20GHz',
    physicalCores: 4,
    logicalCpus: 4,
    memoryBytes: 16 * GIB,
    storage: { kind: 'hdd', model: 'WDC WD40EFRX-68N32N0' },
    filesystem: 'ext4',
    os: 'Debian GNU/Linux 12 (bookworm)',
    kernel: '6.1.0-28-amd64',
    virtualization: null,
  },
];

const SCENARIOS = [
  { key: 'vacuum-index-cleanup', title: 'VACUUM INDEX_CLEANUP vs dropping and re-creating indexes' },
  { key: 'vacuum-full-variants', title: 'VACUUM FULL vs CLUSTER vs pg_repack-style copy' },
];

const SERVERS: RunSubmissionInput['database'][] = [
  {
    engine: 'postgresql',
    version: 'PostgreSQL 15.20 (Debian 15.20-0+deb12u1) on x86_64-pc-linux-gnu',
    major: 15,
    minor: 20,
    settings: { autovacuum: 'off', maintenance_work_mem: '1638MB', shared_buffers: '128MB' },
  },
  {
    engine: 'postgresql',
    version: 'PostgreSQL 17.2 on x86_64-pc-linux-gnu',
    major: 17,
    minor: 2,
    settings: { autovacuum: 'off', maintenance_work_mem: '4GB', shared_buffers: '8GB', max_wal_size: '16GB' },
  },
];

/** Deterministic, so every run posts the same bodies. */
const rng = seededRandom;

export type Workload = {
  /** The JSON body, serialized once up front so the clients measure the server, not JSON.stringify. */
  body: string;
  idempotencyKey: string;
  submission: RunSubmissionInput;
  /** Index into MACHINES, for the plain-insert baseline's foreign-key-shaped ids. */
  machine: number;
  scenario: number;
};

export function makeSubmission(i: number, prefix: string): Workload {
  const r = rng(i * 7919 + 17);
  const machine = i % MACHINES.length;
  const scenario = i % SCENARIOS.length;
  const server = Math.floor(i / MACHINES.length) % SERVERS.length;
  const rows = 100_000 * (1 + (i % 4));
  const started = Date.UTC(2026, 10, 1) + i * 60_000;

  const samples: RunSubmissionInput['samples'] = [];
  const timeSeries: NonNullable<RunSubmissionInput['timeSeries']> = [];
  const order: NonNullable<RunSubmissionInput['order']> = [];
  for (let rep = 1; rep <= REPETITIONS; rep++) {
    for (const [v, variant] of VARIANTS.entries()) {
      order.push({ variant, repetition: rep });
      const speed = 1 + v * 0.35 + (r() - 0.5) * 0.08;
      for (const [metric, unit] of METRICS) {
        const base = unit === 's' ? (rows / 50_000) * speed : rows * 524 * (1 + (r() - 0.5) * 0.01);
        samples.push({ variant, repetition: rep, metric, unit, value: Math.round(base * 1000) / 1000 });
      }
      for (let step = 0; step < TIME_SERIES_STEPS; step++) {
        const x = Math.round(step * 0.1 * speed * 1000) / 1000;
        timeSeries.push({
          variant,
          repetition: rep,
          metric: 'dead_tuples',
          x,
          value: Math.max(0, Math.round(rows * (1 - step / (TIME_SERIES_STEPS - 1)))),
        });
      }
    }
  }

  const submission: RunSubmissionInput = {
    scenario: { ...SCENARIOS[scenario]!, version: sha256Hex(`${SCENARIOS[scenario]!.key}@v1`) },
    params: { rows, fillfactor: 100 - (i % 3) * 10, indexes: 3 },
    hardware: MACHINES[machine]!,
    database: SERVERS[server]!,
    runnerVersion: '0.1.0',
    startedAt: new Date(started).toISOString(),
    finishedAt: new Date(started + 65_000).toISOString(),
    samples,
    timeSeries,
    notes: [{ kind: 'info', text: `bench submission ${i}` }],
    warnings: [],
    order,
  };
  return { body: JSON.stringify(submission), idempotencyKey: `${prefix}-${i}`, submission, machine, scenario };
}

export const SAMPLES_PER_SUBMISSION = VARIANTS.length * REPETITIONS * METRICS.length;
export const POINTS_PER_SUBMISSION = VARIANTS.length * REPETITIONS * TIME_SERIES_STEPS;
