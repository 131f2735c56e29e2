/**
 * A machine's storage tier with memory: the runner keeps the last probes of each
 * filesystem it measured in a small JSON file (TUNELAB_PROBE_HISTORY, default
 * ~/.tunelab/probe-history.json) and the tier it decided. A new probe moves the tier only when
 * - its figures are clearly past the threshold: still in the new tier with every throughput figure
 *   moved MARGIN × back towards the stored tier — and, for a slower tier, the probe was not under
 *   load (a busy CPU slows a disk's figures, never speeds them up); or
 * - AGREE consecutive probes (this one included) measured the same new tier — for a slower tier,
 *   unloaded probes only.
 * Otherwise it keeps the stored tier and says so. A history file that does not parse is a warning
 * and is ignored (rewritten from this probe), never a crash.
 */
import { mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import {
  STORAGE_TIER_LABELS,
  StorageTier,
  storageTierOf,
  type MeasuredHardware,
  type StorageTier as Tier,
} from '@tunelab/contracts';
import { z } from 'zod';

export const HYSTERESIS = {
  /** How far past a threshold a probe must be to move the tier at once: its figures ×/÷ this. */
  margin: 2,
  /** Consecutive probes that move the tier when they agree. */
  agree: 3,
  /** Probes kept per filesystem. */
  keep: 10,
  /** A probe is under load when the CPUs were this busy during its windows (median, 0–1)… */
  loadedCpuBusy: 0.75,
  /** …or its 1-minute load average per logical CPU was at least this. */
  loadedLoadPerCpu: 1,
} as const;

/** Slowest first. */
const ORDER: readonly Tier[] = ['hdd-like', 'network-ssd', 'ssd-like', 'nvme-like'];

const figure = z.number().nullable();
const HistoryProbe = z.object({
  at: z.string(),
  tier: StorageTier.nullable(),
  readIopsQd1: figure,
  readIopsQd16: figure,
  seqWriteMBps: figure,
  fsyncP50Us: figure,
  loaded: z.boolean(),
});
export type HistoryProbe = z.infer<typeof HistoryProbe>;
const FilesystemHistory = z.object({
  dir: z.string(),
  tier: StorageTier.nullable(),
  since: z.string(),
  probes: z.array(HistoryProbe),
});
export type FilesystemHistory = z.infer<typeof FilesystemHistory>;
const HistoryFile = z.object({ version: z.literal(1), filesystems: z.record(z.string(), FilesystemHistory) });
export type ProbeHistory = z.infer<typeof HistoryFile>;

/** The history in `file`: empty when there is none; a warning and empty when it does not parse. */
export function readHistory(file: string): { history: ProbeHistory; warning: string | null } {
  const empty: ProbeHistory = { version: 1, filesystems: {} };
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return { history: empty, warning: null };
    return { history: empty, warning: `cannot read the probe history ${file} (${(e as Error).message}): ignored` };
  }
  try {
    return { history: HistoryFile.parse(JSON.parse(text)), warning: null };
  } catch (e) {
    const why = e instanceof z.ZodError ? 'not a probe history' : (e as Error).message;
    return {
      history: empty,
      warning: `the probe history ${file} does not parse (${why.slice(0, 200)}): ignored, and replaced by this probe's`,
    };
  }
}

/** Writes the history (a temporary file renamed over it: a reader never sees half of one). */
export function writeHistory(file: string, history: ProbeHistory): void {
  mkdirSync(path.dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(history, null, 2)}\n`);
  renameSync(tmp, file);
}

/** The history's key of the filesystem under `dir`: its device number, as the test suite's probe reuse. */
export const filesystemKey = (dir: string): string => `dev ${statSync(dir).dev}`;

type Figures = Pick<MeasuredHardware, 'readIopsQd1' | 'readIopsQd16' | 'seqWriteMBps'>;

/** Whether the probe ran under load: the CPUs busy during its windows, or the load average per CPU. */
export function probeWasLoaded(m: Pick<MeasuredHardware, 'windows' | 'loadAverage1m' | 'logicalCpus'>): boolean {
  const busy = m.windows?.cpuBusy ?? null;
  const perCpu = m.loadAverage1m != null && m.logicalCpus ? m.loadAverage1m / m.logicalCpus : null;
  return (
    (busy !== null && busy >= HYSTERESIS.loadedCpuBusy) || (perCpu !== null && perCpu >= HYSTERESIS.loadedLoadPerCpu)
  );
}

const scaled = (m: Figures, f: number): Figures => ({
  readIopsQd1: m.readIopsQd1 === null ? null : m.readIopsQd1 * f,
  readIopsQd16: m.readIopsQd16 === null ? null : m.readIopsQd16 * f,
  seqWriteMBps: m.seqWriteMBps === null ? null : m.seqWriteMBps * f,
});

export type TierDecision = {
  /** The tier to use: the stored one unless this probe moved it. */
  tier: Tier | null;
  /** The tier this probe's figures alone give. */
  measured: Tier | null;
  /** How the tier was decided, in one sentence. */
  reason: string;
  /** The history's entry after this probe. */
  next: FilesystemHistory;
};

const label = (t: Tier | null) => (t ? STORAGE_TIER_LABELS[t] : 'no tier');

/** The tier after probe `m` of the filesystem under `dir`, given its stored history (pure). */
export function decideTier(
  stored: FilesystemHistory | undefined,
  m: Figures & Pick<MeasuredHardware, 'measuredAt' | 'fsyncP50Us' | 'windows' | 'loadAverage1m' | 'logicalCpus'>,
  dir: string,
): TierDecision {
  const measured = storageTierOf(m);
  const loaded = probeWasLoaded(m);
  const probe: HistoryProbe = {
    at: m.measuredAt,
    tier: measured,
    readIopsQd1: m.readIopsQd1,
    readIopsQd16: m.readIopsQd16,
    seqWriteMBps: m.seqWriteMBps,
    fsyncP50Us: m.fsyncP50Us,
    loaded,
  };
  const probes = [...(stored?.probes ?? []), probe].slice(-HYSTERESIS.keep);
  const entry = (tier: Tier | null, since: string): FilesystemHistory => ({ dir, tier, since, probes });
  const count = stored?.probes.length ?? 0;
  if (!stored || stored.tier === null)
    return {
      tier: measured,
      measured,
      reason: `first probe of this filesystem${stored ? ' with a tier' : ''}: ${label(measured)}${loaded ? ' (under load)' : ''}`,
      next: entry(measured, m.measuredAt),
    };
  const kept = stored.tier;
  const keep = (why: string): TierDecision => ({
    tier: kept,
    measured,
    reason: `kept ${label(kept)} (since ${stored.since}, ${count} earlier probe${count === 1 ? '' : 's'}): ${why}`,
    next: entry(kept, stored.since),
  });
  if (measured === null) return keep('this probe measured no tier');
  if (measured === kept)
    return {
      tier: kept,
      measured,
      reason: `${label(kept)}, as the ${count} earlier probe${count === 1 ? '' : 's'} decided`,
      next: entry(kept, stored.since),
    };
  const slower = ORDER.indexOf(measured) < ORDER.indexOf(kept);
  const move = (why: string): TierDecision => ({
    tier: measured,
    measured,
    reason: `moved from ${label(kept)} to ${label(measured)}: ${why}`,
    next: entry(measured, m.measuredAt),
  });
  // Past the threshold by the margin: the figures moved MARGIN × back towards the stored tier still give the new one.
  const back = storageTierOf(scaled(m, slower ? HYSTERESIS.margin : 1 / HYSTERESIS.margin));
  const clearly =
    back !== null && (slower ? ORDER.indexOf(back) < ORDER.indexOf(kept) : ORDER.indexOf(back) > ORDER.indexOf(kept));
  const run = probes.slice(-HYSTERESIS.agree);
  const agree = run.length === HYSTERESIS.agree && run.every((p) => p.tier === measured && (!slower || !p.loaded));
  if (clearly && !(slower && loaded)) return move(`${HYSTERESIS.margin}× past the threshold`);
  if (agree) return move(`${HYSTERESIS.agree} consecutive probes measured it`);
  if (slower && loaded)
    return keep(
      `this probe measured ${label(measured)} under load (a busy CPU slows the figures): a slower tier needs ${HYSTERESIS.agree} consecutive probes without load`,
    );
  const streak = [...probes].reverse().findIndex((p) => p.tier !== measured || (slower && p.loaded));
  const agreeing = streak === -1 ? probes.length : streak;
  return keep(
    `this probe measured ${label(measured)}, within ${HYSTERESIS.margin}× of the threshold; ${agreeing} of ${HYSTERESIS.agree} consecutive probes needed to move it`,
  );
}

/**
 * The stable tier of the filesystem under `dir` after probe `m`: read the history in `file`,
 * decide, write it back. `warnings` gets a sentence for a history it could not read or write.
 */
export function stableTier(
  file: string,
  dir: string,
  m: Parameters<typeof decideTier>[1],
  warnings: string[],
): TierDecision {
  const { history, warning } = readHistory(file);
  if (warning) warnings.push(warning);
  const key = filesystemKey(dir);
  const decision = decideTier(history.filesystems[key], m, dir);
  try {
    writeHistory(file, { version: 1, filesystems: { ...history.filesystems, [key]: decision.next } });
  } catch (e) {
    warnings.push(`cannot write the probe history ${file} (${(e as Error).message}): this probe is not remembered`);
  }
  return decision;
}

/** Where the tier comes from: RunnerConfig's `probeHistoryFile` and `storageTier`. */
export type TierConfig = { probeHistoryFile: string; storageTier: Tier | null };

/**
 * The tier of the disk under `dir` after probe `m`: TUNELAB_STORAGE_TIER when set (the history is
 * left alone), else the stable tier of the probe history (tier-history.ts), which this probe joins.
 */
export function tierOfProbe(
  dir: string,
  m: Parameters<typeof decideTier>[1],
  config: TierConfig,
  warn: (w: string) => void,
): { tier: Tier | null; reason: string } {
  if (config.storageTier)
    return {
      tier: config.storageTier,
      reason: `set by TUNELAB_STORAGE_TIER=${config.storageTier}, not by the figures (the probe history is left alone)`,
    };
  const warnings: string[] = [];
  const d = stableTier(config.probeHistoryFile, dir, m, warnings);
  warnings.forEach(warn);
  return { tier: d.tier, reason: d.reason };
}
