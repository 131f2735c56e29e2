import { CollectStep } from '@tunelab/contracts';
import { capabilityOf } from '../../engines/driver.ts';
import type { StepAction } from './types.ts';

/** `action: collect` — sizes, pg_stat counters, pgstattuple figures or the WAL position, kept as a note. */
export const collectAction: StepAction<'collect'> = {
  action: 'collect',
  schema: CollectStep,
  async execute(step, ctx) {
    const out: Record<string, unknown> = {};
    for (const what of step.what) {
      if (what === 'wal') out.wal = await capabilityOf(ctx.session, 'wal', 'collect: wal').walPosition();
      else
        for (const rel of step.relations) {
          const entry = (out[rel] ??= {}) as Record<string, unknown>;
          if (what === 'relation_sizes') entry.sizes = await ctx.session.relationSizes(rel);
          if (what === 'table_stats') entry.tableStats = await ctx.session.tableStats(rel);
          if (what === 'tuple_stats')
            entry.tupleStats = await capabilityOf(ctx.session, 'tupleStats', 'collect: tuple_stats').tupleStats(rel);
        }
    }
    ctx.note(`collect:${step.label}`, JSON.stringify(out));
  },
};
