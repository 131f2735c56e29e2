import {
  substituteParams,
  TPROCC_LIMITS,
  TPROCC_MIXES,
  WorkloadStep,
  type TproccWorkloadStep,
} from '@tunelab/contracts';
import { UsageError } from '../../errors.ts';
import { FLUSH_SQL, runTprocc, TX_TYPES, type MixName, type TproccResult } from '../../workload/tprocc.ts';
import type { ActionContext, StepAction } from './types.ts';

const MB = 1024 * 1024;

/** A field given as a literal or as a `{{param}}` placeholder, resolved and range-checked. */
function resolveNumber(
  value: number | string,
  field: string,
  ctx: ActionContext,
  check: { min: number; max: number; integer: boolean },
): number {
  const n = typeof value === 'number' ? value : Number(substituteParams(value, ctx.params));
  if (!Number.isFinite(n) || (check.integer && !Number.isInteger(n)) || n < check.min || n > check.max) {
    throw new UsageError(
      `workload tprocc: ${field} must be ${check.integer ? 'a whole number' : 'a number'} from ${check.min} to ${check.max}, got ${String(value)}${typeof value === 'string' ? ` = ${substituteParams(value, ctx.params)}` : ''}`,
    );
  }
  return n;
}
function resolveMix(value: string, ctx: ActionContext): MixName {
  const v = substituteParams(value, ctx.params);
  const mix = TPROCC_MIXES.find((m) => m === v);
  if (!mix) throw new UsageError(`workload tprocc: mix must be one of ${TPROCC_MIXES.join(', ')}, got ${v}`);
  return mix;
}

type ServerCounters = {
  nextOrderIds: number;
  transactions: number;
  deadlocks: number;
  walBytes: number;
  databaseBytes: number;
  updates: Record<string, { upd: number; hot: number }>;
};

/**
 * One read of the server's counters on the unit's session. Its own pending statistics are
 * flushed first, so over a window the session itself adds exactly two transactions (this read
 * at the start and the flush at the end) to the database's xact counters.
 */
async function readCounters(ctx: ActionContext, tables: readonly string[]): Promise<ServerCounters> {
  await ctx.session.exec(FLUSH_SQL);
  const perTable = tables.map(
    (t) =>
      `(SELECT json_build_object('upd', n_tup_upd, 'hot', n_tup_hot_upd) FROM pg_stat_user_tables WHERE relid = '${t}'::regclass) AS "${t}"`,
  );
  const [row] = await ctx.session.exec(
    `SELECT (SELECT sum(d_next_o_id) FROM district)::float8 AS next_o_ids,
            (xact_commit + xact_rollback)::float8 AS xacts, deadlocks::float8 AS deadlocks,
            pg_wal_lsn_diff(pg_current_wal_insert_lsn(), '0/0')::float8 AS wal,
            pg_database_size(current_database())::float8 AS db_size,
            ${perTable.join(', ')}
     FROM pg_stat_database WHERE datname = current_database()`,
  );
  if (!row) throw new Error('pg_stat_database has no row for the unit database');
  const updates: ServerCounters['updates'] = {};
  for (const t of tables) {
    const v = row[t];
    const o = (typeof v === 'string' ? JSON.parse(v) : v) as { upd?: unknown; hot?: unknown } | null | undefined;
    updates[t] = { upd: Number(o?.upd ?? 0), hot: Number(o?.hot ?? 0) };
  }
  return {
    nextOrderIds: Number(row.next_o_ids),
    transactions: Number(row.xacts),
    deadlocks: Number(row.deadlocks),
    walBytes: Number(row.wal),
    databaseBytes: Number(row.db_size),
    updates,
  };
}

async function readSizes(ctx: ActionContext, tables: readonly string[], at: 'before' | 'after') {
  for (const t of tables) {
    const s = await ctx.session.relationSizes(t);
    ctx.record(`${t}_heap_${at}`, s.table / MB);
    ctx.record(`${t}_indexes_${at}`, s.indexes / MB);
  }
}

/** Everything the run measured, as recorded values for `source: recorded` metrics. */
function recordResult(
  ctx: ActionContext,
  r: TproccResult,
  start: ServerCounters,
  end: ServerCounters,
  tables: readonly string[],
) {
  const minutes = r.elapsedSeconds / 60;
  ctx.record('nopm', (end.nextOrderIds - start.nextOrderIds) / minutes);
  // The unit's own session adds two transactions to the window (see readCounters).
  ctx.record('tpm', (end.transactions - start.transactions - 2) / minutes);
  ctx.record('transactions', r.totals.transactions);
  ctx.record('tps_client', r.totals.transactions / r.elapsedSeconds);
  ctx.record('rollbacks', r.totals.rollbacks);
  ctx.record('errors', r.totals.errors);
  ctx.record('deadlocks', r.totals.deadlocks);
  ctx.record('deadlocks_server', end.deadlocks - start.deadlocks);
  ctx.record('serialization_failures', r.totals.serializationFailures);
  for (const t of TX_TYPES) {
    const x = r.perType[t];
    ctx.record(`transactions_${t}`, x.transactions);
    ctx.record(`errors_${t}`, x.errors);
    if (x.latency) {
      ctx.record(`latency_p50_${t}`, x.latency.p50);
      ctx.record(`latency_p95_${t}`, x.latency.p95);
      ctx.record(`latency_p99_${t}`, x.latency.p99);
    }
  }
  for (const t of tables) {
    const upd = end.updates[t]!.upd - start.updates[t]!.upd;
    const hot = end.updates[t]!.hot - start.updates[t]!.hot;
    ctx.record(`updates_${t}`, upd);
    if (upd > 0) ctx.record(`hot_pct_${t}`, (hot / upd) * 100);
  }
  ctx.record('wal_window', (end.walBytes - start.walBytes) / MB);
  r.perSecond.forEach((n, i) => ctx.series('tps', i + 1, n));
}

async function runTproccStep(step: TproccWorkloadStep, ctx: ActionContext) {
  const vus = resolveNumber(step.vus, 'vus', ctx, { ...TPROCC_LIMITS.vus, integer: true });
  const warehouses = resolveNumber(step.warehouses, 'warehouses', ctx, { ...TPROCC_LIMITS.warehouses, integer: true });
  const mix = resolveMix(step.mix, ctx);
  const rampUpSeconds = resolveNumber(step.ramp_up, 'ramp_up', ctx, {
    min: 0,
    max: TPROCC_LIMITS.seconds.max,
    integer: false,
  });
  const durationSeconds = resolveNumber(step.duration, 'duration', ctx, {
    min: 0.001,
    max: TPROCC_LIMITS.seconds.max,
    integer: false,
  });
  const [loaded] = await ctx.session.exec('SELECT count(*)::int AS n FROM warehouse');
  if (Number(loaded?.n) !== warehouses)
    throw new UsageError(`workload tprocc: warehouses is ${warehouses} but the database holds ${String(loaded?.n)}`);

  const tables = step.tables;
  const databaseBefore = (await readCounters(ctx, tables)).databaseBytes;
  await readSizes(ctx, tables, 'before');
  let start: ServerCounters | undefined;
  let end: ServerCounters | undefined;
  const result = await runTprocc({
    // The run's driver: sessions on this unit's database with its application_name (Ctrl-C ends them).
    openSession: () => ctx.connect(),
    vus,
    warehouses,
    mix,
    rampUpSeconds,
    durationSeconds,
    signal: ctx.signal,
    onWindowStart: async () => void (start = await readCounters(ctx, tables)),
    onWindowEnd: async () => void (end = await readCounters(ctx, tables)),
  });
  if (!start || !end) throw new Error('workload tprocc: the measured window did not run');
  recordResult(ctx, result, start, end, tables);
  await readSizes(ctx, tables, 'after');
  const databaseAfter = (await ctx.session.exec('SELECT pg_database_size(current_database())::float8 AS b'))[0]?.b;
  ctx.record('database_size_before', databaseBefore / MB);
  ctx.record('database_size_after', Number(databaseAfter) / MB);
  ctx.record('database_growth', (Number(databaseAfter) - databaseBefore) / MB);
  ctx.note(
    'workload',
    JSON.stringify({
      kind: 'tprocc',
      vus,
      warehouses,
      mix,
      rampUpSeconds,
      elapsedSeconds: result.elapsedSeconds,
      totals: result.totals,
      perType: result.perType,
      clientCpuMicros: result.clientCpuMicros,
      errors: result.errorMessages,
    }),
  );
  if (result.errorMessages.length)
    ctx.warn(`workload tprocc: ${result.totals.errors} failed transactions, e.g. ${result.errorMessages[0]}`);
}

const KINDS: {
  [K in WorkloadStep['kind']]: (step: Extract<WorkloadStep, { kind: K }>, ctx: ActionContext) => Promise<void>;
} = {
  tprocc: runTproccStep,
};

/** `action: workload` — a concurrent workload of the given `kind`; see contracts/steps/workload.ts. */
export const workloadAction: StepAction<'workload'> = {
  action: 'workload',
  schema: WorkloadStep,
  execute: (step, ctx) => KINDS[step.kind](step, ctx),
};
