import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RunSubmission } from '@tunelab/contracts';
import { postgresDriver } from '../engines/postgresql/driver.ts';
import { Interrupted, UsageError } from '../errors.ts';
import { EXIT } from '../exit-codes.ts';
import { DEFAULT_SCENARIOS_DIR, loadScenario, type LoadedScenario } from '@tunelab/scenarios';
import { CLI } from '../test-support/cli.ts';
import { databasesWithPrefix, TEST_PG_URL } from '../test-support/pg.ts';
import { appNameOf } from './plan.ts';
import { cleanupRun, runPrefix, runScenario } from './run-scenario.ts';

// One warehouse (the smallest TPROC-C database, ~120 MB), one user, a one-second window.
const TINY = { warehouses: '1', vus: '1', ramp_up: '0', duration: '1' };
// The two ends of the range keep the test short; the default run measures all four.
const VARIANTS = ['ff100', 'ff40'];
const ends = (s: LoadedScenario): LoadedScenario => ({
  ...s,
  doc: {
    ...s.doc,
    variants: s.doc.variants.filter((v) => VARIANTS.includes(v.key)),
    comparisons: [{ baseline: 'ff100', candidate: 'ff40' }],
  },
});

let scenario: LoadedScenario;
const runIds: string[] = [];
beforeAll(async () => {
  scenario = await loadScenario(path.join(DEFAULT_SCENARIOS_DIR, 'fillfactor-hot-updates'));
});
afterAll(async () => {
  for (const id of runIds) await cleanupRun(postgresDriver, TEST_PG_URL, id);
});
const newRunId = () => {
  const id = randomUUID();
  runIds.push(id);
  return id;
};
async function backendsOf(applicationName: string, onlyWorkload = false): Promise<number> {
  const c = new pg.Client({ connectionString: TEST_PG_URL });
  await c.connect();
  try {
    const { rows } = await c.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = $1 ${onlyWorkload ? "AND query ~ '^SELECT (neword|payment|delivery|ostat|slev)\\('" : ''}`,
      [applicationName],
    );
    return rows[0]?.n ?? 0;
  } finally {
    await c.end();
  }
}

describe('fillfactor-hot-updates on PostgreSQL (tiny scale)', () => {
  it('measures ff100 and ff40 at the sweep point with the metrics the issue names', async () => {
    const runId = newRunId();
    const { submission: run } = await runScenario({
      scenario: ends(scenario),
      target: TEST_PG_URL,
      params: TINY,
      repetitions: 1,
      runId,
    });
    expect(RunSubmission.safeParse(run).success).toBe(true);
    const sample = (v: string, m: string) => run.samples.find((s) => s.variant === v && s.metric === m);
    const value = (v: string, m: string) => sample(v, m)!.value;
    for (const v of VARIANTS) {
      // (hot_pct_order_line needs a delivery in the window: 1 in 23 transactions, maybe none in one second.)
      for (const m of [
        'nopm',
        'tpm',
        'hot_pct_stock',
        'hot_pct_customer',
        'hot_pct_district',
        'database_size_after',
        'stock_heap_before',
        'wal_bytes',
        'latency_p99_neword',
        'transactions_payment',
        'errors_slev',
        'deadlocks',
      ])
        expect(sample(v, m)?.point, `${v} ${m}`).toEqual({ param: 'vus', value: 1 });
      expect(value(v, 'errors')).toBe(0);
      // NOPM is the districts' order-id advance; the driver's committed new orders are counted
      // independently: the two must agree exactly over the window.
      const note = JSON.parse(run.notes.find((n) => n.kind === 'workload' && n.variant === v)!.text);
      const committed = note.perType.neword.transactions - note.perType.neword.rollbacks;
      expect(value(v, 'nopm') * (note.elapsedSeconds / 60)).toBeCloseTo(committed, 6);
      expect(run.timeSeries.filter((p) => p.variant === v && p.metric === 'tps').map((p) => p.point)).toEqual([
        { param: 'vus', value: 1 },
      ]);
    }
    // The rewrite honours the fillfactor: the article's ff40 ÷ ff100 is 2.27, give or take the
    // indexes (their own fillfactor does not change).
    const ratio = value('ff40', 'database_size_before') / value('ff100', 'database_size_before');
    expect(ratio).toBeGreaterThan(1.8);
    expect(ratio).toBeLessThan(2.6);
    // Free space in every page lets updates stay on their page.
    expect(value('ff40', 'hot_pct_stock')).toBeGreaterThan(value('ff100', 'hot_pct_stock'));
    expect(await databasesWithPrefix(runPrefix(runId))).toEqual([]);
  });

  it('Ctrl-C in the middle of the window stops every user and drops every database', async () => {
    const runId = newRunId();
    const app = appNameOf(runId);
    const ac = new AbortController();
    let polling: NodeJS.Timeout | undefined;
    const run = runScenario({
      scenario,
      target: TEST_PG_URL,
      params: { ...TINY, vus: '2', duration: '60' },
      repetitions: 1,
      runId,
      signal: ac.signal,
      onEvent: (e) => {
        if (e.type !== 'unit-start' || polling) return;
        // Abort once the users are running transactions.
        polling = setInterval(() => {
          void backendsOf(app, true).then((n) => {
            if (n > 0 && !ac.signal.aborted) ac.abort();
          });
        }, 100);
      },
    });
    try {
      await expect(run).rejects.toBeInstanceOf(Interrupted);
    } finally {
      clearInterval(polling);
    }
    expect(ac.signal.aborted).toBe(true);
    expect(await databasesWithPrefix(runPrefix(runId))).toEqual([]);
    expect(await backendsOf(app)).toBe(0);
  });

  it('refuses a server without PL/pgSQL or older than PostgreSQL 15 before creating anything', async () => {
    const requiring = (requires: LoadedScenario['doc']['requires']) => ({
      ...scenario,
      doc: { ...scenario.doc, requires },
    });
    // The shared test server has PL/pgSQL and is recent: ask for what it lacks instead.
    const cases: [LoadedScenario, RegExp][] = [
      [
        requiring({ ...scenario.doc.requires, extensions: ['plpgsql', 'no_such_language'] }),
        /needs the no_such_language extension/,
      ],
      [
        requiring({ ...scenario.doc.requires, minServerVersionNum: 990000 }),
        /needs PostgreSQL 99 or newer; the target runs PostgreSQL 1\d/,
      ],
    ];
    for (const [s, message] of cases) {
      const runId = newRunId();
      const run = runScenario({ scenario: s, target: TEST_PG_URL, params: TINY, repetitions: 1, runId });
      await expect(run).rejects.toBeInstanceOf(UsageError);
      await expect(run).rejects.toThrow(message);
      expect(await databasesWithPrefix(runPrefix(runId))).toEqual([]);
    }
  });

  it('refuses out-of-range users and warehouses and a junk sweep list before creating anything', async () => {
    for (const params of [
      { ...TINY, vus: '0' },
      { ...TINY, vus: '1,x' },
      { ...TINY, vus: '1001' },
      { ...TINY, warehouses: '0' },
      { ...TINY, mix: 'oltp' },
    ]) {
      const runId = newRunId();
      await expect(
        runScenario({ scenario, target: TEST_PG_URL, params, repetitions: 1, runId }),
        JSON.stringify(params),
      ).rejects.toBeInstanceOf(UsageError);
      expect(await databasesWithPrefix(runPrefix(runId))).toEqual([]);
    }
  });

  it('the CLI names the bad parameter and exits 2', () => {
    for (const [param, name] of [
      ['vus=1,x', 'vus'],
      ['warehouses=0', 'warehouses'],
    ] as const) {
      const r = spawnSync(
        process.execPath,
        [CLI, 'run', 'fillfactor-hot-updates', '--target', TEST_PG_URL, '--param', param],
        { encoding: 'utf8', timeout: 60_000 },
      );
      expect(r.status, r.stderr).toBe(EXIT.USAGE);
      expect(r.stderr).toContain(name);
    }
  });
});
