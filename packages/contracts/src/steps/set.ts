import { z } from 'zod';
import { settingName, settingValue } from '../scenario-names.ts';

/** Changes a session setting of the unit's database session. */
export const SetStep = z.strictObject({
  action: z.literal('set'),
  /** Session setting, applied with set_config(name, value, false). */
  name: settingName,
  value: settingValue,
});
export type SetStep = z.infer<typeof SetStep>;
