import { z } from 'zod';
import { identifier } from '../primitives.ts';
import { relationName } from '../scenario-names.ts';

export const CollectKind = z.enum(['relation_sizes', 'table_stats', 'tuple_stats', 'wal']);
/** Records sizes, pg_stat_user_tables counters, pgstattuple figures or the WAL position as a run note. */
export const CollectStep = z.strictObject({
  action: z.literal('collect'),
  what: z.array(CollectKind).min(1),
  relations: z.array(relationName).default([]),
  label: identifier,
});
export type CollectStep = z.infer<typeof CollectStep>;
