import { z } from 'zod';
import { boundedString, sha256Hex } from './primitives.ts';
import { HardwareSpec, StorageKind } from './hardware.ts';
import { FIGURE_RANGES, MeasuredHardware, StorageTier, storageTierOf } from './measured-hardware.ts';

/**
 * "Hardware like mine" given by a user's own figures: the JSON `tunelab probe --json` prints (the
 * body of POST /v1/similar, pasted into the site's picker) and the figures as query parameters
 * (GET /v1/similar). How the classes are ranked is `@tunelab/answers/similar`.
 */

const GIB = 1024 ** 3;

/** The machine `tunelab probe --json` ran on: cores, memory, and the storage kind the kernel's flags give the directory. */
export const ProbeMachine = z.strictObject({
  physicalCores: HardwareSpec.shape.physicalCores,
  memoryBytes: HardwareSpec.shape.memoryBytes,
  storageKind: StorageKind,
});
export type ProbeMachine = z.infer<typeof ProbeMachine>;

/**
 * What `tunelab probe --json` prints: the probe's figures (MeasuredHardware), the directory it
 * measured, the tier it derived and the machine. `directory`, `tier` and `machine` are optional so
 * that figures written by hand, or printed by a runner before `machine` was added, are accepted;
 * the tier is always derived again from the figures (`storageTierOf`), never taken from the text.
 */
export const ProbeReport = MeasuredHardware.extend({
  directory: boundedString(4096).optional(),
  tier: StorageTier.nullable().optional(),
  machine: ProbeMachine.optional(),
});
export type ProbeReport = z.infer<typeof ProbeReport>;

/** The storage a machine is ranked as: a kind, network-ssd (a measured tier no kernel flag names), or unknown. */
export const SimilarStorage = z.enum(['ssd', 'hdd', 'nvme', 'network-ssd', 'unknown']);
export type SimilarStorage = z.infer<typeof SimilarStorage>;

const figure = (range: { min: number; max: number }, what: string) =>
  z.coerce.number().min(range.min).max(range.max).optional().describe(what);

/** A user's probe figures as query parameters: the names `tunelab probe --json` prints. */
export const similarFigureParams = {
  fsyncP50Us: figure(
    FIGURE_RANGES.fsyncUs,
    'fsync latency of an 8 kB write, p50, in µs (tunelab probe --json: fsyncP50Us)',
  ),
  readIopsQd1: figure(FIGURE_RANGES.iops, 'random 8 kB reads per second with O_DIRECT at queue depth 1 (readIopsQd1)'),
  readIopsQd16: figure(
    FIGURE_RANGES.iops,
    'the same at queue depth 16 (readIopsQd16): only tells NVMe-like from SSD-like',
  ),
  seqWriteMBps: figure(FIGURE_RANGES.mbps, 'sequential write MB/s, until durable (seqWriteMBps)'),
  cpuScore: figure(
    FIGURE_RANGES.cpuScore,
    'single-core CPU score (cpuScore); compared only with scores of the same cpuWorkload',
  ),
  cpuWorkload: boundedString(64)
    .optional()
    .describe('the workload the CPU score was measured with, e.g. tunelab-cpu-1/node-20 (cpuWorkload)'),
};
type FigureParams = { [K in keyof typeof similarFigureParams]?: z.infer<(typeof similarFigureParams)[K]> };

/** A machine's physical cores and memory in whole GB, as query parameters (GET /v1/similar, GET /v1/answers). */
export const machineCores = z.coerce.number().int().min(1).max(4096);
export const machineMemoryGb = z.coerce.number().int().min(1).max(1_048_576);

/**
 * Storage, or random reads whose tier stands for it; a CPU score with its workload. `storageField`
 * names the parameter the storage came in (GET /v1/answers calls it `machineStorage`).
 */
export function checkSimilarSpec(
  q: FigureParams & { storage?: SimilarStorage },
  ctx: z.RefinementCtx,
  storageField = 'storage',
): void {
  if (q.storage === undefined && q.readIopsQd1 === undefined)
    ctx.addIssue({
      code: 'custom',
      path: [storageField],
      message:
        'required (ssd, hdd, nvme, network-ssd or unknown), unless readIopsQd1 is given: its storage tier stands for it',
    });
  if (q.cpuScore !== undefined && q.cpuWorkload === undefined)
    ctx.addIssue({
      code: 'custom',
      path: ['cpuWorkload'],
      message:
        'required with cpuScore: scores of different workloads are not compared (tunelab probe --json prints it)',
    });
  if (q.cpuWorkload !== undefined && q.cpuScore === undefined)
    ctx.addIssue({ code: 'custom', path: ['cpuScore'], message: 'required with cpuWorkload' });
}

/** A class's or a machine's probe figures: per figure the median of its probes, the CPU score per workload. */
export const SimilarFigures = z.object({
  fsyncP50Us: z.number().nullable(),
  readIopsQd1: z.number().nullable(),
  seqWriteMBps: z.number().nullable(),
  cpu: z.array(z.object({ workload: z.string(), score: z.number() })),
});
export type SimilarFigures = z.infer<typeof SimilarFigures>;

/**
 * A machine as similar hardware ranks it, given or probed: GET /v1/similar's `spec` and the
 * answers' like-mine `machine` both say it so.
 */
export const RankedMachine = z.object({
  cores: z.number().int(),
  memoryGb: z.number().int(),
  /** The storage ranked against: the one given (or the probe machine's kernel kind), else the tier of the figures', else unknown. */
  storage: SimilarStorage,
  /** The tier the given random reads show; null without them. */
  storageTier: StorageTier.nullable(),
  /** The figures given; null when none. */
  figures: SimilarFigures.nullable(),
});

/** What a distance can rest on (see `@tunelab/answers/similar`). */
export const SimilarBasis = z.enum(['cores', 'memory', 'fsync', 'iops', 'mbps', 'cpu']);
export type SimilarBasis = z.infer<typeof SimilarBasis>;

/**
 * The machine a validated query describes, as the ranking takes it: cores, memory, the storage
 * given (unknown when none), the tier its random reads show (null without them) and its figures
 * (null when none was given). GET /v1/similar, POST /v1/similar and the site's picker all build
 * their machine with this.
 */
export function similarSpecOf(q: FigureParams & { cores: number; memoryGb: number; storage?: SimilarStorage }): {
  cores: number;
  memoryGb: number;
  storage: SimilarStorage;
  storageTier: StorageTier | null;
  figures: SimilarFigures | null;
} {
  const given = [q.fsyncP50Us, q.readIopsQd1, q.seqWriteMBps, q.cpuScore].some((x) => x !== undefined);
  return {
    cores: q.cores,
    memoryGb: q.memoryGb,
    storage: q.storage ?? 'unknown',
    storageTier:
      q.readIopsQd1 === undefined
        ? null
        : storageTierOf({
            readIopsQd1: q.readIopsQd1,
            readIopsQd16: q.readIopsQd16 ?? null,
            seqWriteMBps: q.seqWriteMBps ?? null,
          }),
    figures: given
      ? {
          fsyncP50Us: q.fsyncP50Us ?? null,
          readIopsQd1: q.readIopsQd1 ?? null,
          seqWriteMBps: q.seqWriteMBps ?? null,
          cpu:
            q.cpuScore !== undefined && q.cpuWorkload !== undefined
              ? [{ workload: q.cpuWorkload, score: q.cpuScore }]
              : [],
        }
      : null,
  };
}

/**
 * The query parameters (GET /v1/similar's names) a probe's JSON stands for: its figures, and from
 * `machine` the cores, the memory (whole GB, rounded as a hardware class rounds it) and the storage
 * kind when the kernel knew it. `over` (cores, memoryGb, storage given beside the JSON) wins.
 */
export function similarParamsOfProbe(
  report: Pick<
    ProbeReport,
    'fsyncP50Us' | 'readIopsQd1' | 'readIopsQd16' | 'seqWriteMBps' | 'cpuScore' | 'cpuWorkload'
  > &
    Pick<Partial<ProbeReport>, 'machine'>,
  over: { cores?: number; memoryGb?: number; storage?: SimilarStorage } = {},
): Record<string, string | number> {
  const m = report.machine;
  const out: Record<string, string | number | undefined> = {
    cores: over.cores ?? m?.physicalCores,
    memoryGb: over.memoryGb ?? (m ? Math.max(1, Math.round(m.memoryBytes / GIB)) : undefined),
    storage: over.storage ?? (m && m.storageKind !== 'unknown' ? m.storageKind : undefined),
    fsyncP50Us: report.fsyncP50Us ?? undefined,
    readIopsQd1: report.readIopsQd1 ?? undefined,
    readIopsQd16: report.readIopsQd16 ?? undefined,
    seqWriteMBps: report.seqWriteMBps ?? undefined,
    cpuScore: report.cpuScore ?? undefined,
    cpuWorkload: report.cpuScore === null ? undefined : report.cpuWorkload,
  };
  return Object.fromEntries(Object.entries(out).filter((e): e is [string, string | number] => e[1] !== undefined));
}

/**
 * "Hardware like mine" on GET /v1/answers: the asker's machine by GET /v1/similar's names and
 * parsing (`cores`, `memoryGb`, the probe's figures), except its storage, which is
 * `machineStorage` there because `storage` already filters the runs by storage kind; or `like`, a
 * stored machine's fingerprint (its figures the median of its probes, as
 * GET /v1/hardware/:fingerprint/similar ranks it). All optional: without them the answers are
 * what they always were.
 */
export const likeMineParams = {
  like: sha256Hex
    .optional()
    .describe("a stored machine's fingerprint: rank the groups by their class's distance to that machine"),
  cores: machineCores.optional().describe("your machine's physical cores (as GET /v1/similar)"),
  memoryGb: machineMemoryGb.optional().describe("your machine's memory in whole GB (as GET /v1/similar)"),
  machineStorage: SimilarStorage.optional().describe(
    "your machine's storage (GET /v1/similar's `storage`): ssd, hdd, nvme, network-ssd or unknown; may be left out when readIopsQd1 is given",
  ),
  ...similarFigureParams,
};
export type LikeMineParams = { [K in keyof typeof likeMineParams]?: z.infer<(typeof likeMineParams)[K]> };
const LIKE_MINE_KEYS = Object.keys(likeMineParams) as (keyof LikeMineParams)[];

/**
 * The rules of `likeMineParams`: none, or `like` alone, or `cores` and `memoryGb` with the rules of
 * GET /v1/similar (`checkSimilarSpec`, its storage named `machineStorage`).
 */
export function checkLikeMine(q: LikeMineParams, ctx: z.RefinementCtx): void {
  const given = LIKE_MINE_KEYS.filter((k) => q[k] !== undefined);
  if (given.length === 0) return;
  if (q.like !== undefined) {
    for (const k of given)
      if (k !== 'like')
        ctx.addIssue({
          code: 'custom',
          path: [k],
          message: 'not with like: the stored machine’s own probes give its figures',
        });
    return;
  }
  for (const k of ['cores', 'memoryGb'] as const)
    if (q[k] === undefined)
      ctx.addIssue({
        code: 'custom',
        path: [k],
        message: `required with your machine’s figures (${given.join(', ')}), as GET /v1/similar takes them; or like=<fingerprint>`,
      });
  checkSimilarSpec({ ...q, storage: q.machineStorage }, ctx, 'machineStorage');
}

/** The asker's machine a checked query names: none, a stored one's fingerprint, or the spec (`similarSpecOf`). */
export function likeMineOf(
  q: LikeMineParams,
): null | { fingerprint: string } | { spec: ReturnType<typeof similarSpecOf> } {
  if (q.like !== undefined) return { fingerprint: q.like };
  if (q.cores === undefined || q.memoryGb === undefined) return null;
  return { spec: similarSpecOf({ ...q, cores: q.cores, memoryGb: q.memoryGb, storage: q.machineStorage }) };
}

/** The query without the like-mine parameters: what the groups themselves are read with. */
export function withoutLikeMine<Q extends LikeMineParams>(q: Q): Omit<Q, keyof LikeMineParams> {
  const out: Record<string, unknown> = { ...q };
  for (const k of LIKE_MINE_KEYS) delete out[k];
  return out as Omit<Q, keyof LikeMineParams>;
}
