import { randomUUID } from 'node:crypto';
import {
  resolveParams,
  RunSubmission,
  type MetricDef,
  type ParamValue,
  type RunNote,
  type Sample,
  type StorageKind,
} from '@tunelab/contracts';
import type { DatabaseSession, Driver, RelationSizes, TableStats, TupleStats, WalPosition } from '../drivers/driver.ts';
import { postgresDriver } from '../drivers/postgres.ts';
import { CliError, EXIT } from '../exit-codes.ts';
import { probeHardware } from '../probe/hardware.ts';
import type { LoadedScenario } from '../scenario/load.ts';
import { RUNNER_VERSION } from '../version.ts';
import { runPlainStep, type StepContext } from './steps.ts';
import {
  decideStop,
  DEFAULT_CV_THRESHOLD,
  DEFAULT_MAX_REPETITIONS,
  describeUnstable,
  formatCvPercent,
  MIN_STARTING_REPETITIONS,
  type StopDecision,
  type UntilStable,
  type UntilStableOptions,
} from './stopping.ts';

export type RunEvent =
  | { type: 'phase'; phase: 'probe' | 'fixture' | 'measure' | 'cleanup' | 'done'; message: string }
  // `total` is the units planned so far; with --until-stable it grows by one round at a time up
  // to `maxTotal` (absent when the count is fixed).
  | { type: 'unit-start'; variant: string; repetition: number; index: number; total: number; maxTotal?: number }
  | { type: 'unit-done'; variant: string; repetition: number; index: number; total: number; maxTotal?: number; seconds: number; restoreSeconds: number }
  /** --until-stable: another round was added (`stopped` absent), or the rule stopped the run. */
  | { type: 'stability'; repetitions: number; message: string; stopped?: StopDecision['stopped'] }
  | { type: 'fixture-built'; seconds: number }
  | { type: 'warning'; message: string };

export type RunOptions = {
  scenario: LoadedScenario;
  /** Connection URL of the server under test. */
  target: string;
  driver?: Driver;
  /** `name=value` overrides, validated against the scenario's parameter declarations. */
  params?: Record<string, string>;
  scale?: 'default' | 'published';
  repetitions?: number;
  /**
   * Keep adding interleaved rounds while a compared variant's timed metric has CV above
   * `cvThreshold`, starting from `repetitions` (at least 3), up to `maxRepetitions`.
   */
  untilStable?: UntilStableOptions;
  runId?: string;
  storage?: StorageKind;
  signal?: AbortSignal;
  onEvent?: (event: RunEvent) => void;
};

/** Physical state of the observed relations at the start of a variant run (restore checks). */
export type Snapshot = {
  variant: string;
  repetition: number;
  at: 'before' | 'after';
  sizes: Record<string, RelationSizes>;
  tupleStats: Record<string, TupleStats>;
};

export type RunResult = {
  runId: string;
  idempotencyKey: string;
  submission: RunSubmission;
  snapshots: Snapshot[];
  fixture: { buildSeconds: number; restoreSeconds: number[]; ratio: number };
  /** With `untilStable`: why the run stopped where it did. */
  stopping?: StopDecision;
};

/** Everything a run creates on the target starts with this, so cleanup can find it. */
export const DATABASE_PREFIX = 'tunelab_';
export const runPrefix = (runId: string) => `${DATABASE_PREFIX}${runId.replaceAll('-', '').slice(0, 8)}_`;
export const idempotencyKeyOf = (runId: string) => `tunelab-run-${runId}`;

const seconds = (start: bigint) => Number(process.hrtime.bigint() - start) / 1e9;
const SIZE_FACTOR: Record<string, number> = { bytes: 1, kB: 1024, MB: 1024 * 1024 };

type Observed = {
  sizes: Record<string, RelationSizes>;
  tableStats: Record<string, TableStats>;
  tupleStats: Record<string, TupleStats>;
};

async function observe(session: DatabaseSession, relations: string[], withTupleStats: boolean): Promise<Observed> {
  const o: Observed = { sizes: {}, tableStats: {}, tupleStats: {} };
  for (const rel of relations) {
    o.sizes[rel] = await session.relationSizes(rel);
    o.tableStats[rel] = await session.tableStats(rel);
    if (withTupleStats) o.tupleStats[rel] = await session.tupleStats(rel);
  }
  return o;
}

function metricValue(
  m: MetricDef,
  data: { timed: Map<string, number>; before: Observed; after: Observed; wal: number | null },
): number | null {
  switch (m.source) {
    case 'timed': {
      const s = data.timed.get(m.key);
      return s === undefined ? null : m.unit === 'ms' ? s * 1000 : s;
    }
    case 'relation_size': {
      const sizes = (m.at === 'before' ? data.before : data.after).sizes[m.relation];
      return sizes ? sizes[m.part] / (SIZE_FACTOR[m.unit] ?? 1) : null;
    }
    case 'table_stat': {
      const b = data.before.tableStats[m.relation]?.[m.counter];
      const a = data.after.tableStats[m.relation]?.[m.counter];
      if (m.at === 'delta') return a === undefined || b === undefined ? null : a - b;
      return (m.at === 'before' ? b : a) ?? null;
    }
    case 'tuple_stat':
      return (m.at === 'before' ? data.before : data.after).tupleStats[m.relation]?.[m.field] ?? null;
    case 'wal':
      return data.wal === null ? null : data.wal / (SIZE_FACTOR[m.unit] ?? 1);
  }
}

const walDelta = (a: WalPosition, b: WalPosition) =>
  a.statBytes !== null && b.statBytes !== null ? b.statBytes - a.statBytes : b.lsnBytes - a.lsnBytes;

/**
 * Runs one scenario against one target: probe, build the fixture once into a template database,
 * then for each repetition × variant (interleaved) clone it, run the steps and measure. Every
 * database it created is dropped at the end — also on failure and when `signal` aborts.
 */
export async function runScenario(opts: RunOptions): Promise<RunResult> {
  const { scenario, target } = opts;
  const doc = scenario.doc;
  const driver = opts.driver ?? postgresDriver;
  const emit = opts.onEvent ?? (() => {});
  const signal = opts.signal ?? new AbortController().signal;
  if (!doc.engines.includes(driver.engine)) {
    throw new CliError(`scenario ${doc.key} runs on ${doc.engines.join(', ')}, not ${driver.engine}`, EXIT.USAGE);
  }
  const resolved = resolveParams(doc.params, opts.params ?? {}, opts.scale ?? 'default');
  if (!resolved.ok) throw new CliError(resolved.errors.join('\n'), EXIT.USAGE);
  const params: Record<string, ParamValue> = resolved.params;
  const requested = opts.repetitions ?? (opts.scale === 'published' ? doc.repetitions.published : undefined) ?? doc.repetitions.default;
  if (!Number.isInteger(requested) || requested < 1) throw new CliError('repetitions must be a positive integer', EXIT.USAGE);
  // The stopping rule judges a spread, so it starts from at least three repetitions.
  const startRepetitions = opts.untilStable ? Math.max(requested, MIN_STARTING_REPETITIONS) : requested;
  const rule: UntilStable | undefined = opts.untilStable && {
    maxRepetitions: opts.untilStable.maxRepetitions ?? Math.max(DEFAULT_MAX_REPETITIONS, startRepetitions),
    cvThreshold: opts.untilStable.cvThreshold ?? DEFAULT_CV_THRESHOLD,
  };
  if (rule) {
    if (!Number.isInteger(rule.maxRepetitions) || rule.maxRepetitions < 1) throw new CliError('--max-repetitions must be a positive integer', EXIT.USAGE);
    if (!Number.isFinite(rule.cvThreshold) || rule.cvThreshold <= 0) throw new CliError('--cv-threshold must be a positive number (a fraction: 0.03 = 3%)', EXIT.USAGE);
    if (rule.maxRepetitions < startRepetitions) {
      throw new CliError(
        `--max-repetitions ${rule.maxRepetitions} is below the starting count of ${startRepetitions} repetitions (--repetitions or the scenario's default, at least ${MIN_STARTING_REPETITIONS} with --until-stable)`,
        EXIT.USAGE,
      );
    }
  }

  const runId = opts.runId ?? randomUUID();
  const prefix = runPrefix(runId);
  const appName = `tunelab-${prefix.slice(DATABASE_PREFIX.length, -1)}`;
  const template = `${prefix}tpl`;
  const startedAt = new Date();
  const warnings: string[] = [];
  const notes: RunNote[] = [];
  const warn = (message: string) => {
    warnings.push(message);
    emit({ type: 'warning', message });
  };

  emit({ type: 'phase', phase: 'probe', message: 'probing the target and this machine' });
  let admin;
  try {
    admin = await driver.openAdmin(target, appName);
  } catch (e) {
    throw new CliError(`cannot reach the target ${redactTarget(target)}: ${(e as Error).message}`, EXIT.TARGET_UNREACHABLE);
  }
  // Abort: end our own backends so whatever statement is running fails now, then clean up below.
  const onAbort = () => void terminateRun(driver, target, appName).catch(() => {});
  signal.addEventListener('abort', onAbort, { once: true });
  const sessions = new Set<DatabaseSession>();
  const openDb = async (name: string) => {
    const s = await driver.openDatabase(target, name, appName);
    sessions.add(s);
    for (const [k, v] of Object.entries(doc.settings.session)) await s.setSetting(k, String(v));
    return s;
  };
  const closeDb = async (s: DatabaseSession) => {
    sessions.delete(s);
    await s.close();
  };

  try {
    const env = await admin.environment();
    if (doc.requires.minServerVersionNum && env.serverVersionNum < doc.requires.minServerVersionNum) {
      throw new CliError(`scenario ${doc.key} needs server_version_num >= ${doc.requires.minServerVersionNum}, the target has ${env.serverVersionNum}`, EXIT.USAGE);
    }
    const { serverVersionNum: _num, ...database } = env;
    for (const [k, v] of Object.entries(doc.settings.expect)) {
      const actual = database.settings[k];
      if (actual !== undefined && normalizeSetting(actual) === normalizeSetting(String(v))) continue;
      warn(`server setting ${k} is ${actual ?? '(default)'} here; the published run used ${v}`);
    }
    const local = driver.isLocal(target);
    const dataDirectory = local ? await admin.dataDirectory() : null;
    if (local && !dataDirectory) warn('data_directory is not readable by this database user; storage kind comes from --storage only');
    const hw = await probeHardware({ dataDirectory, ...(opts.storage ? { storageOverride: opts.storage } : {}) });
    hw.warnings.forEach(warn);
    hw.notes.forEach((text) => notes.push({ kind: 'storage-probe', text }));

    const needsTupleStats = doc.metrics.some((m) => m.source === 'tuple_stat');
    const extensions = [...new Set([...doc.requires.extensions, ...(needsTupleStats ? ['pgstattuple'] : [])])];
    for (const ext of extensions) {
      if (!(await admin.hasExtension(ext))) throw new CliError(`scenario ${doc.key} needs the ${ext} extension, which this server does not have`, EXIT.RUN_FAILED);
    }
    const relations = [...new Set(doc.metrics.flatMap((m) => ('relation' in m ? [m.relation] : [])))];

    // ── Fixture, built once into the template ──
    signal.throwIfAborted();
    emit({ type: 'phase', phase: 'fixture', message: `building the fixture in ${template}` });
    const buildStart = process.hrtime.bigint();
    await admin.createDatabase(template);
    const fx = await openDb(template);
    for (const ext of extensions) await fx.exec(`CREATE EXTENSION IF NOT EXISTS ${ext}`);
    const fxCtx: StepContext = { session: fx, params, sqlFiles: scenario.sqlFiles, notes };
    for (const step of doc.fixture) {
      signal.throwIfAborted();
      await runPlainStep(step, fxCtx);
    }
    await closeDb(fx);
    const buildSeconds = seconds(buildStart);
    emit({ type: 'fixture-built', seconds: buildSeconds });

    // ── Interleaved repetitions: A B C D, A B C D, … ──
    emit({
      type: 'phase',
      phase: 'measure',
      message: rule
        ? `${doc.variants.length} variants × ${startRepetitions}–${rule.maxRepetitions} repetitions, until every compared variant's CV ≤ ${formatCvPercent(rule.cvThreshold)}`
        : `${doc.variants.length} variants × ${startRepetitions} repetitions`,
    });
    const samples: Sample[] = [];
    const snapshots: Snapshot[] = [];
    const order: { variant: string; repetition: number }[] = [];
    const restoreSeconds: number[] = [];
    let planned = startRepetitions;
    const maxTotal = rule ? { maxTotal: doc.variants.length * rule.maxRepetitions } : {};
    let index = 0;
    let stopping: StopDecision | undefined;
    let repetitions = 0;
    for (let repetition = 1; repetition <= planned; repetition++) {
      const total = doc.variants.length * planned;
      for (const [vi, variant] of doc.variants.entries()) {
        signal.throwIfAborted();
        index++;
        emit({ type: 'unit-start', variant: variant.key, repetition, index, total, ...maxTotal });
        const dbName = `${prefix}r${repetition}_v${vi + 1}`;
        const restoreStart = process.hrtime.bigint();
        await admin.createDatabase(dbName, template);
        const restore = seconds(restoreStart);
        restoreSeconds.push(restore);
        const session = await openDb(dbName);
        const before = await observe(session, relations, needsTupleStats);
        const ctx: StepContext = { session, params, sqlFiles: scenario.sqlFiles, notes, variant: variant.key, repetition };
        const timed = new Map<string, number>();
        let wal: number | null = null;
        for (const step of variant.steps) {
          signal.throwIfAborted();
          if (step.action !== 'timed') {
            await runPlainStep(step, ctx);
            continue;
          }
          const walBefore = await session.walPosition();
          const start = process.hrtime.bigint();
          for (const inner of step.steps) await runPlainStep(inner, ctx);
          timed.set(step.metric, seconds(start));
          wal = walDelta(walBefore, await session.walPosition());
        }
        const after = await observe(session, relations, needsTupleStats);
        const messages = session.drainMessages();
        // A transaction elsewhere on the server (even in another database) holds back the
        // xmin horizon; VACUUM then keeps dead tuples and the run measures something else.
        for (const m of messages) {
          const held = /(\d+) are dead but not yet removable/.exec(m.message);
          if (held && Number(held[1]) > 0) {
            warn(`${variant.key} #${repetition}: ${held[1]} dead tuples were not yet removable — another transaction on the server held back the xmin horizon`);
          }
        }
        if (messages.length) {
          notes.push({
            variant: variant.key,
            repetition,
            kind: 'server-output',
            text: messages.map((m) => `${m.severity}:  ${m.message}`).join('\n').slice(0, 64 * 1024),
          });
        }
        await closeDb(session);
        await admin.dropDatabase(dbName);
        for (const m of doc.metrics) {
          const value = metricValue(m, { timed, before, after, wal });
          if (value === null) warn(`metric ${m.key} has no value for ${variant.key} #${repetition}`);
          else samples.push({ variant: variant.key, repetition, metric: m.key, unit: m.unit, value });
        }
        samples.push({ variant: variant.key, repetition, metric: 'restore_duration', unit: 's', value: restore });
        snapshots.push({ variant: variant.key, repetition, at: 'before', sizes: before.sizes, tupleStats: before.tupleStats });
        snapshots.push({ variant: variant.key, repetition, at: 'after', sizes: after.sizes, tupleStats: after.tupleStats });
        order.push({ variant: variant.key, repetition });
        emit({ type: 'unit-done', variant: variant.key, repetition, index, total, ...maxTotal, seconds: timed.values().next().value ?? 0, restoreSeconds: restore });
      }
      repetitions = repetition;
      // One full round at a time, so every variant always has the same number of repetitions.
      if (rule && repetition === planned) {
        const decision = decideStop(doc, samples, repetition, rule);
        if (decision) {
          stopping = decision;
          emit({ type: 'stability', repetitions: repetition, message: decision.reason, stopped: decision.stopped });
        } else {
          planned++;
          emit({ type: 'stability', repetitions: repetition, message: `${describeUnstable(doc, samples, rule)}: adding repetition ${planned} (max ${rule.maxRepetitions})` });
        }
      }
    }
    if (stopping) notes.push({ kind: 'stopping-rule', text: stopping.reason });

    const meanRestore = restoreSeconds.reduce((a, b) => a + b, 0) / restoreSeconds.length;
    const ratio = buildSeconds / meanRestore;
    // The fixture is a pseudo-variant so that build time reaches the API next to the restores.
    samples.push({ variant: 'fixture', repetition: 1, metric: 'build_duration', unit: 's', value: buildSeconds });
    notes.push({
      kind: 'fixture-snapshot',
      text: `fixture built in ${buildSeconds.toFixed(3)} s; restored from template ${restoreSeconds.length}× in ${meanRestore.toFixed(3)} s on average; rebuild/restore = ${ratio.toFixed(1)}×`,
    });

    const submission = RunSubmission.parse({
      scenario: {
        key: doc.key,
        version: scenario.version,
        title: doc.title,
        ...(doc.comparisons.length > 0 ? { comparisons: doc.comparisons.map((c) => ({ baseline: c.baseline, candidate: c.candidate })) } : {}),
      },
      params: {
        ...params,
        repetitions,
        ...(rule ? { until_stable: true, max_repetitions: rule.maxRepetitions, cv_threshold: rule.cvThreshold } : {}),
      },
      hardware: hw.spec,
      database,
      runnerVersion: RUNNER_VERSION,
      startedAt: startedAt.toISOString(),
      finishedAt: new Date().toISOString(),
      samples,
      timeSeries: [],
      notes,
      warnings,
      order,
    });
    emit({ type: 'phase', phase: 'done', message: 'measurements complete' });
    return { runId, idempotencyKey: idempotencyKeyOf(runId), submission, snapshots, fixture: { buildSeconds, restoreSeconds, ratio }, ...(stopping ? { stopping } : {}) };
  } catch (e) {
    if (signal.aborted) throw new CliError('interrupted; every database of this run was dropped', EXIT.INTERRUPTED);
    throw e;
  } finally {
    signal.removeEventListener('abort', onAbort);
    emit({ type: 'phase', phase: 'cleanup', message: `dropping ${prefix}* databases` });
    await Promise.all([...sessions].map((s) => s.close()));
    await admin.close();
    await cleanupRun(driver, target, runId);
  }
}

async function terminateRun(driver: Driver, target: string, appName: string): Promise<void> {
  const admin = await driver.openAdmin(target, `${appName}-cleanup`);
  try {
    await admin.terminateBackends(appName);
  } finally {
    await admin.close();
  }
}

/** Drops every database of a run (template and clones); safe to call twice. */
export async function cleanupRun(driver: Driver, target: string, runId: string): Promise<string[]> {
  const prefix = runPrefix(runId);
  const appName = `tunelab-${prefix.slice(DATABASE_PREFIX.length, -1)}`;
  const admin = await driver.openAdmin(target, `${appName}-cleanup`);
  try {
    // A CREATE DATABASE still in flight would otherwise finish after we looked.
    await admin.terminateBackends(appName);
    const names = await admin.listDatabases(prefix);
    for (const name of names) await admin.dropDatabase(name);
    return names;
  } finally {
    await admin.close();
  }
}

function normalizeSetting(v: string): string {
  return v.trim().toLowerCase().replace(/^(on|true|yes|1)$/, 'on').replace(/^(off|false|no|0)$/, 'off');
}

export function redactTarget(target: string): string {
  try {
    const url = new URL(target);
    if (url.password) url.password = '***';
    return url.toString();
  } catch {
    return '(unparseable target)';
  }
}
