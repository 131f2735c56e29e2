import { z } from 'zod';
import { boundedString, finiteNumber, count } from './primitives.ts';
import { MeasuredHardware, STORAGE_TIER_LABELS, storageTierOf } from './measured-hardware.ts';

export const StorageKind = z.enum(['ssd', 'hdd', 'nvme', 'unknown']);
export type StorageKind = z.infer<typeof StorageKind>;

const limit = z
  .number()
  .positive()
  .max(2 ** 53 - 1);

/**
 * A resource envelope the server ran in (`tunelab run --envelope`): a cgroup's memory
 * limit (page cache charged to it) and block-I/O limits on the data directory's disk. It is a
 * condition of the run, declared, so it is part of the fingerprint and the class: an emulated run
 * is never pooled with the machine's unconstrained runs.
 */
export const HardwareEnvelope = z.strictObject({
  memoryBytes: limit.int().optional(),
  readIops: limit.optional(),
  writeIops: limit.optional(),
  /** bytes per second */
  readBps: limit.optional(),
  writeBps: limit.optional(),
  mechanism: z.enum(['cgroup-v1', 'cgroup-v2']),
  /** In words, with what the mechanism does not limit (cgroup v1 and buffered writes). */
  description: boundedString(500),
});
export type HardwareEnvelope = z.infer<typeof HardwareEnvelope>;

/**
 * What the runner reports about the machine hosting the database under test.
 * Only the stable fields feed the fingerprint (see `stableHardwareFields`):
 * clock speed, bogomips and the like change from boot to boot and would split
 * one machine into many profiles.
 */
export const HardwareSpec = z.strictObject({
  cpuModel: boundedString(200),
  physicalCores: count.min(1).max(4096),
  logicalCpus: count.min(1).max(8192),
  memoryBytes: z
    .number()
    .int()
    .positive()
    .max(2 ** 53 - 1),
  storage: z.strictObject({
    kind: StorageKind,
    model: boundedString(200).nullable().default(null),
    /** True when the user stated the kind (`--storage`): it then wins over the measured tier. */
    declared: z.boolean().optional(),
  }),
  filesystem: boundedString(64).nullable().default(null),
  os: boundedString(200),
  kernel: boundedString(200),
  virtualization: boundedString(64).nullable().default(null),
  /** Volatile readings kept for display only; never part of the fingerprint. */
  cpuSpeedGhz: finiteNumber.min(0).max(100).optional(),
  /** The probe's figures (fsync, random reads, sequential writes, CPU score); never part of the fingerprint. */
  measured: MeasuredHardware.optional(),
  /** The resource envelope the server ran in; absent for an unconstrained run. */
  envelope: HardwareEnvelope.optional(),
});
export type HardwareSpec = z.infer<typeof HardwareSpec>;

const GIB = 1024 ** 3;

/** Fields that identify a machine; order matters for the canonical form. */
export function stableHardwareFields(spec: HardwareSpec) {
  return {
    cpuModel: spec.cpuModel.trim().replace(/\s+/g, ' '),
    physicalCores: spec.physicalCores,
    logicalCpus: spec.logicalCpus,
    // Memory is rounded to whole GiB: the kernel reserves a slightly different amount per boot.
    memoryGib: Math.round(spec.memoryBytes / GIB),
    storageKind: spec.storage.kind,
    storageModel: spec.storage.model?.trim() ?? null,
    filesystem: spec.filesystem,
    os: spec.os,
    virtualization: spec.virtualization,
    // Only when present, so every unconstrained machine keeps the fingerprint it always had.
    ...(spec.envelope ? { envelope: envelopeLimits(spec.envelope) } : {}),
  };
}

/** The limits of an envelope, without its words (the mechanism's description may change). */
function envelopeLimits(e: HardwareEnvelope) {
  return {
    memoryBytes: e.memoryBytes ?? null,
    readIops: e.readIops ?? null,
    writeIops: e.writeIops ?? null,
    readBps: e.readBps ?? null,
    writeBps: e.writeBps ?? null,
  };
}

/** The memory a run's server could use: the envelope's limit when it had one, else the machine's. */
export const effectiveMemoryBytes = (spec: Pick<HardwareSpec, 'memoryBytes' | 'envelope'>): number =>
  Math.min(spec.memoryBytes, spec.envelope?.memoryBytes ?? Infinity);

type StorageOf = Pick<HardwareSpec, 'storage'> & { measured?: HardwareSpec['measured'] };

/**
 * The disk as a class names it: the kind the user declared (`--storage`), else the tier the probe
 * measured ("SSD-like"), else the kind the kernel's flags gave ("SSD", or "unknown disk").
 */
export function storageLabelOf(spec: StorageOf): string {
  const tier = spec.measured && !spec.storage.declared ? storageTierOf(spec.measured) : null;
  if (tier) return STORAGE_TIER_LABELS[tier];
  return spec.storage.kind === 'unknown' ? 'unknown disk' : spec.storage.kind.toUpperCase();
}

/**
 * The coarse class engineers think in: "8 cores / 32 GB / SSD" ("… / SSD-like" when measured).
 * Memory is rounded to the nearest power-of-two-ish bucket a person would name.
 */
export function hardwareClassOf(
  spec: Pick<HardwareSpec, 'physicalCores' | 'memoryBytes'> & StorageOf & { envelope?: HardwareSpec['envelope'] },
): string {
  const gb = Math.round(spec.memoryBytes / GIB);
  if (!spec.envelope) return `${spec.physicalCores} cores / ${gb} GB / ${storageLabelOf(spec)}`;
  // Emulated: the memory the server had and the tier probed inside the envelope, said as such.
  const limit = spec.envelope.memoryBytes;
  const memory = limit !== undefined && limit < spec.memoryBytes ? `${formatLimit(limit)} of ${gb} GB` : `${gb} GB`;
  return `${spec.physicalCores} cores / ${memory} / ${storageLabelOf(spec)}, emulated`;
}

/** "2 GB", "1.5 GB", "512 MB" (binary units, as postgresql.conf and --envelope read them). */
function formatLimit(bytes: number): string {
  if (bytes >= GIB) return `${Number((bytes / GIB).toFixed(1))} GB`;
  return `${Math.round(bytes / 1024 ** 2)} MB`;
}

/** Whether a class names an emulated run (an envelope): every answer drawn from it says so. */
export const isEmulatedClass = (hardwareClass: string): boolean => hardwareClass.endsWith(', emulated');

export const HardwareClass = z.string().max(100);
export type HardwareClass = z.infer<typeof HardwareClass>;
