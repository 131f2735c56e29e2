import type { ManagedTargetOptions } from '../engines/managed-postgresql/provider.ts';
/**
 * Stage 1 — plan: everything decided from the scenario and the options before any connection:
 * parameters, sweep points, repetitions, the stopping rule, the target's driver, database names.
 * Every problem here is a UsageError and nothing exists yet on the target.
 */
import { randomUUID } from 'node:crypto';
import {
  ENGINE_FACTS,
  ownValue,
  resolveParams,
  type ParamValue,
  type ScenarioDocument,
  type SweepPoint,
} from '@tunelab/contracts';
import { DRIVERS, planTarget } from '../engines/index.ts';
import { UsageError } from '../errors.ts';
import type { LoadedScenario } from '@tunelab/scenarios';
import {
  DEFAULT_CV_THRESHOLD,
  DEFAULT_MAX_REPETITIONS,
  MIN_STARTING_REPETITIONS,
  type UntilStable,
  type UntilStableOptions,
} from './stopping.ts';
import type { RunOptions } from './types.ts';
import { MIN_BLOCKS, sequentialOf, type Sequential } from './sequential.ts';
import type { Envelope } from '../probe/envelope.ts';

/** "MySQL/MariaDB": the engines whose local servers the runner can put in an envelope. */
const enveloped = () =>
  DRIVERS.filter((d) => d.envelopesLocalServer)
    .flatMap((d) => d.engines.map((e) => ENGINE_FACTS[e].name))
    .join('/');

/** Everything a run creates on the target starts with this, so cleanup can find it. */
export const DATABASE_PREFIX = 'tunelab_';
export const runPrefix = (runId: string) => `${DATABASE_PREFIX}${runId.replaceAll('-', '').slice(0, 8)}_`;
export const appNameOf = (runId: string) => `tunelab-${runPrefix(runId).slice(DATABASE_PREFIX.length, -1)}`;
export const idempotencyKeyOf = (runId: string) => `tunelab-run-${runId}`;

export type RunPlan = {
  scenario: LoadedScenario;
  doc: ScenarioDocument;
  /** Resolved parameters; a swept one holds the first point (each unit gets its own value). */
  params: Record<string, ParamValue>;
  /** Submission params: a swept parameter is listed as `1,2,4` (as `--param` takes it). */
  submittedParams: Record<string, ParamValue>;
  /** The sweep points in run order; `[undefined]` when the scenario does not sweep. */
  points: (SweepPoint | undefined)[];
  scale: 'default' | 'published';
  startRepetitions: number;
  rule?: UntilStable;
  /** The sequential design (sequential.ts): blocks until every declared pair is decided. */
  sequential?: Sequential;
  runId: string;
  prefix: string;
  appName: string;
  template: string;
  target: ReturnType<typeof planTarget>;
  /** Options of a managed target (`--cluster-bin`, `--cluster-dir`, `--server`, `--set`). */
  managed?: ManagedTargetOptions;
  /** `--envelope` around a local MySQL/MariaDB server of the user's (local-envelope.ts). */
  localEnvelope?: Envelope;
};

export function planRun(opts: RunOptions): RunPlan {
  const { scenario } = opts;
  const doc = scenario.doc;
  const target = planTarget(doc, opts.target, opts.server);
  const m = opts.managed;
  if (target.kind !== 'managed' && (m?.clusterBin !== undefined || m?.clusterDir !== undefined))
    throw new UsageError(
      `--cluster-bin and --cluster-dir are for a server the runner manages (--server MAJOR, or a scenario on a managed cluster); ${doc.key} runs on the --target server`,
    );
  if (target.kind !== 'managed' && m?.settings && Object.keys(m.settings).length > 0)
    throw new UsageError(
      `--set changes the settings of a server the runner manages (--server MAJOR); on a server of yours, change them there (ALTER SYSTEM, postgresql.conf)`,
    );
  if (target.kind !== 'managed' && m?.envelope) {
    // A server of the user's: only a local server whose driver envelopes one (MySQL/MariaDB: one
    // process moved in for the run, local-envelope.ts), and only I/O limits.
    if (!target.driver.envelopesLocalServer)
      throw new UsageError(
        `--envelope limits a server the runner starts and stops (--server MAJOR, or a scenario on a managed cluster), or a local ${enveloped()} server; ${doc.key} runs on the --target server, which the runner does not put in a cgroup`,
      );
    if (m.envelope.memoryBytes !== undefined)
      throw new UsageError(
        '--envelope memory=… is for a server the runner starts: a running server of yours keeps the memory it holds, and a limit below it could make the kernel kill it; give it I/O limits only (read-iops, write-iops, read-mbps, write-mbps) and size its buffer pool instead',
      );
  }
  if (opts.server !== undefined && m?.clusterBin !== undefined)
    throw new UsageError(
      '--server and --cluster-bin both choose the server binaries; give one (--server: from the npm registry; --cluster-bin: a local bin directory)',
    );
  const scale = opts.scale ?? 'default';
  const { points, overrides } = planSweep(doc, opts.params ?? {}, scale);
  const resolved = resolveParams(doc.params, overrides, scale);
  if (!resolved.ok) throw new UsageError(resolved.errors.join('\n'));
  const params = { ...resolved.params, ...(points[0] ? { [points[0].param]: points[0].value } : {}) };
  const submittedParams = {
    ...params,
    ...(doc.sweep
      ? { [doc.sweep.param]: points.length === 1 ? points[0]!.value : points.map((p) => p!.value).join(',') }
      : {}),
  };

  const { startRepetitions, rule, sequential } = planDesign(doc, opts, scale);

  const runId = opts.runId ?? randomUUID();
  const prefix = runPrefix(runId);
  return {
    scenario,
    doc,
    params,
    submittedParams,
    points,
    scale,
    startRepetitions,
    ...(rule ? { rule } : {}),
    ...(sequential ? { sequential } : {}),
    runId,
    prefix,
    appName: appNameOf(runId),
    template: `${prefix}tpl`,
    target,
    ...(target.kind === 'server' && m?.envelope ? { localEnvelope: m.envelope } : {}),
    ...(opts.managed || opts.server !== undefined
      ? { managed: { ...opts.managed, ...(opts.server !== undefined ? { server: opts.server } : {}) } }
      : {}),
  };
}

/**
 * How many blocks, and what stops adding them: `--repetitions N` (exactly N), the sequential
 * design (the scenario's `decision`, or `--budget`), or the CV rule (`--until-stable`, or the
 * scenario's `repetitions.until_stable`).
 */
function planDesign(
  doc: ScenarioDocument,
  opts: RunOptions,
  scale: 'default' | 'published',
): { startRepetitions: number; rule: UntilStable | undefined; sequential: Sequential | undefined } {
  const requested =
    opts.repetitions ?? (scale === 'published' ? doc.repetitions.published : undefined) ?? doc.repetitions.default;
  if (!Number.isInteger(requested) || requested < 1) throw new UsageError('repetitions must be a positive integer');
  if (opts.budgetSeconds !== undefined) {
    if (!(Number.isInteger(opts.budgetSeconds) && opts.budgetSeconds > 0))
      throw new UsageError('--budget must be a positive duration (90s, 10m, 1h)');
    if (opts.repetitions !== undefined)
      throw new UsageError('--budget decides when to stop and --repetitions N runs exactly N blocks: give one');
    if (opts.untilStable) throw new UsageError('--budget and --until-stable are two stopping rules: give one');
    if (scale === 'published')
      throw new UsageError('--budget is for the default scale; --published-scale runs the published repetitions');
  }
  // The sequential design is every scenario's default (scenario.yaml decision): a run that names
  // no repetition count and no rule of its own, at the default scale, adds blocks until decided.
  const sequential =
    opts.repetitions === undefined && !opts.untilStable && scale === 'default'
      ? sequentialOf(doc, opts.budgetSeconds)
      : undefined;
  // A scenario whose spread is known to be high may make the CV rule its default instead
  // (scenario.yaml repetitions.until_stable): a run that names neither a repetition count nor a
  // rule of its own, at the default scale, adds rounds within the scenario's bounds.
  const declared = sequential ? undefined : doc.repetitions.until_stable;
  const untilStable: UntilStableOptions | undefined =
    opts.untilStable ??
    (declared && opts.repetitions === undefined && scale === 'default'
      ? {
          maxRepetitions: declared.max_repetitions,
          cvThreshold: declared.cv_threshold,
          ...(declared.budget_seconds !== undefined ? { budgetSeconds: declared.budget_seconds } : {}),
          source: 'scenario',
        }
      : undefined);
  // The stopping rule judges a spread, so it starts from at least three repetitions.
  const startRepetitions = sequential
    ? MIN_BLOCKS
    : untilStable
      ? Math.max(requested, MIN_STARTING_REPETITIONS)
      : requested;
  const rule: UntilStable | undefined = untilStable && {
    maxRepetitions: untilStable.maxRepetitions ?? Math.max(DEFAULT_MAX_REPETITIONS, startRepetitions),
    cvThreshold: untilStable.cvThreshold ?? DEFAULT_CV_THRESHOLD,
    ...(untilStable.budgetSeconds !== undefined ? { budgetSeconds: untilStable.budgetSeconds } : {}),
    source: untilStable.source ?? 'option',
  };
  if (rule) {
    if (!Number.isInteger(rule.maxRepetitions) || rule.maxRepetitions < 1)
      throw new UsageError('--max-repetitions must be a positive integer');
    if (!Number.isFinite(rule.cvThreshold) || rule.cvThreshold <= 0)
      throw new UsageError('--cv-threshold must be a positive number (a fraction: 0.03 = 3%)');
    if (rule.budgetSeconds !== undefined && !(Number.isInteger(rule.budgetSeconds) && rule.budgetSeconds > 0))
      throw new UsageError('--time-budget must be a positive whole number of seconds');
    if (rule.maxRepetitions < startRepetitions) {
      throw new UsageError(
        `--max-repetitions ${rule.maxRepetitions} is below the starting count of ${startRepetitions} repetitions (--repetitions or the scenario's default, at least ${MIN_STARTING_REPETITIONS} with --until-stable)`,
      );
    }
  }

  return { startRepetitions, rule, sequential };
}

/**
 * The sweep points: the scenario's list (published scale: its published list), or the
 * `--param <swept>=a,b,c` override, each value checked like any value of that parameter.
 */
function planSweep(
  doc: ScenarioDocument,
  overrides: Record<string, string>,
  scale: 'default' | 'published',
): { points: (SweepPoint | undefined)[]; overrides: Record<string, string> } {
  const sweep = doc.sweep;
  if (!sweep) return { points: [undefined], overrides };
  const { [sweep.param]: raw, ...rest } = overrides;
  let values = (scale === 'published' ? sweep.published : undefined) ?? sweep.default;
  if (raw !== undefined) {
    const items = raw.split(',').map((v) => v.trim());
    const errors: string[] = [];
    values = [];
    for (const item of items) {
      const r = resolveParams(doc.params, { [sweep.param]: item });
      if (!r.ok)
        errors.push(
          item === '' ? `parameter ${sweep.param}=${raw}: an empty value in the list` : (r.errors[0] ?? item),
        );
      else values.push(Number(ownValue(r.params, sweep.param)));
    }
    if (new Set(values).size !== values.length) errors.push(`parameter ${sweep.param}=${raw}: a value is listed twice`);
    if (errors.length)
      throw new UsageError(
        `${errors.join('\n')}\n(${sweep.param} is swept: give one value or a comma-separated list, e.g. --param ${sweep.param}=${sweep.default.join(',')})`,
      );
  }
  return { points: values.map((value) => ({ param: sweep.param, value })), overrides: rest };
}
