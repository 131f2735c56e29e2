import { z } from 'zod';
import { sqlFileName } from '../scenario-names.ts';

/** Runs SQL on the unit's database: inline text or a `.sql` file of the scenario folder. */
export const SqlStep = z
  .strictObject({
    action: z.literal('sql'),
    /** Inline SQL; may contain several statements and `{{param}}` placeholders. */
    sql: z.string().min(1).max(100_000).optional(),
    /** Or a `.sql` file in the scenario folder. */
    file: sqlFileName.optional(),
    name: z.string().max(200).optional(),
  })
  .refine((s) => (s.sql === undefined) !== (s.file === undefined), {
    message: 'expected exactly one of "sql" (inline text) or "file" (a .sql file in the folder)',
  });
export type SqlStep = z.infer<typeof SqlStep>;
