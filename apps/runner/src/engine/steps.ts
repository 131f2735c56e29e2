import { substituteParams, type ParamValue, type PlainStep, type RunNote } from '@tunelab/contracts';
import type { DatabaseSession } from '../drivers/driver.ts';

export type StepContext = {
  session: DatabaseSession;
  params: Record<string, ParamValue>;
  sqlFiles: Map<string, string>;
  /** Where `collect` steps put what they gather. */
  notes: RunNote[];
  variant?: string;
  repetition?: number;
};

type Executor<A extends PlainStep['action']> = (step: Extract<PlainStep, { action: A }>, ctx: StepContext) => Promise<void>;

/**
 * One executor per built-in step action. A new action (workload, restart, OS sampling…) is a
 * schema member in contracts/scenario.ts plus an entry here; the `satisfies` clause makes the
 * compiler insist on both.
 */
export const STEP_EXECUTORS = {
  async sql(step, ctx) {
    const text = step.sql ?? ctx.sqlFiles.get(step.file ?? '');
    if (text === undefined) throw new Error(`SQL file ${step.file} was not loaded`);
    await ctx.session.exec(substituteParams(text, ctx.params));
  },
  async set(step, ctx) {
    const value = typeof step.value === 'string' ? substituteParams(step.value, ctx.params) : String(step.value);
    await ctx.session.setSetting(step.name, value);
  },
  async collect(step, ctx) {
    const out: Record<string, unknown> = {};
    for (const what of step.what) {
      if (what === 'wal') out.wal = await ctx.session.walPosition();
      else
        for (const rel of step.relations) {
          const entry = (out[rel] ??= {}) as Record<string, unknown>;
          if (what === 'relation_sizes') entry.sizes = await ctx.session.relationSizes(rel);
          if (what === 'table_stats') entry.tableStats = await ctx.session.tableStats(rel);
          if (what === 'tuple_stats') entry.tupleStats = await ctx.session.tupleStats(rel);
        }
    }
    ctx.notes.push({
      ...(ctx.variant ? { variant: ctx.variant } : {}),
      ...(ctx.repetition ? { repetition: ctx.repetition } : {}),
      kind: `collect:${step.label}`,
      text: JSON.stringify(out),
    });
  },
} satisfies { [A in PlainStep['action']]: Executor<A> };

export async function runPlainStep(step: PlainStep, ctx: StepContext): Promise<void> {
  switch (step.action) {
    case 'sql':
      return STEP_EXECUTORS.sql(step, ctx);
    case 'set':
      return STEP_EXECUTORS.set(step, ctx);
    case 'collect':
      return STEP_EXECUTORS.collect(step, ctx);
  }
}
