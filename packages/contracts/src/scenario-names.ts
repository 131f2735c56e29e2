import { z } from 'zod';

/** Name rules shared by scenario steps and metrics (pure zod, no Node-only imports). */
export const paramName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be a parameter name (letters, digits, _)');
/** Relation names as written in SQL; schema-qualified allowed, quoting is not. */
export const relationName = z
  .string()
  .regex(
    /^[A-Za-z_][A-Za-z0-9_$]*(\.[A-Za-z_][A-Za-z0-9_$]*)?$/,
    'must be a plain (optionally schema-qualified) relation name',
  );
export const settingName = z
  .string()
  .regex(/^[a-z_][a-z0-9_.]*$/, 'must be a server setting name such as maintenance_work_mem');
export const settingValue = z.union([z.string().max(200), z.number(), z.boolean()]);
/** Files referenced by a scenario live in its folder: no directories, no dot-files. */
export const sqlFileName = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9._-]*\.sql$/, 'must be a .sql file name inside the scenario folder');
