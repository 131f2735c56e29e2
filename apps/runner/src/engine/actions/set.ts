import { SetStep, substituteParams } from '@tunelab/contracts';
import type { StepAction } from './types.ts';

/** `action: set` — a session setting of the unit's session. */
export const setAction: StepAction<'set'> = {
  action: 'set',
  schema: SetStep,
  async execute(step, ctx) {
    const value = typeof step.value === 'string' ? substituteParams(step.value, ctx.params) : String(step.value);
    await ctx.session.setSetting(step.name, value);
  },
};
