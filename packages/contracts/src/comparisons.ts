import { z } from 'zod';
import { StorageKind } from './hardware.ts';
import { Engine } from './database.ts';
import { identifier, isoDateTime, List, pageLimit, ParamValues, sha256Hex } from './primitives.ts';
import { SweepPoint } from './run.ts';
import { NoiseCounts, NoisyPolicy } from './noise.ts';
import { LeftOut } from './left-out.ts';
import { StorageTier } from './measured-hardware.ts';
import {
  checkSimilarSpec,
  machineCores,
  machineMemoryGb,
  RankedMachine,
  SimilarBasis,
  SimilarFigures,
  similarFigureParams,
  similarParamsOfProbe,
  SimilarStorage,
  type ProbeReport,
} from './similar-hardware.ts';

// ─── Queries ─────────────────────────────────────────────────────────────────────────────────
// Querystrings arrive as text: numbers are coerced, every key is bounded, unknown keys are refused.

export const ComparisonSource = z.enum(['measured', 'published', 'all']);
export type ComparisonSource = z.infer<typeof ComparisonSource>;
export const GroupBy = z.enum(['hardware', 'class']);
export type GroupBy = z.infer<typeof GroupBy>;
export const MetricDirection = z.enum(['lower-is-better', 'higher-is-better']);
export type MetricDirection = z.infer<typeof MetricDirection>;
/** The direction a response used: a goal's, or `descriptive` for a metric that is not a goal (no verdict). */
export const UsedDirection = z.enum(['lower-is-better', 'higher-is-better', 'descriptive']);
export type UsedDirection = z.infer<typeof UsedDirection>;
/** Where the direction came from: the `direction` query parameter, the scenario's metric (`better`), or the default for a metric the scenario does not declare. */
export const DirectionSource = z.enum(['query', 'scenario', 'default']);
export type DirectionSource = z.infer<typeof DirectionSource>;

const cores = z.coerce.number().int().min(1).max(4096);
const memoryGb = z.coerce.number().int().min(0).max(1_048_576);
const MAX_MAJORS = 20;
/** "17" or "14,17": distinct whole majors, at most 20. */
const majors = z
  .string()
  .max(200)
  .transform((text, ctx) => {
    const parts = text.split(',').map((p) => p.trim());
    const out: number[] = [];
    for (const p of parts) {
      const n = /^\d{1,4}$/.test(p) ? Number(p) : NaN;
      if (!Number.isInteger(n) || n > 1000) {
        ctx.addIssue({
          code: 'custom',
          message: `must be engine major versions separated by commas (e.g. 14,17); "${p}" is not one`,
        });
        return z.NEVER;
      }
      if (!out.includes(n)) out.push(n);
    }
    if (out.length > MAX_MAJORS) {
      ctx.addIssue({ code: 'custom', message: `at most ${MAX_MAJORS} majors` });
      return z.NEVER;
    }
    return out.sort((a, b) => a - b);
  });

/** Which server and hardware the samples come from: filters shared by comparisons, findings and answers. */
export const serverAndHardwareFilters = {
  engine: Engine.optional(),
  /** One engine major or several ("14,17"): only those majors' samples (and so groups, and versions put side by side). */
  major: majors.optional(),
  storage: StorageKind.optional(),
  minCores: cores.optional(),
  maxCores: cores.optional(),
  minMemoryGb: memoryGb.optional(),
  maxMemoryGb: memoryGb.optional(),
  hardware: sha256Hex.optional(),
  /** Only samples measured at this sweep point value (e.g. `point=4` for 4 virtual users). */
  point: z.coerce.number().finite().optional(),
  /** Runs flagged noisy (contracts' judgeNoise): `include` (the API's default when absent) pools and counts them, `exclude` leaves them out. */
  noisy: NoisyPolicy.optional().describe(
    'Runs flagged noisy (CPU steal, load per core, timer lateness or probe spread above the documented thresholds): include (default on the API) pools them and counts them in `noise`; exclude leaves them out and counts them as excluded. The report site defaults to exclude.',
  ),
};

/** Filters shared by comparisons and findings: which samples take part. */
const filterShape = {
  scenario: identifier.optional(),
  /** Absent: the scenario's primary metric (`report.primary_metric`, as answers use) with `scenario`, else `duration`. */
  metric: identifier.optional(),
  ...serverAndHardwareFilters,
  /** measured (default), published (figures imported from articles), or all (side by side, never pooled). */
  source: ComparisonSource.default('measured'),
  groupBy: GroupBy.default('hardware'),
  /** Overrides the metric's declared direction (scenario.yaml `better`); absent: the scenario's. */
  direction: MetricDirection.optional(),
};

/** min ≤ max for the cores and memory filters, else an issue naming the max. */
export function checkRanges(
  q: { minCores?: number; maxCores?: number; minMemoryGb?: number; maxMemoryGb?: number },
  ctx: z.RefinementCtx,
) {
  if (q.minCores !== undefined && q.maxCores !== undefined && q.minCores > q.maxCores) {
    ctx.addIssue({ code: 'custom', path: ['maxCores'], message: 'must be at least minCores' });
  }
  if (q.minMemoryGb !== undefined && q.maxMemoryGb !== undefined && q.minMemoryGb > q.maxMemoryGb) {
    ctx.addIssue({ code: 'custom', path: ['maxMemoryGb'], message: 'must be at least minMemoryGb' });
  }
}

export const ComparisonQuery = z
  .strictObject({
    ...filterShape,
    /** Compare exactly this pair (both or neither); otherwise the declared pairs, else every pair. */
    baseline: identifier.optional(),
    candidate: identifier.optional(),
  })
  .superRefine((q, ctx) => {
    checkRanges(q, ctx);
    if ((q.baseline === undefined) !== (q.candidate === undefined)) {
      ctx.addIssue({
        code: 'custom',
        path: [q.baseline === undefined ? 'baseline' : 'candidate'],
        message: 'baseline and candidate go together',
      });
    }
    if (q.baseline !== undefined && q.baseline === q.candidate) {
      ctx.addIssue({ code: 'custom', path: ['candidate'], message: 'must differ from baseline' });
    }
  });
export type ComparisonQuery = z.infer<typeof ComparisonQuery>;

export const FindingsQuery = z
  .strictObject({
    ...filterShape,
    limit: pageLimit(500, 50),
  })
  .superRefine(checkRanges);
export type FindingsQuery = z.infer<typeof FindingsQuery>;

/** The filter and page every "hardware like …" query takes. */
export const SimilarHardwareQuery = z.strictObject({
  scenario: identifier.optional(),
  /** Default all: every item is one source, so nothing is pooled. */
  source: ComparisonSource.default('all'),
  limit: pageLimit(200, 20),
});
export type SimilarHardwareQuery = z.infer<typeof SimilarHardwareQuery>;

/**
 * "Hardware like mine" for a machine that is not stored: its spec, and optionally its probe's
 * figures (the names `tunelab probe --json` prints). `storage` may be left out when `readIopsQd1`
 * is given: the tier of the figures stands for it.
 */
export const SimilarBySpecQuery = z
  .strictObject({
    cores: machineCores,
    memoryGb: machineMemoryGb,
    storage: SimilarStorage.optional(),
    ...similarFigureParams,
    ...SimilarHardwareQuery.shape,
  })
  .superRefine(checkSimilarSpec);
export type SimilarBySpecQuery = z.infer<typeof SimilarBySpecQuery>;

/** POST /v1/similar's query: the body (`tunelab probe --json`) gives the figures; these override its machine. */
export const SimilarByProbeQuery = z.strictObject({
  cores: machineCores.optional(),
  memoryGb: machineMemoryGb.optional(),
  storage: SimilarStorage.optional(),
  ...SimilarHardwareQuery.shape,
});
export type SimilarByProbeQuery = z.infer<typeof SimilarByProbeQuery>;

/**
 * A probe's JSON and POST /v1/similar's query as the query GET /v1/similar would take, or the
 * fields that are missing or wrong (by their query-parameter name).
 */
export function similarQueryOfProbe(
  report: ProbeReport,
  q: SimilarByProbeQuery,
): { ok: true; query: SimilarBySpecQuery } | { ok: false; errors: { field: string; message: string }[] } {
  const { scenario, source, limit, ...over } = q;
  const params = similarParamsOfProbe(report, over);
  const errors: { field: string; message: string }[] = [];
  for (const field of ['cores', 'memoryGb'] as const)
    if (params[field] === undefined)
      errors.push({
        field,
        message: `required: the probe's JSON has no machine (a runner before this one did not print it), so give ?${field}=`,
      });
  if (errors.length > 0) return { ok: false, errors };
  const parsed = SimilarBySpecQuery.safeParse({ ...params, source, limit, ...(scenario ? { scenario } : {}) });
  if (parsed.success) return { ok: true, query: parsed.data };
  return {
    ok: false,
    errors: parsed.error.issues.map((i) => ({
      field: i.path.map(String).join('/'),
      message:
        i.path[0] === 'storage'
          ? 'required: the probe measured no random reads (no tier) and its machine’s storage kind is unknown, so give ?storage='
          : i.message,
    })),
  };
}

// ─── Responses ───────────────────────────────────────────────────────────────────────────────

/** An interval; an end is null when it is unbounded (JSON has no ∞). */
export const Bounds = z.object({ low: z.number().nullable(), high: z.number().nullable() });
export type Bounds = z.infer<typeof Bounds>;

/** A range with both ends known: a spread over pairs, or a slope's interval. */
export const Range = z.object({ low: z.number(), high: z.number() });

/** The declared pair a record is about: `candidate` held against `baseline` (variant keys). */
export const variantPair = { baseline: z.string(), candidate: z.string() };

export const VariantSummary = z.object({
  variant: z.string(),
  n: z.number().int(),
  mean: z.number(),
  median: z.number(),
  sd: z.number().nullable(),
  se: z.number().nullable(),
  /** Coefficient of variation sd / mean. */
  cv: z.number().nullable(),
  ci95: Bounds.nullable(),
  min: z.number(),
  max: z.number(),
  /** Values with |modified z| > 3.5 (Iglewicz & Hoaglin), with the run they came from. */
  outliers: z.array(z.object({ value: z.number(), runId: z.uuid(), repetition: z.number().int() })),
});
export type VariantSummary = z.infer<typeof VariantSummary>;

export const VerdictKind = z.enum([
  'faster',
  'slower',
  'no-significant-difference',
  'insufficient-data',
  'descriptive',
]);

export const PairComparison = z.object({
  ...variantPair,
  direction: UsedDirection,
  /** mean(candidate) − mean(baseline), in the metric's unit; null with insufficient data. */
  difference: z.number().nullable(),
  /**
   * Welch interval of `difference`, in the metric's unit, at the level of `ci95` (95%, or
   * 1 − 0.05/family: see `adjusted`); null without a verdict.
   */
  differenceCi95: Bounds.nullable(),
  /**
   * Improvement of the candidate over the baseline in the metric's direction, as a fraction of
   * the baseline mean (0.375 = 37.5% faster), with its interval (log scale when every value is
   * > 0, else Fieller) at 95%, or at 1 − 0.05/family when the scenario declares several decisions
   * (`adjusted.family`; the field keeps its name). Null when the baseline mean is ≤ 0: the
   * absolute difference decides then.
   */
  improvement: z.number().nullable(),
  ci95: Bounds.nullable(),
  /** Welch's test; `p` is the raw two-sided p-value. */
  welch: z.object({ t: z.number().nullable(), df: z.number(), p: z.number() }).nullable(),
  /**
   * The p that decided the verdict, Bonferroni-adjusted (min(1, p × family)) over the `family`
   * decisions that share alpha: the scenario version's declared pairs (else the group's pairs) ×
   * the sweep points of one group of conditions (scenario version, hardware class, engine major,
   * parameter values, metric) of measured runs; an article's groups are not adjusted (family 1).
   * Without blocks p is that of the test `ci95` inverts (t on the log ratio of means, else on the
   * difference) and `ci95` is at level 1 − 0.05/family, so the verdict is a change exactly when
   * `ci95` excludes none; with blocks, the confidence sequence's (see `paired`). Null when the
   * pair has no test.
   */
  adjusted: z.object({ method: z.enum(['holm', 'bonferroni']), p: z.number(), family: z.number().int() }).nullable(),
  /**
   * Where every run of the group measured in blocks (samples with a position): the paired,
   * sequential analysis that decides the verdict, and `improvement`, `ci95` and `adjusted` are
   * its figures (`adjusted` = Bonferroni over `family`). Within-block log ratios ln(candidate /
   * baseline), their always-valid confidence sequence at level 1 − 0.05/`family` (stats'
   * sequential.ts), decided against the scenario's `margin`. Absent or null for runs from before
   * blocks, which keep Welch's independent-samples answer.
   */
  paired: z
    .object({
      method: z.literal('confidence-sequence'),
      decision: z.enum(['differs', 'equivalent', 'undecided', 'unstable']),
      blocks: z.number().int(),
      runs: z.number().int(),
      /** Declared pairs × sweep points of the scenario version: the decisions that share alpha. */
      family: z.number().int(),
      margin: z.number(),
      /** Geometric-mean ratio candidate / baseline and its interval (null: unbounded). */
      ratio: z.number(),
      ratioCi: Bounds,
      /** Block-to-block sd of the log ratios: the pair's noise on this hardware. */
      sdLogRatio: z.number(),
      /** The smallest relative change this evidence could tell from none; null: none yet. */
      detectable: z.number().nullable(),
      eValue: z.number(),
      /** Always-valid p against no change (raw). */
      p: z.number(),
    })
    .nullable()
    .optional(),
  mannWhitney: z.object({ u: z.number(), p: z.number(), method: z.enum(['asymptotic', 'exact']) }).nullable(),
  /**
   * `faster` / `slower` = significantly better / worse in the metric's direction (the sentence
   * says "lower" / "higher" for sizes and counts). `conclusive`: significant, or not significant
   * with the 95% interval of the change within ±10%; false = not enough repetitions to be sure.
   */
  verdict: z.object({ kind: VerdictKind, sentence: z.string(), significant: z.boolean(), conclusive: z.boolean() }),
});
export type PairComparison = z.infer<typeof PairComparison>;

export const GroupHardware = z.object({
  /** Hardware class ("8 cores / 32 GB / SSD"); with groupBy=hardware also the exact machine. */
  class: z.string(),
  fingerprint: sha256Hex.nullable(),
  cpuModel: z.string().nullable(),
  storageKind: StorageKind,
  physicalCores: z.number().int(),
  memoryGb: z.number().int(),
  profiles: z.number().int(),
  /** False for an article's machine the article never described: cores, memory and storage are placeholders, not hardware. */
  stated: z.boolean(),
});

export const ComparisonGroup = z.object({
  /** scenario@version/source/hardware-or-class/metric[unit], then @param=value at a sweep point: two scenario versions never share a group. */
  key: z.string(),
  scenario: z.object({ key: z.string(), version: z.string() }),
  source: z.enum(['measured', 'published']),
  hardware: GroupHardware,
  metric: z.string(),
  unit: z.string(),
  /** The sweep point of the group's samples (a swept scenario gets one group per point). */
  point: SweepPoint.optional(),
  /** The parameter values every run of the group shares (the swept one is `point`): runs at other values are other groups. */
  params: ParamValues,
  /** Engine and major version every run of the group shares. */
  engine: z.object({ engine: Engine, major: z.number().int() }),
  /** Per setting the scenario calls relevant (report.relevant_settings), the values its runs had (absent = server default). */
  settings: z.record(z.string(), z.array(z.string())),
  /** Database servers the group's runs used (a group is not split by them; check before trusting it). */
  databaseVersions: z.array(
    z.object({
      engine: Engine,
      version: z.string(),
      major: z.number().int(),
      minor: z.number().int(),
      runs: z.number().int(),
    }),
  ),
  runCount: z.number().int(),
  /**
   * The runners (tokens) whose runs the group holds; runs without one (imported articles) are not
   * counted. A class or server version one runner stands behind is one machine owner's word.
   */
  runners: z.number().int().min(0),
  newestRunAt: isoDateTime,
  /** The newest runs behind the group (at most 100). */
  runs: z.array(z.object({ id: z.uuid(), receivedAt: isoDateTime, link: z.string() })),
  variants: z.array(VariantSummary),
  /** `declared` = the scenario version's own pairs, `query` = baseline/candidate, `all-pairs` = every two variants. */
  pairsFrom: z.enum(['query', 'declared', 'all-pairs']),
  comparisons: z.array(PairComparison),
  /** The group's own warnings (pooling, overflow) and, once each, the warnings its runs carry. */
  warnings: z.array(z.string()),
  /** How many of the group's runs were flagged noisy, recorded no noise, or were left out as noisy. */
  noise: NoiseCounts,
});
export type ComparisonGroup = z.infer<typeof ComparisonGroup>;

export const ComparisonResult = z.object({
  metric: z.string(),
  source: ComparisonSource,
  groupBy: GroupBy,
  direction: UsedDirection,
  directionFrom: DirectionSource,
  groups: z.array(ComparisonGroup),
  /** Over every group: distinct runs drawn on, flagged noisy, without noise figures, left out as noisy. */
  noise: NoiseCounts,
});
export type ComparisonResult = z.infer<typeof ComparisonResult>;

export const Finding = z.object({
  scenario: z.object({ key: z.string(), version: z.string() }),
  group: z.string(),
  source: z.enum(['measured', 'published']),
  hardwareClass: z.string(),
  fingerprint: sha256Hex.nullable(),
  metric: z.string(),
  point: SweepPoint.optional(),
  ...variantPair,
  kind: VerdictKind,
  sentence: z.string(),
  newestRunAt: isoDateTime,
  runs: z.array(z.string()),
  links: z.object({ comparison: z.string() }),
  /** Set when the finding's group does not count towards the verdict (every run of it left out), with why. */
  leftOut: LeftOut.optional(),
});
export type Finding = z.infer<typeof Finding>;
export const FindingList = List(Finding);
export type FindingList = z.infer<typeof FindingList>;

/** What ranks a machine or a class for "hardware like mine": its class, storage, size and probe figures. */
const SimilarSubject = z.object({
  class: z.string(),
  storageKind: StorageKind,
  /** The tier the first probe measured; null when none was probed. */
  storageTier: StorageTier.nullable(),
  /** The storage it was ranked as: its kind when the kernel (or --storage) knew it, else its tier's. */
  storage: SimilarStorage,
  physicalCores: z.number().int(),
  memoryGb: z.number().int(),
  /** The median of its probes (a class's: of its runs counted here); null when none was probed. */
  figures: SimilarFigures.nullable(),
  /** How many probes `figures` is the median of. */
  probes: z.number().int(),
});

export const SimilarHardwareGroup = SimilarSubject.extend({
  source: z.enum(['measured', 'published']),
  sameStorage: z.boolean(),
  /**
   * Mean |log2 ratio| over `basis` (the figures both the machine and the class have): 0 = the same,
   * 1 = on average one doubling apart per figure.
   */
  distance: z.number(),
  basis: z.array(SimilarBasis),
  profiles: z.number().int(),
  runs: z.number().int(),
  scenarios: z.array(z.string()),
  newestRunAt: isoDateTime,
  links: z.object({ comparisons: z.string() }),
});
export const SimilarHardware = z.object({
  machine: SimilarSubject.extend({ fingerprint: sha256Hex }),
  items: z.array(SimilarHardwareGroup),
});
export type SimilarHardware = z.infer<typeof SimilarHardware>;

export const SimilarBySpec = z.object({
  spec: RankedMachine,
  /** False when no class has the same known storage within a mean of one doubling per figure: the items are then the nearest, not alike. */
  like: z.boolean(),
  items: z.array(SimilarHardwareGroup),
});
export type SimilarBySpec = z.infer<typeof SimilarBySpec>;
