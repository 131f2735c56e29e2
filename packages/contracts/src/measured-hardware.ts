import { z } from 'zod';
import { boundedString, count, finiteNumber, isoDateTime } from './primitives.ts';

/**
 * What `tunelab probe` measured on the filesystem of the data directory (and a CPU score). Every
 * figure is a reading of one moment on a machine others may share: it is stored per run and never
 * part of the fingerprint (see `stableHardwareFields`). A figure the tool could not measure is null,
 * with the reason in `notes`.
 */
/**
 * The physical range of each probe figure: a floor below anything a disk or CPU reports (an 8 kB
 * fdatasync on tmpfs, a no-op, took 2.5–3 µs from node; one read a thousand seconds apart is no disk),
 * so that no figure is a denormal like 5e-324 whose ratio to a real one overflows, and a ceiling
 * beyond any device. GET /v1/similar's and GET /v1/answers' figure parameters share them.
 */
export const FIGURE_RANGES = {
  fsyncUs: { min: 0.01, max: 1e9 },
  iops: { min: 0.001, max: 1e9 },
  mbps: { min: 0.001, max: 1e7 },
  cpuScore: { min: 0.001, max: 1e12 },
} as const;
const inRange = (r: { min: number; max: number }) => finiteNumber.min(r.min).max(r.max);

export const MeasuredHardware = z.strictObject({
  measuredAt: isoDateTime,
  /** Wall time of the whole probe, disk and CPU. */
  durationMs: finiteNumber.min(0).max(600_000),
  /** What measured the disk figures: `fio-3.33` or `tunelab-node` (the runner's own fallback). */
  diskTool: boundedString(64),
  /**
   * 8 kB write then fdatasync (overwriting a written file, as PostgreSQL's WAL does with its
   * Linux default wal_sync_method=fdatasync): the sync call's latency in microseconds.
   */
  fsyncP50Us: inRange(FIGURE_RANGES.fsyncUs).nullable(),
  fsyncP99Us: inRange(FIGURE_RANGES.fsyncUs).nullable(),
  fsyncSamples: count.max(1e9),
  /** Random 8 kB reads per second with O_DIRECT (page cache bypassed), one request in flight. */
  readIopsQd1: inRange(FIGURE_RANGES.iops).nullable(),
  /** The same with 16 requests in flight. */
  readIopsQd16: inRange(FIGURE_RANGES.iops).nullable(),
  /** Sequential 1 MiB writes until durable (the final fsync included), in MB/s (10^6 bytes). */
  seqWriteMBps: inRange(FIGURE_RANGES.mbps).nullable(),
  /** Single-core score: iterations per second of a fixed deterministic workload (`cpuWorkload`). */
  cpuScore: inRange(FIGURE_RANGES.cpuScore).nullable(),
  /** Name and version of the CPU workload: scores of different workloads are not comparable. */
  cpuWorkload: boundedString(64),
  /**
   * The 1-minute load average when the probe started, and the CPUs it is shared by: on a machine
   * whose CPUs are saturated the figures measure the scheduler too (a read at queue depth 1 waits
   * for a CPU to be woken on), so a reader can tell a loaded probe from an idle one.
   */
  loadAverage1m: finiteNumber.min(0).max(1e6).nullable().optional(),
  logicalCpus: count.min(1).max(8192).nullable().optional(),
  notes: z.array(boundedString(500)).max(20).default([]),
  /**
   * How the disk figures were taken (newer runners; absent in older runs): each figure
   * in `perFigure` short windows, the best quartile of them kept (the disk's capability, not the
   * moment's contention: the lowest-latency quartile of fsync, the highest of IOPS and MB/s), and
   * the windows measured again because they were noisy (`fsync#2`: the third fsync window).
   */
  windows: z
    .strictObject({
      perFigure: count.min(1).max(100),
      retried: z.array(boundedString(32)).max(100),
      /** Median share of the CPUs busy (or waiting on I/O) across the windows, 0–1; null off Linux. */
      cpuBusy: finiteNumber.min(0).max(1).nullable(),
    })
    .optional(),
});
export type MeasuredHardware = z.infer<typeof MeasuredHardware>;

export const StorageTier = z.enum(['nvme-like', 'ssd-like', 'network-ssd', 'hdd-like']);
export type StorageTier = z.infer<typeof StorageTier>;

export const STORAGE_TIER_LABELS: Record<StorageTier, string> = {
  'nvme-like': 'NVMe-like',
  'ssd-like': 'SSD-like',
  'network-ssd': 'network SSD',
  'hdd-like': 'HDD-like',
};

/**
 * Where the tiers divide, and why. Random-read latency at queue depth 1 (1 / IOPS) separates the
 * media; bandwidth separates NVMe from SATA.
 * - HDD: a 7200 rpm disk waits half a turn (4.17 ms) plus a seek (~4–9 ms) per random read, ~75–150
 *   IOPS (https://en.wikipedia.org/wiki/Hard_disk_drive_performance_characteristics). Below 400 IOPS
 *   (2.5 ms per read) no flash device answers, SAN caches aside.
 * - Network block storage: AWS EBS gp3 promises "single-digit millisecond" latency, io2 Block Express
 *   "sub-millisecond" (https://docs.aws.amazon.com/ebs/latest/userguide/ebs-volume-types.html);
 *   local flash reads 8 kB in ~60–150 µs. Between 400 and 2,500 IOPS (0.4–2.5 ms) is network SSD.
 * - NVMe vs SATA: SATA III carries at most 600 MB/s (6 Gbit/s, 8b/10b encoding; SATA-IO revision
 *   3.0). Local flash that writes sequentially faster than that, or reads 8 kB blocks at queue depth
 *   16 faster than that (73,242 IOPS), is not behind SATA: NVMe-like.
 */
export const STORAGE_TIER_THRESHOLDS = {
  hddMaxReadIopsQd1: 400,
  networkMaxReadIopsQd1: 2_500,
  sataMaxMBps: 600,
} as const;

/**
 * The storage tier the figures show, or null when the random reads were not measured (no O_DIRECT
 * on this filesystem): fsync latency alone cannot tell a consumer SSD flushing its cache from a
 * network disk.
 */
export function storageTierOf(
  m: Pick<MeasuredHardware, 'readIopsQd1' | 'readIopsQd16' | 'seqWriteMBps'>,
): StorageTier | null {
  const t = STORAGE_TIER_THRESHOLDS;
  if (m.readIopsQd1 === null) return null;
  if (m.readIopsQd1 < t.hddMaxReadIopsQd1) return 'hdd-like';
  if (m.readIopsQd1 < t.networkMaxReadIopsQd1) return 'network-ssd';
  const qd16MBps = m.readIopsQd16 === null ? 0 : (m.readIopsQd16 * 8192) / 1e6;
  if (qd16MBps > t.sataMaxMBps || (m.seqWriteMBps ?? 0) > t.sataMaxMBps) return 'nvme-like';
  return 'ssd-like';
}

const n = (x: number) => Math.round(x).toLocaleString('en-US');

/** Why the figures give their tier, in one sentence (shown by `tunelab probe` and the site). */
export function storageTierReason(m: Pick<MeasuredHardware, 'readIopsQd1' | 'readIopsQd16' | 'seqWriteMBps'>): string {
  const t = STORAGE_TIER_THRESHOLDS;
  const tier = storageTierOf(m);
  if (tier === null || m.readIopsQd1 === null) return 'random reads were not measured (no O_DIRECT here): no tier';
  const qd1 = `${n(m.readIopsQd1)} random reads/s at queue depth 1`;
  if (tier === 'hdd-like') return `${qd1}, below ${n(t.hddMaxReadIopsQd1)} (2.5 ms a read): a disk that seeks`;
  if (tier === 'network-ssd')
    return `${qd1}, between ${n(t.hddMaxReadIopsQd1)} and ${n(t.networkMaxReadIopsQd1)} (0.4–2.5 ms a read): flash behind a network`;
  const bandwidth = `${n(((m.readIopsQd16 ?? 0) * 8192) / 1e6)} MB/s of reads at queue depth 16 and ${n(m.seqWriteMBps ?? 0)} MB/s of writes`;
  return tier === 'nvme-like'
    ? `${qd1} (local flash) and ${bandwidth}: above SATA's ${t.sataMaxMBps} MB/s`
    : `${qd1} (local flash) and ${bandwidth}: within SATA's ${t.sataMaxMBps} MB/s`;
}
