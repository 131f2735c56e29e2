import { z } from 'zod';
import { CollectStep } from './collect.ts';
import { CreateTablesStep } from './create-tables.ts';
import { CrashServerStep } from './crash-server.ts';
import { DataDirCensusStep } from './data-dir-census.ts';
import { DropCachesStep } from './drop-caches.ts';
import { InsertStreamStep } from './insert-stream.ts';
import { SetStep } from './set.ts';
import { SqlStep } from './sql.ts';
import { StartServerStep } from './start-server.ts';
import { WorkloadStep } from './workload.ts';

/**
 * THE list of step actions that may appear anywhere (fixture, variant, inside a timed block).
 * Add an action: a file `steps/<name>.ts` exporting its zod schema (with `action: z.literal(…)`),
 * one entry here, and its executor in the runner (`apps/runner/src/engine/actions/`), whose
 * registry is typed against this list. No switch anywhere.
 */
export const STEP_SCHEMAS = [
  SqlStep,
  SetStep,
  CollectStep,
  InsertStreamStep,
  WorkloadStep,
  CreateTablesStep,
  CrashServerStep,
  StartServerStep,
  DropCachesStep,
  DataDirCensusStep,
] as const;

export const PlainStep = z.union(STEP_SCHEMAS);
export type PlainStep = z.infer<typeof PlainStep>;
