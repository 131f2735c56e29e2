/**
 * `tunelab run KEY --like-article`: the article's conditions, stated as ratios in
 * scenario.yaml `article_conditions`, reproduced at a data size this machine runs in minutes. From
 * the data size it picks the scale parameter's value (bytes per unit), a memory limit (data ÷
 * data:memory), the size settings (setting:data × data, in 8 kB pages or whole MB) and the
 * article's other server settings (scenario.yaml settings.expect), and an I/O limit only when the
 * article's disk tier is slower than the one measured here. The run itself is an ordinary run with
 * `--param`, `--envelope` and `--set`: this module only chooses them, and says what it chose and
 * what it could not reproduce (cores, the absolute size) in one line and a `like-article` note.
 */
import os from 'node:os';
import {
  STORAGE_TIER_LABELS,
  ownValue,
  paramUnitBytes,
  parseSizeText,
  storageTierOf,
  type ArticleMachineConditions,
  type MeasuredHardware,
  type PublishedMachine,
  type RunNote,
  type ScenarioDocument,
  type StorageTier,
} from '@tunelab/contracts';
import type { LoadedScenario } from '@tunelab/scenarios';
import si from 'systeminformation';
import { EnvelopeUnavailable, UsageError } from '../errors.ts';
import { MIN_ENVELOPE_MEMORY_BYTES, type Envelope } from '../probe/envelope.ts';
import { measureHardware } from '../probe/measure.ts';
import { tierOfProbe, type TierConfig } from '../probe/tier-history.ts';

const KIB = 1024;
const MIB = 1024 ** 2;
const GIB = 1024 ** 3;

/**
 * Slowest first. A disk is throttled to the article's tier only when it measures faster; a faster
 * tier than this disk's cannot be made.
 */
const TIER_ORDER: readonly StorageTier[] = ['hdd-like', 'network-ssd', 'ssd-like', 'nvme-like'];

/**
 * The limit that makes a faster disk probe as a tier (contracts' STORAGE_TIER_THRESHOLDS tell the
 * tiers by random 8 kB reads at queue depth 1, and NVMe from SATA by bandwidth):
 * - HDD-like: 150 reads and 150 writes a second, a 7200 rpm disk's seek plus half a turn (~75–150
 *   IOPS; the envelope test shows a 150-IOPS limit probes HDD-like).
 * - network SSD: 1,000 reads/s, 1 ms a read, inside the 0.4–2.5 ms band of network block storage.
 * - SSD-like: 550 MB/s of reads and writes, SATA III's practical ceiling (600 MB/s on the wire).
 * - NVMe-like: the fastest tier; nothing to throttle to.
 * An IOPS limit counts a large sequential request as one, so an HDD-like throttle makes sequential
 * scans slower than a real disk's (a cgroup limit cannot tell seeks from streams); and cgroup v1
 * does not charge buffered writes to the server (envelope.ts).
 */
export const TIER_THROTTLES: Readonly<Record<StorageTier, Envelope | null>> = {
  // Writes seek as reads do: an insert stream's page flushes and log writes wait on them too.
  'hdd-like': { readIops: 150, writeIops: 150 },
  'network-ssd': { readIops: 1000 },
  'ssd-like': { readBps: 550_000_000, writeBps: 550_000_000 },
  'nvme-like': null,
};

/**
 * The smallest value of a size setting the server accepts (PostgreSQL's documented minimums;
 * max_wal_size: two WAL segments of the default 16 MB). A data size that would scale a setting
 * below it is refused: the ratio could not be kept.
 */
const SETTING_FLOORS: Readonly<Record<string, number>> = {
  shared_buffers: 128 * KIB,
  maintenance_work_mem: 1024 * KIB,
  work_mem: 64 * KIB,
  max_wal_size: 32 * MIB,
  min_wal_size: 32 * MIB,
  effective_cache_size: 8 * KIB,
};

/** Bad `--like-article…` input, or one this scenario or machine cannot take: exit 2, nothing measured. */
export class LikeArticleError extends UsageError {}

/** "256 MB", "1.5 GB", "683 MB", "12 GB" (binary units, as postgresql.conf reads them). */
export function formatSize(n: number): string {
  if (n >= GIB) return `${Number((n / GIB).toFixed(1))} GB`;
  if (n >= MIB) return `${Number((n / MIB).toFixed(n >= 10 * MIB ? 0 : 1))} MB`;
  return `${Math.round(n / KIB)} kB`;
}

/** A size setting's value: whole MB from 16 MB up, else 8 kB pages written in kB. */
export function settingValueOf(n: number): string {
  if (n >= 16 * MIB) return `${Math.round(n / MIB)}MB`;
  return `${Math.max(1, Math.round(n / (8 * KIB))) * 8}kB`;
}

const ratioText = (r: number) => String(Number(r.toFixed(3)));
const count = (n: number) => n.toLocaleString('en-US');

export type LikeArticleRequest = {
  /** `--like-article-size`, as typed. */
  size?: string;
  /** `--like-article-machine`: a published machine id. */
  machine?: string;
};

/** What --like-article chose before the disk is measured: size, scale value, memory, settings. */
export type LikeArticlePlan = {
  machine: ArticleMachineConditions;
  /** The article's machine in published.json (cores, memory, label); null when the article describes none. */
  published: PublishedMachine | null;
  param: string;
  dataBytes: number;
  value: number;
  /** The envelope's memory limit; null when the machine states no data:memory (no memory limit). */
  memoryBytes: number | null;
  /** Size settings scaled with the data, name → value for `--set`. */
  scaled: Record<string, string>;
  /**
   * Parameters: those scaled with the data (params_to_data) and those set as the article ran them
   * (article_conditions.params; a `--param` of the user's replaces one of these).
   */
  params: Record<string, string>;
  /** Which of `params` are scaled with the data (the rest are the article's values). */
  scaledParams: readonly string[];
  /** The article's other server settings (settings.expect), at its values. */
  article: Record<string, string>;
};

/** This machine, as far as the choice needs it. */
export type Host = { memoryBytes: number; cores: number };

/** The machine `--like-article-machine` names, or the first the scenario lists. */
function machineOf(doc: ScenarioDocument, id: string | undefined): ArticleMachineConditions {
  const machines = doc.article_conditions!.machines;
  if (id === undefined) return machines[0]!;
  const m = machines.find((x) => x.hardware === id);
  if (!m)
    throw new LikeArticleError(
      `--like-article-machine ${id}: ${doc.key} states the conditions of ${machines.map((x) => x.hardware).join(', ')}`,
    );
  return m;
}

/**
 * The data size, the scale value, the memory limit and the settings for `request` (pure).
 * Throws LikeArticleError naming what is wrong: a size that does not parse, one that would scale
 * the memory or a setting below its floor, a memory limit above this machine's memory, a value
 * outside the parameter's bounds.
 */
export function planLikeArticle(
  scenario: Pick<LoadedScenario, 'doc' | 'published'>,
  request: LikeArticleRequest,
  host: Host,
): LikeArticlePlan {
  const { doc } = scenario;
  const c = doc.article_conditions;
  if (!c)
    throw new LikeArticleError(
      `scenario ${doc.key} states no article conditions (article_conditions in its scenario.yaml), so --like-article has nothing to reproduce; --envelope, --set and --param set conditions by hand`,
    );
  const machine = machineOf(doc, request.machine);
  // The loader checked that published.json describes every listed machine.
  const published = scenario.published?.file.hardware?.find((m) => m.id === machine.hardware) ?? null;
  if (!published && machine.label === undefined)
    throw new LikeArticleError(`published.json of ${doc.key} describes no machine ${machine.hardware}`);
  const sizeText = request.size ?? c.default_size;
  const dataBytes = parseSizeText(sizeText);
  if (dataBytes === null || dataBytes <= 0)
    throw new LikeArticleError(
      `--like-article-size ${sizeText}: expected a size with its unit, e.g. 256MB or 1GB (binary units, as in postgresql.conf)`,
    );
  // The smallest data size that keeps every ratio above the floor of what it sizes.
  const floors = [
    ...(machine.data_to_memory !== undefined
      ? [{ what: 'the memory limit', ratio: 1 / machine.data_to_memory, floor: MIN_ENVELOPE_MEMORY_BYTES }]
      : []),
    ...Object.entries(machine.settings_to_data).map(([name, ratio]) => ({
      what: name,
      ratio,
      floor: ownValue(SETTING_FLOORS, name) ?? 8 * KIB,
    })),
    // A parameter scaled with the data stays at or above its declared minimum.
    ...Object.entries(machine.params_to_data).map(([name, { ratio, unit }]) => {
      const d = ownValue(doc.params, name);
      const min = d?.type === 'integer' ? (d.min ?? 1) : 1;
      return { what: name, ratio, floor: Math.max(1, min) * paramUnitBytes(unit) };
    }),
  ];
  const smallest = Math.max(...floors.map((f) => Math.ceil(f.floor / f.ratio / MIB) * MIB));
  const below = floors.find((f) => dataBytes * f.ratio < f.floor);
  if (below)
    throw new LikeArticleError(
      `--like-article-size ${sizeText}: too small to keep the article's ratios — ${below.what} would be ${formatSize(dataBytes * below.ratio)}, below its minimum of ${formatSize(below.floor)}; give at least ${formatSize(smallest)}`,
    );
  const memoryBytes =
    machine.data_to_memory === undefined ? null : Math.round(dataBytes / machine.data_to_memory / MIB) * MIB;
  if (memoryBytes !== null && machine.data_to_memory !== undefined && memoryBytes > host.memoryBytes)
    throw new LikeArticleError(
      `--like-article-size ${sizeText}: the memory limit would be ${formatSize(memoryBytes)}, more than the ${formatSize(host.memoryBytes)} this machine has; give at most ${formatSize(Math.floor(host.memoryBytes * machine.data_to_memory))}`,
    );
  const param = c.param;
  const value = Math.max(1, Math.round(dataBytes / c.bytes_per_unit));
  const def = ownValue(doc.params, param);
  if (
    def?.type === 'integer' &&
    ((def.min !== undefined && value < def.min) || (def.max !== undefined && value > def.max))
  )
    throw new LikeArticleError(
      `--like-article-size ${sizeText} is ${param}=${count(value)}, outside ${doc.key}'s bounds for ${param} (${def.min ?? '…'} to ${def.max ?? '…'})`,
    );
  const scaled = Object.fromEntries(
    Object.entries(machine.settings_to_data).map(([name, ratio]) => [name, settingValueOf(dataBytes * ratio)]),
  );
  const scaledParams = Object.entries(machine.params_to_data).map(([name, { ratio, unit }]) => {
    const v = Math.max(1, Math.round((dataBytes * ratio) / paramUnitBytes(unit)));
    const d = ownValue(doc.params, name);
    if (d?.type === 'integer' && d.max !== undefined && v > d.max)
      throw new LikeArticleError(
        `--like-article-size ${sizeText} makes ${name}=${count(v)}, above ${doc.key}'s maximum of ${count(d.max)}`,
      );
    return [name, String(v)] as const;
  });
  const params = {
    ...Object.fromEntries(Object.entries(c.params).map(([k, v]) => [k, String(v)])),
    ...Object.fromEntries(scaledParams),
  };
  const article = Object.fromEntries(
    Object.entries(doc.settings.expect)
      .filter(([name]) => ownValue(scaled, name) === undefined)
      .map(([name, v]) => [name, String(v)]),
  );
  return {
    machine,
    published,
    param,
    dataBytes,
    value,
    memoryBytes,
    scaled,
    params,
    scaledParams: scaledParams.map(([name]) => name),
    article,
  };
}

/** The I/O limit for the article's tier on a disk of tier `here` (null: not measured here). */
export function ioLimitFor(
  article: StorageTier,
  here: StorageTier | null,
): { limit: Envelope | null; reproduced: boolean; words: string } {
  const tier = `disk tier ${STORAGE_TIER_LABELS[article]}`;
  if (here === null)
    return { limit: null, reproduced: false, words: `${tier} (this disk's tier could not be measured)` };
  const a = TIER_ORDER.indexOf(article);
  const h = TIER_ORDER.indexOf(here);
  const measured = `this disk measures ${STORAGE_TIER_LABELS[here]}`;
  if (a === h) return { limit: null, reproduced: true, words: `${tier} (${measured}; no I/O limit)` };
  if (a > h) return { limit: null, reproduced: false, words: `${tier} (${measured}, slower)` };
  const limit = TIER_THROTTLES[article]!;
  return { limit, reproduced: true, words: `${tier} (${measured}, throttled to ${describeLimit(limit)})` };
}

function describeLimit(e: Envelope): string {
  const parts = [
    e.readIops !== undefined ? `${count(e.readIops)} reads/s` : '',
    e.writeIops !== undefined ? `${count(e.writeIops)} writes/s` : '',
    e.readBps !== undefined ? `${e.readBps / 1e6} MB/s of reads` : '',
    e.writeBps !== undefined ? `${e.writeBps / 1e6} MB/s of writes` : '',
  ];
  return parts.filter(Boolean).join(', ');
}

/** What --like-article chose, ready for the run: `--param`, `--envelope`, `--set`, the line and the note. */
export type LikeArticleChoice = {
  params: Record<string, string>;
  envelope: Envelope;
  settings: Record<string, string>;
  /** Printed before the run. */
  line: string;
  note: RunNote;
  /** The article machine's disk tier, which the probe inside the envelope should measure. */
  articleTier: StorageTier;
};

/**
 * After a `--like-article` run: a sentence when the probe inside the envelope measured another
 * disk tier than the article's (a throttle that did not bite, a disk slower than planned), null
 * when it measured the article's tier. The run's class names the tier it measured, so its answers
 * already say which condition was not reproduced; this says it at once.
 */
export function tierCheck(articleTier: StorageTier, measured: MeasuredHardware | undefined): string | null {
  const tier = measured ? storageTierOf(measured) : null;
  if (tier === articleTier) return null;
  const got = tier ? STORAGE_TIER_LABELS[tier] : 'no tier (the probe inside the envelope did not measure the disk)';
  return `--like-article: the probe inside the envelope measured ${got}, not the article's ${STORAGE_TIER_LABELS[articleTier]}: this run does not reproduce the article's disk, and its answers say so`;
}

/** The choice from a plan, this disk's tier and this machine's cores (pure). */
export function chooseLikeArticle(plan: LikeArticlePlan, here: StorageTier | null, host: Host): LikeArticleChoice {
  const { machine, published } = plan;
  const io = ioLimitFor(machine.storage_tier, here);
  const articleData = parseSizeText(machine.data_size)!;
  const table = `a ${formatSize(plan.dataBytes)} table, ${plan.param}=${count(plan.value)}`;
  const reproduced = [
    machine.data_to_memory !== undefined && plan.memoryBytes !== null
      ? `data:memory ${ratioText(machine.data_to_memory)} (${table}, in a ${formatSize(plan.memoryBytes)} memory limit)`
      : `the data (${table})`,
    ...Object.entries(machine.settings_to_data).map(
      ([name, ratio]) => `${name}:data ${ratioText(ratio)} (${name}=${plan.scaled[name]})`,
    ),
    ...Object.entries(machine.params_to_data).map(
      ([name, { ratio }]) => `${name}:data ${ratioText(ratio)} (${name}=${plan.params[name]})`,
    ),
  ];
  if (io.reproduced) reproduced.push(io.words);
  const notReproduced: string[] = [];
  if (!io.reproduced) notReproduced.push(io.words);
  if (!published) notReproduced.push(`cores and memory (the article does not state them)`);
  else if (published.cpu_cores !== host.cores)
    notReproduced.push(`${published.cpu_cores} cores (this machine has ${host.cores})`);
  // The absolute size is reproduced only by running at it.
  if (Math.abs(plan.dataBytes / articleData - 1) > 0.05)
    notReproduced.push(`absolute size ${formatSize(articleData)} (here ${formatSize(plan.dataBytes)})`);
  const articleSettings = Object.entries(plan.article).map(([k, v]) => `${k}=${v}`);
  const articleParams = Object.entries(plan.params)
    .filter(([k]) => !plan.scaledParams.includes(k))
    .map(([k, v]) => `${k}=${v}`);
  const who = published
    ? `the article's ${published.id} (${published.label ?? `${published.cpu_cores} cores, ${published.memory_gb} GB RAM, ${published.disk}`})`
    : `the article's machine (${machine.label ?? machine.hardware})`;
  const text = `${who}: reproduces ${reproduced.join(', ')}${articleSettings.length ? `; the article's settings ${articleSettings.join(', ')}` : ''}${articleParams.length ? `; the article's parameters ${articleParams.join(', ')}` : ''}; not reproduced: ${notReproduced.join(', ') || 'nothing'}`;
  return {
    params: { [plan.param]: String(plan.value), ...plan.params },
    envelope: { ...(plan.memoryBytes !== null ? { memoryBytes: plan.memoryBytes } : {}), ...(io.limit ?? {}) },
    settings: { ...plan.scaled, ...plan.article },
    line: `like ${text}`,
    note: { kind: 'like-article', text: `emulated like ${text}` },
    articleTier: machine.storage_tier,
  };
}

/** The options --like-article chooses that the user also gave: each is a clash (exit 2). */
export function likeArticleClashes(
  plan: Pick<LikeArticlePlan, 'param' | 'scaled' | 'article' | 'params' | 'scaledParams'>,
  given: { params: Record<string, string>; settings?: Record<string, string>; envelope: boolean },
): string[] {
  const clashes: string[] = [];
  if (given.envelope) clashes.push('--envelope (--like-article chooses the envelope)');
  if (ownValue(given.params, plan.param) !== undefined)
    clashes.push(`--param ${plan.param} (--like-article chooses it from the data size; --like-article-size sets that)`);
  // The article's own parameter values (article_conditions.params) are defaults a --param may change.
  for (const name of plan.scaledParams)
    if (ownValue(given.params, name) !== undefined)
      clashes.push(`--param ${name} (--like-article scales it with the data)`);
  for (const name of Object.keys(given.settings ?? {}))
    if (ownValue(plan.scaled, name) !== undefined)
      clashes.push(`--set ${name} (--like-article scales it with the data)`);
    else if (ownValue(plan.article, name) !== undefined)
      clashes.push(`--set ${name} (--like-article sets the article's value, ${plan.article[name]})`);
  return clashes;
}

/** This machine's memory and the cores its class names (physical, as the hardware probe counts them). */
export async function hostFacts(): Promise<Host> {
  const cpu = await si.cpu();
  return { memoryBytes: os.totalmem(), cores: Math.max(1, cpu.physicalCores || cpu.cores) };
}

/**
 * Where cgroups cannot be used --like-article cannot run: said before anything is measured
 * (exit 7, as `--envelope`), never an unconstrained run instead.
 */
export function checkRootForEnvelope(): void {
  if (process.getuid?.() !== 0)
    throw new EnvelopeUnavailable(
      '--like-article runs the server inside an envelope, which limits it with cgroups and needs root; the runner is not root',
    );
}

/**
 * This disk's tier, measured outside any envelope on the filesystem the server's data directory
 * goes to (the probe of `tunelab probe`, ~4 s), and kept stable by the probe history
 * (probe/tier-history.ts: a loaded moment does not move it); TUNELAB_STORAGE_TIER sets it instead,
 * without measuring.
 */
export async function measureTierHere(
  dir: string,
  config: TierConfig,
  warn: (w: string) => void,
): Promise<{ tier: StorageTier | null; words: string }> {
  if (config.storageTier)
    return {
      tier: config.storageTier,
      words: `${dir} not measured: ${STORAGE_TIER_LABELS[config.storageTier]} set by TUNELAB_STORAGE_TIER`,
    };
  const m = await measureHardware({ dir });
  const measured = storageTierOf(m);
  const { tier, reason } = tierOfProbe(dir, m, config, warn);
  return {
    tier,
    words: `${dir} measured ${measured ? STORAGE_TIER_LABELS[measured] : 'no tier'} (${m.readIopsQd1 === null ? 'random reads not measured' : `${count(Math.round(m.readIopsQd1))} random reads/s at queue depth 1`}, ${m.diskTool}, ${(m.durationMs / 1000).toFixed(1)} s); tier ${reason}`,
  };
}
