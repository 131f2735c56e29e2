import { z } from 'zod';
import { STEP_SCHEMAS } from './plain.ts';
import { TimedStep } from './timed.ts';

export * from './collect.ts';
export * from './crash-server.ts';
export * from './create-tables.ts';
export * from './data-dir-census.ts';
export * from './drop-caches.ts';
export * from './insert-stream.ts';
export * from './plain.ts';
export * from './set.ts';
export * from './sql.ts';
export * from './start-server.ts';
export * from './timed.ts';
export * from './workload.ts';

/** Any step of a variant: the plain actions of STEP_SCHEMAS or a timed block of them. */
export const Step = z.union([...STEP_SCHEMAS, TimedStep]);
export type Step = z.infer<typeof Step>;
/** Every action name a scenario may use. */
export type StepActionName = Step['action'];
