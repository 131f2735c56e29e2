import { SqlStep, substituteParams } from '@tunelab/contracts';
import type { StepAction } from './types.ts';

/** `action: sql` — inline SQL or a scenario `.sql` file, `{{param}}` substituted, on the unit's session. */
export const sqlAction: StepAction<'sql'> = {
  action: 'sql',
  schema: SqlStep,
  async execute(step, ctx) {
    const text = step.sql ?? ctx.sqlFiles.get(step.file ?? '');
    if (text === undefined) throw new Error(`SQL file ${step.file} was not loaded`);
    await ctx.session.exec(substituteParams(text, ctx.params));
  },
};
