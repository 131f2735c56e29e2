import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  canonicalJson,
  effectiveMemoryBytes,
  hardwareClassOf,
  type HardwareEnvelope,
  HardwareSpec,
  isEmulatedClass,
  MeasuredHardware,
  RunSubmission,
  stableHardwareFields,
  storageTierOf,
  storageTierReason,
} from './index.ts';

const fixture = JSON.parse(
  readFileSync(new URL('../../../tests/fixtures/sample-submission.json', import.meta.url), 'utf8'),
);

const figures = (over: Partial<MeasuredHardware> = {}): MeasuredHardware =>
  MeasuredHardware.parse({
    measuredAt: '2026-11-26T05:00:00.000Z',
    durationMs: 4200,
    diskTool: 'fio-3.33',
    fsyncP50Us: 150,
    fsyncP99Us: 800,
    fsyncSamples: 500,
    readIopsQd1: 16_000,
    readIopsQd16: 47_000,
    seqWriteMBps: 220,
    cpuScore: 900,
    cpuWorkload: 'tunelab-cpu-1',
    ...over,
  });

describe('storageTierOf', () => {
  it('divides at the documented latencies and the SATA bandwidth', () => {
    expect(storageTierOf(figures({ readIopsQd1: 120, readIopsQd16: 300 }))).toBe('hdd-like');
    expect(storageTierOf(figures({ readIopsQd1: 399.9 }))).toBe('hdd-like');
    expect(storageTierOf(figures({ readIopsQd1: 400 }))).toBe('network-ssd');
    expect(storageTierOf(figures({ readIopsQd1: 1_500, readIopsQd16: 3_000 }))).toBe('network-ssd');
    expect(storageTierOf(figures())).toBe('ssd-like');
    // 73,243 × 8 kB = 600.0 MB/s: more than SATA carries.
    expect(storageTierOf(figures({ readIopsQd16: 73_243 }))).toBe('nvme-like');
    expect(storageTierOf(figures({ readIopsQd16: 73_242 }))).toBe('ssd-like');
    expect(storageTierOf(figures({ seqWriteMBps: 1_800 }))).toBe('nvme-like');
  });

  it('gives no tier without random reads (no O_DIRECT)', () => {
    expect(storageTierOf(figures({ readIopsQd1: null, readIopsQd16: null }))).toBeNull();
  });
});

describe('measured hardware in the spec', () => {
  it('is optional: a spec without figures stays valid', () => {
    expect(HardwareSpec.safeParse(fixture.hardware).success).toBe(true);
    expect(
      RunSubmission.safeParse({ ...fixture, hardware: { ...fixture.hardware, measured: figures() } }).success,
    ).toBe(true);
  });

  it('refuses a negative or non-finite figure with its path', () => {
    const r = HardwareSpec.safeParse({ ...fixture.hardware, measured: { ...figures(), readIopsQd1: -5 } });
    expect(r.success).toBe(false);
    expect(r.error!.issues[0]!.path).toEqual(['measured', 'readIopsQd1']);
  });

  it('refuses a figure outside its physical range (a denormal 5e-324, a zero, beyond any device) with its path', () => {
    for (const [field, value] of [
      ['fsyncP50Us', 5e-324],
      ['fsyncP99Us', 0.001],
      ['readIopsQd1', Number.MIN_VALUE],
      ['readIopsQd16', 1e10],
      ['seqWriteMBps', 1e-9],
      ['cpuScore', Number.MAX_VALUE],
    ] as const) {
      const r = HardwareSpec.safeParse({ ...fixture.hardware, measured: { ...figures(), [field]: value } });
      expect(r.success, `${field} = ${value}`).toBe(false);
      expect(r.error!.issues[0]!.path).toEqual(['measured', field]);
    }
    // A sync on tmpfs is fast, not impossible: tens of nanoseconds pass.
    expect(HardwareSpec.safeParse({ ...fixture.hardware, measured: { ...figures(), fsyncP50Us: 0.05 } }).success).toBe(
      true,
    );
  });

  it('never moves the fingerprint fields: figures, tier and the declared flag are not identity', () => {
    const bare = canonicalJson(stableHardwareFields(HardwareSpec.parse(fixture.hardware)));
    for (const m of [
      figures(),
      figures({ readIopsQd1: 200, fsyncP50Us: 9000, cpuScore: 1 }),
      figures({ seqWriteMBps: 3000 }),
    ])
      expect(canonicalJson(stableHardwareFields(HardwareSpec.parse({ ...fixture.hardware, measured: m })))).toBe(bare);
    const declared = { ...fixture.hardware, storage: { ...fixture.hardware.storage, declared: true } };
    expect(canonicalJson(stableHardwareFields(HardwareSpec.parse(declared)))).toBe(bare);
  });

  it('names the class by the measured tier unless the user declared the kind', () => {
    const base = { physicalCores: 2, memoryBytes: 24 * 1024 ** 3 };
    const unknown = { kind: 'unknown' as const, model: 'QEMU HARDDISK' };
    expect(hardwareClassOf({ ...base, storage: unknown })).toBe('2 cores / 24 GB / unknown disk');
    expect(hardwareClassOf({ ...base, storage: unknown, measured: figures() })).toBe('2 cores / 24 GB / SSD-like');
    expect(
      hardwareClassOf({ ...base, storage: { kind: 'nvme', model: null }, measured: figures({ readIopsQd1: 900 }) }),
    ).toBe('2 cores / 24 GB / network SSD');
    expect(
      hardwareClassOf({ ...base, storage: { kind: 'hdd', model: null, declared: true }, measured: figures() }),
    ).toBe('2 cores / 24 GB / HDD');
    expect(
      hardwareClassOf({ ...base, storage: unknown, measured: figures({ readIopsQd1: null, readIopsQd16: null }) }),
    ).toBe('2 cores / 24 GB / unknown disk');
  });
});

describe('storageTierReason', () => {
  it('says which figure put the disk in its tier', () => {
    expect(storageTierReason(figures({ readIopsQd1: 120 }))).toBe(
      '120 random reads/s at queue depth 1, below 400 (2.5 ms a read): a disk that seeks',
    );
    expect(storageTierReason(figures())).toBe(
      "16,000 random reads/s at queue depth 1 (local flash) and 385 MB/s of reads at queue depth 16 and 220 MB/s of writes: within SATA's 600 MB/s",
    );
    expect(storageTierReason(figures({ readIopsQd1: null }))).toMatch(/no tier/);
  });
});

describe('a resource envelope in the spec', () => {
  const envelope = (over: Partial<HardwareEnvelope> = {}): HardwareEnvelope => ({
    memoryBytes: 2 * 1024 ** 3,
    readIops: 150,
    mechanism: 'cgroup-v1',
    description: 'memory 2GB, reads 150 IOPS with cgroup v1',
    ...over,
  });

  it('is part of the fingerprint (never pooled with the unconstrained machine), its words are not', () => {
    const bare = canonicalJson(stableHardwareFields(HardwareSpec.parse(fixture.hardware)));
    const limited = (e: HardwareEnvelope) =>
      canonicalJson(stableHardwareFields(HardwareSpec.parse({ ...fixture.hardware, envelope: e })));
    expect(limited(envelope())).not.toBe(bare);
    expect(limited(envelope({ readIops: 300 }))).not.toBe(limited(envelope()));
    expect(limited(envelope({ description: 'other words', mechanism: 'cgroup-v2' }))).toBe(limited(envelope()));
    // A spec without an envelope keeps the fingerprint fields it always had (no new key).
    expect(Object.keys(stableHardwareFields(HardwareSpec.parse(fixture.hardware)))).not.toContain('envelope');
  });

  it('names the class with the memory limit and "emulated"; the memory a server had is the limit', () => {
    const base = { physicalCores: 2, memoryBytes: 24 * 1024 ** 3, storage: { kind: 'unknown' as const, model: null } };
    const hdd = figures({ readIopsQd1: 150, readIopsQd16: 150 });
    const c = hardwareClassOf({ ...base, measured: hdd, envelope: envelope() });
    expect(c).toBe('2 cores / 2 GB of 24 GB / HDD-like, emulated');
    expect(isEmulatedClass(c)).toBe(true);
    expect(isEmulatedClass(hardwareClassOf({ ...base, measured: hdd }))).toBe(false);
    expect(hardwareClassOf({ ...base, measured: hdd, envelope: envelope({ memoryBytes: 512 * 1024 ** 2 }) })).toBe(
      '2 cores / 512 MB of 24 GB / HDD-like, emulated',
    );
    // I/O limits only: the machine's memory.
    const { memoryBytes: _m, ...io } = envelope();
    expect(hardwareClassOf({ ...base, measured: hdd, envelope: io })).toBe('2 cores / 24 GB / HDD-like, emulated');
    expect(effectiveMemoryBytes({ memoryBytes: base.memoryBytes, envelope: envelope() })).toBe(2 * 1024 ** 3);
    expect(effectiveMemoryBytes({ memoryBytes: base.memoryBytes })).toBe(base.memoryBytes);
  });

  it('refuses a limit that is not a positive number, naming its path', () => {
    const r = HardwareSpec.safeParse({ ...fixture.hardware, envelope: envelope({ readIops: 0 }) });
    expect(r.success).toBe(false);
    expect(r.error!.issues[0]!.path).toEqual(['envelope', 'readIops']);
  });
});

describe('MeasuredHardware.windows', () => {
  it('is optional (runs stored before it parse) and bounded', () => {
    expect(figures().windows).toBeUndefined();
    const w = { perFigure: 5, retried: ['fsync#3', 'readQd1#0'], cpuBusy: 0.42 };
    expect(figures({ windows: w }).windows).toEqual(w);
    expect(figures({ windows: { ...w, cpuBusy: null } }).windows?.cpuBusy).toBeNull();
    expect(() => figures({ windows: { ...w, perFigure: 0 } })).toThrow();
    expect(() => figures({ windows: { ...w, cpuBusy: 1.5 } })).toThrow();
  });
});
