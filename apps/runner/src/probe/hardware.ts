import path from 'node:path';
import { readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { realpath } from 'node:fs/promises';
import si from 'systeminformation';
import { z } from 'zod';
import {
  HardwareSpec,
  STORAGE_TIER_LABELS,
  storageTierOf,
  type HardwareEnvelope,
  MeasuredHardware,
  type StorageKind,
} from '@tunelab/contracts';
import { measureHardware, probeDirectoryFor } from './measure.ts';

export type StorageProbe = {
  kind: StorageKind;
  model: string | null;
  filesystem: string | null;
  device: string | null;
  note: string;
};

/**
 * Finds the block device holding `dir` and classifies it. Uses the mount table and block-device
 * list from systeminformation: the longest mount point that prefixes the directory wins; a
 * partition is traced to its parent disk; NVMe by name/protocol, then rotational → HDD, else SSD.
 */
export async function probeStorageOf(dir: string): Promise<StorageProbe> {
  // realpath needs search permission on every parent; without it the configured path is used.
  const resolved = await realpath(dir).catch(() => path.resolve(dir));
  const [mounts, devices, layout] = await Promise.all([
    si.fsSize(),
    si.blockDevices(),
    si.diskLayout().catch(() => []),
  ]);
  const within = (mount: string) =>
    resolved === mount || resolved.startsWith(mount.endsWith('/') ? mount : `${mount}/`);
  const mount = mounts.filter((m) => within(m.mount)).sort((a, b) => b.mount.length - a.mount.length)[0];
  if (!mount)
    return { kind: 'unknown', model: null, filesystem: null, device: null, note: `no mount found for ${resolved}` };
  const byName = (name: string) =>
    devices.find((d) => d.name === name || d.device === name || `/dev/${d.name}` === name);
  let dev = byName(mount.fs) ?? devices.find((d) => d.mount === mount.mount);
  // A partition (vda1, nvme0n1p2) reports the parent disk's model and rotational flag.
  if (dev && dev.type === 'part') dev = devices.find((d) => d.type === 'disk' && dev!.name.startsWith(d.name)) ?? dev;
  if (!dev)
    return {
      kind: 'unknown',
      model: null,
      filesystem: mount.type || null,
      device: mount.fs,
      note: `device ${mount.fs} not in the block device list`,
    };
  const disk = layout.find((l) => l.device === dev.device || l.device === `/dev/${dev.name}`);
  const model = (disk?.name || dev.model || '').trim() || null;
  const kind = classifyDisk({
    name: dev.name,
    protocol: dev.protocol,
    physical: dev.physical,
    layoutType: disk?.type ?? null,
    model,
  });
  const virtual = isVirtualDisk(dev.name, model)
    ? `; a virtual disk (${model ?? dev.name}): its flags say nothing about the storage behind it, pass --storage`
    : '';
  return {
    kind,
    model,
    filesystem: mount.type || null,
    device: dev.device ?? `/dev/${dev.name}`,
    note: `${resolved} is on ${dev.device ?? dev.name} (${mount.type}, ${kind}${virtual})`,
  };
}

/**
 * Disks a hypervisor presents (QEMU/KVM, VirtualBox, VMware, Hyper-V, Xen, virtio `vd*`): the
 * kernel's rotational flag is whatever the hypervisor sets (QEMU's default says "rotational"), so
 * classing them HDD or SSD would be a guess the hardware class and similarity then rest on.
 */
const VIRTUAL_DISK_MODEL = /\b(QEMU|VBOX|VirtualBox|VMware|Virtual ?disk|Msft Virtual|Xen|virtio)\b/i;
export const isVirtualDisk = (name: string, model: string | null) =>
  /^(vd[a-z]+|xvd[a-z]+)$/.test(name) || VIRTUAL_DISK_MODEL.test(model ?? '');

/** NVMe by name/protocol, a virtual disk is unknown, then the rotational flag: HDD, else SSD. */
export function classifyDisk(d: {
  name: string;
  protocol: string;
  physical: string;
  layoutType: string | null;
  model: string | null;
}): StorageKind {
  if (d.name.startsWith('nvme') || /nvme/i.test(d.protocol) || d.layoutType === 'NVMe') return 'nvme';
  if (isVirtualDisk(d.name, d.model)) return 'unknown';
  if (d.physical === 'HDD' || d.layoutType === 'HD') return 'hdd'; // the kernel's rotational flag
  if (d.physical === 'SSD' || d.layoutType === 'SSD') return 'ssd';
  return 'unknown';
}

export type HardwareProbeOptions = {
  /** Data directory of a local server; null when unknown or the target is remote. */
  dataDirectory: string | null;
  /** --storage given by the user; wins over detection and the measured tier. */
  storageOverride?: StorageKind;
  /** Measure the disk of the data directory and the CPU (measure.ts, ~5 s); default true. */
  measure?: boolean;
  /**
   * The resource envelope the server runs in: recorded in the spec, and the disk is probed inside
   * it (fio through `wrap`), so the figures and the tier are the envelope's.
   */
  envelope?: { record: HardwareEnvelope; wrap: (argv: readonly string[]) => string[] };
};

/**
 * TUNELAB_TEST_PROBE_REUSE names a JSON file of probe figures by filesystem (device number), for
 * the runner's own test suite (set by its vitest globalSetup): a run whose probe directory is on a
 * filesystem in the file reuses the figures an earlier run of the same test run measured there
 * (the same disk, minutes earlier; managed servers get a new directory every run) instead of
 * spending ~5 s measuring again. Never inside an envelope (its figures are its own).
 */
const REUSE_FILE = process.env.TUNELAB_TEST_PROBE_REUSE || null;
const ReuseFile = z.record(z.string(), MeasuredHardware);
function readReuseFile(): z.infer<typeof ReuseFile> {
  try {
    return ReuseFile.parse(JSON.parse(readFileSync(REUSE_FILE!, 'utf8')));
  } catch {
    return {};
  }
}
const reuseKey = (dir: string) => `dev ${statSync(dir).dev}`;
function reusedFigures(dir: string): MeasuredHardware | null {
  return REUSE_FILE ? (readReuseFile()[reuseKey(dir)] ?? null) : null;
}
function keepFigures(dir: string, m: MeasuredHardware): void {
  if (!REUSE_FILE) return;
  const tmp = `${REUSE_FILE}.${process.pid}.tmp`;
  writeFileSync(tmp, JSON.stringify({ ...readReuseFile(), [reuseKey(dir)]: m }));
  renameSync(tmp, REUSE_FILE);
}

/** The probe's figures for the data directory's filesystem; a warning instead when it cannot write there. */
async function measureDataDisk(
  dataDirectory: string,
  warnings: string[],
  notes: string[],
  wrap?: (argv: readonly string[]) => string[],
) {
  const dir = probeDirectoryFor(dataDirectory);
  if (!dir) {
    warnings.push(
      `could not measure the disk: no directory on the filesystem of ${dataDirectory} is writable by this user (\`tunelab probe --dir DIR\` measures one)`,
    );
    return undefined;
  }
  try {
    const reused = wrap ? null : reusedFigures(dir);
    const m = reused ?? (await measureHardware({ dir, ...(wrap ? { wrap } : {}) }));
    if (!wrap && !reused) keepFigures(dir, m);
    const tier = storageTierOf(m);
    // The run says when its figures are an earlier probe's (the test suite's reuse), never that it measured them.
    notes.push(
      `${reused ? `reused the figures an earlier run measured on the filesystem of ${dir} (TUNELAB_TEST_PROBE_REUSE)` : `measured ${dir}${wrap ? ' inside the envelope' : ''}`} with ${m.diskTool} in ${(m.durationMs / 1000).toFixed(1)} s: storage tier ${tier ? STORAGE_TIER_LABELS[tier] : 'unknown (random reads not measured)'}${m.notes.length ? `; ${m.notes.join('; ')}` : ''}`,
    );
    return m;
  } catch (e) {
    warnings.push(`could not measure the disk under ${dir}: ${(e as Error).message}`);
    return undefined;
  }
}

/** Builds the contracts HardwareSpec of this machine; warnings explain anything left unknown. */
export async function probeHardware(
  opts: HardwareProbeOptions,
): Promise<{ spec: HardwareSpec; warnings: string[]; notes: string[] }> {
  const warnings: string[] = [];
  const notes: string[] = [];
  const [cpu, mem, os, system] = await Promise.all([si.cpu(), si.mem(), si.osInfo(), si.system()]);
  let storage: StorageProbe = { kind: 'unknown', model: null, filesystem: null, device: null, note: 'remote target' };
  if (opts.dataDirectory) {
    try {
      storage = await probeStorageOf(opts.dataDirectory);
      notes.push(storage.note);
    } catch (e) {
      warnings.push(`could not probe the storage of ${opts.dataDirectory}: ${(e as Error).message}`);
    }
  }
  const measured =
    opts.dataDirectory && opts.measure !== false
      ? await measureDataDisk(opts.dataDirectory, warnings, notes, opts.envelope?.wrap)
      : undefined;
  if (opts.storageOverride) storage = { ...storage, kind: opts.storageOverride };
  else if (storage.kind === 'unknown' && !(measured && storageTierOf(measured)))
    // A virtual disk's note already ends in the advice; the warning gives it once, with the kinds.
    warnings.push(
      `storage kind unknown (${storage.note.replace(/, pass --storage$/, '')}); pass --storage ssd|hdd|nvme`,
    );
  const cpuModel = [cpu.manufacturer, cpu.brand].filter(Boolean).join(' ').replace(/\s+/g, ' ').trim() || 'unknown CPU';
  const virtualization = system.virtual ? (system.virtualHost || system.model || 'virtual').slice(0, 64) : null;
  const spec = HardwareSpec.parse({
    cpuModel: cpuModel.slice(0, 200),
    physicalCores: Math.max(1, cpu.physicalCores || cpu.cores),
    logicalCpus: Math.max(1, cpu.cores),
    memoryBytes: mem.total,
    storage: { kind: storage.kind, model: storage.model, ...(opts.storageOverride ? { declared: true } : {}) },
    filesystem: storage.filesystem,
    os: `${os.distro} ${os.release}`.trim().slice(0, 200) || os.platform,
    kernel: os.kernel || 'unknown',
    virtualization,
    ...(cpu.speed > 0 ? { cpuSpeedGhz: cpu.speed } : {}),
    ...(measured ? { measured } : {}),
    ...(opts.envelope ? { envelope: opts.envelope.record } : {}),
  });
  return { spec, warnings, notes };
}
