import { readFile } from 'node:fs/promises';
import path from 'node:path';
import si from 'systeminformation';
import { readCpuJiffies } from './proc-stat.ts';

/**
 * CPU time split and the disk I/O of one block device, as deltas between two readings.
 *
 * The device is found with systeminformation (`probeStorageOf`); the counters come from
 * /proc/stat and /proc/diskstats on Linux because systeminformation reports neither iowait
 * (`currentLoad` has user/system/idle/irq/steal only) nor per-device byte counters (`disksIO`
 * sums operations of every disk). Elsewhere `si.currentLoad()` gives user/system only.
 */
export type OsReading = {
  at: number;
  cpu: Record<'user' | 'system' | 'iowait' | 'total', number> | null;
  disk: { readBytes: number; writeBytes: number } | null;
};
export type OsDelta = {
  cpuUserPct: number | null;
  cpuSystemPct: number | null;
  cpuIowaitPct: number | null;
  diskReadBytes: number | null;
  diskWriteBytes: number | null;
};

export type OsSampler = {
  device: string | null;
  read(): Promise<OsReading>;
  delta(a: OsReading, b: OsReading): OsDelta;
};

async function readProcStat(): Promise<OsReading['cpu']> {
  const j = await readCpuJiffies();
  if (!j) return null;
  return {
    user: j.user + j.nice,
    system: j.system + j.irq + j.softirq,
    iowait: j.iowait,
    total: j.user + j.nice + j.system + j.idle + j.iowait + j.irq + j.softirq + j.steal,
  };
}

async function readDiskStats(name: string): Promise<OsReading['disk']> {
  const text = await readFile('/proc/diskstats', 'utf8');
  for (const line of text.split('\n')) {
    const f = line.trim().split(/\s+/);
    // https://www.kernel.org/doc/Documentation/ABI/testing/procfs-diskstats: sectors are 512 bytes.
    if (f[2] === name) return { readBytes: Number(f[5]) * 512, writeBytes: Number(f[9]) * 512 };
  }
  return null;
}

/** A sampler of this machine's CPU and of `device` (e.g. `/dev/vda`, from probeStorageOf). */
export function createOsSampler(device: string | null): OsSampler {
  const linux = process.platform === 'linux';
  const name = device ? path.basename(device) : null;
  return {
    device,
    async read() {
      if (linux) {
        const [cpu, disk] = await Promise.all([
          readProcStat().catch(() => null),
          name ? readDiskStats(name).catch(() => null) : null,
        ]);
        return { at: Date.now(), cpu, disk };
      }
      const load = await si.currentLoad();
      const cpu = {
        user: load.rawCurrentLoadUser + load.rawCurrentLoadNice,
        system: load.rawCurrentLoadSystem + load.rawCurrentLoadIrq,
        iowait: 0,
        total: load.rawCurrentLoad + load.rawCurrentLoadIdle,
      };
      // si.disksIO() counts operations of all disks together, not bytes: bytes stay unknown off Linux.
      return { at: Date.now(), cpu, disk: null };
    },
    delta(a, b) {
      const pct = (k: 'user' | 'system' | 'iowait') => {
        if (!a.cpu || !b.cpu) return null;
        const total = b.cpu.total - a.cpu.total;
        return total > 0 ? ((b.cpu[k] - a.cpu[k]) / total) * 100 : null;
      };
      return {
        cpuUserPct: pct('user'),
        cpuSystemPct: pct('system'),
        cpuIowaitPct: linux ? pct('iowait') : null,
        diskReadBytes: a.disk && b.disk ? b.disk.readBytes - a.disk.readBytes : null,
        diskWriteBytes: a.disk && b.disk ? b.disk.writeBytes - a.disk.writeBytes : null,
      };
    },
  };
}
