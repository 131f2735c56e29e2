import { CreateTablesStep, substituteParams } from '@tunelab/contracts';
import { UsageError } from '../../errors.ts';
import { censusDataDir } from '../../engines/managed-postgresql/cluster/index.ts';
import { lastFileCount, managedCluster } from './managed.ts';
import { startTimeoutMs } from './start-server.ts';
import type { StepAction } from './types.ts';

/**
 * `action: create_tables` — brings database `database` to exactly `count` tables `<prefix>N`
 * (adds or drops the difference), CHECKPOINT, then one warm-up crash/restart. Managed clusters only.
 */
export const createTablesAction: StepAction<'create_tables'> = {
  action: 'create_tables',
  schema: CreateTablesStep,
  async execute(step, ctx) {
    // It creates and drops tables named tN in a database it does not own: only on a throwaway cluster.
    const cluster = managedCluster(ctx, 'create_tables');
    const count = typeof step.count === 'number' ? step.count : Number(substituteParams(step.count, ctx.params));
    if (!Number.isInteger(count) || count < 0)
      throw new UsageError(`create_tables: count must be a whole number of tables, got ${String(step.count)}`);
    const started = process.hrtime.bigint();
    const session = await ctx.target.driver.openDatabase(ctx.target.url, step.database, 'tunelab-create-tables');
    let changed = 0;
    try {
      const pattern = `^${step.prefix}[0-9]+$`;
      const [row] = await session.exec(
        `SELECT count(*)::bigint AS n, coalesce(max(substr(relname, ${step.prefix.length + 1})::bigint), 0) AS top FROM pg_class WHERE relkind = 'r' AND relnamespace = 'public'::regnamespace AND relname ~ '${pattern}'`,
      );
      const have = Number(row?.n ?? 0);
      const top = Number(row?.top ?? 0);
      if (have !== top)
        throw new UsageError(
          `create_tables: database ${step.database} holds ${have} tables named ${step.prefix}N but the highest N is ${top}; expected ${step.prefix}1…${step.prefix}${have}`,
        );
      await session.exec('SET synchronous_commit = off');
      // One transaction per batch: every CREATE/DROP holds an AccessExclusiveLock until commit.
      for (let from = have + 1; from <= count; from += step.batch) {
        ctx.signal.throwIfAborted();
        const to = Math.min(count, from + step.batch - 1);
        await session.exec(
          `DO $$ BEGIN FOR k IN ${from}..${to} LOOP EXECUTE format('CREATE TABLE ${step.prefix}%s (i int)', k); END LOOP; END $$`,
        );
        changed += to - from + 1;
      }
      for (let to = have; to > count; to -= step.batch) {
        ctx.signal.throwIfAborted();
        const from = Math.max(count + 1, to - step.batch + 1);
        await session.exec(
          `DO $$ BEGIN FOR k IN ${from}..${to} LOOP EXECUTE format('DROP TABLE ${step.prefix}%s', k); END LOOP; END $$`,
        );
        changed += to - from + 1;
      }
      // After the commits above: a CHECKPOINT inside their transaction would precede the asynchronous commit.
      if (changed) await session.exec('CHECKPOINT');
    } finally {
      await session.close();
    }
    ctx.record('tables_changed', changed);
    if (changed && step.warm_up) {
      // The kernel still holds the new files' metadata dirty: the first crash-recovery sync would
      // write it all (seconds per 10,000 files with fsync). One unmeasured syncfs cycle does it once.
      const census = await censusDataDir(cluster.dataDirectory);
      lastFileCount.set(cluster, census.files);
      await cluster.crash();
      const warm = await cluster.start(
        { settings: { recovery_init_sync_method: 'syncfs' }, timeoutMs: startTimeoutMs(census.files) },
        ctx.signal,
      );
      ctx.note(
        'warm-up',
        `${count} tables (${changed} changed): warm-up crash and restart with syncfs, ready after ${warm.readyMs.toFixed(0)} ms`,
      );
    }
    ctx.record('create_tables_seconds', Number(process.hrtime.bigint() - started) / 1e9);
  },
};
