import { z } from 'zod';
import { StorageTier } from './measured-hardware.ts';
import { paramName, settingName } from './scenario-names.ts';

/**
 * The article's conditions as ratios (`article_conditions:` in scenario.yaml; `tunelab run
 * --like-article`). An article ran on its machine at its size; what made its result
 * is often a relation — the data fits in memory or not, shared_buffers holds two thirds of the
 * table, the disk seeks — not the absolute size. Stated as ratios, those conditions can be
 * reproduced at a size this machine runs in minutes: the runner picks a data size, the scale
 * parameter's value for it, a memory limit (`--envelope`), an I/O limit where the article's disk
 * was slower than this one, and the size settings, and records what it reproduced and what not.
 * Pure zod: the site reads scenario files too.
 */

const SIZE_UNITS: Readonly<Record<string, number>> = { kB: 1024, MB: 1024 ** 2, GB: 1024 ** 3, TB: 1024 ** 4 };
const SIZE = /^(\d+(?:\.\d+)?)\s*(kB|MB|GB|TB)$/;

/** A size with its unit in binary units, as postgresql.conf reads it: `256MB`, `12GB`, `512kB`. */
export const sizeText = z
  .string()
  .regex(SIZE, 'must be a size with its unit, e.g. 256MB or 12GB (binary units, as in postgresql.conf)');

/** `256MB` → 268435456; null for text that is not a size (sizeText's rule). */
export function parseSizeText(text: string): number | null {
  const m = SIZE.exec(text.trim());
  if (!m) return null;
  return Math.round(Number(m[1]) * SIZE_UNITS[m[2]!]!);
}

const ratio = z.number().positive().max(1000);

/** The unit of a parameter that sizes memory in whole units (`buffer_pool_mb`: MB). */
export const PARAM_SIZE_UNITS = ['kB', 'MB', 'GB'] as const;
export const paramUnitBytes = (unit: (typeof PARAM_SIZE_UNITS)[number]): number => SIZE_UNITS[unit]!;

/** One of the article's machines, its conditions as ratios of its data size. */
export const ArticleMachineConditions = z.strictObject({
  /**
   * The machine: an `id` of published.json `hardware` (its cores, memory and label come from
   * there) — or, for an article that describes no machine, an id of its own with `label`.
   */
  hardware: z.string().min(1).max(100),
  /** An article that describes no machine: what it says of it ("a single disk; cores and memory not stated"). */
  label: z.string().min(1).max(300).optional(),
  /** The article's data size (the table the chore works on), absolute: never reproduced, always said. */
  data_size: sizeText,
  /**
   * data : memory — the data size over the machine's memory (12 GB on 32 GB = 0.375): the memory
   * limit of the envelope. Absent where the memory that matters is a server setting or parameter
   * (InnoDB reads through O_DIRECT, so its buffer pool, not the page cache, holds the data in
   * memory) — then the run needs no memory limit, and a local server of the user's can take it.
   */
  data_to_memory: ratio.optional(),
  /**
   * setting : data — size settings of the article's server over its data size, each scaled with
   * the data (shared_buffers 8192MB over a 12 GB table = 0.667).
   */
  settings_to_data: z.record(settingName, ratio).default({}),
  /**
   * parameter : data — integer parameters that size memory, in `unit`s, over the data size, each
   * scaled with the data (the article's 4 GB buffer pool over its ~9.3 GB table: buffer_pool_mb 0.43).
   */
  params_to_data: z.record(paramName, z.strictObject({ ratio, unit: z.enum(PARAM_SIZE_UNITS) })).default({}),
  /** The tier of the article's disk (measured-hardware.ts): a slower tier than this machine's is throttled to. */
  storage_tier: StorageTier,
});
export type ArticleMachineConditions = z.infer<typeof ArticleMachineConditions>;

export const ArticleConditions = z.strictObject({
  /**
   * How a data size maps to the scenario: the integer parameter that sizes it (rows) and the bytes
   * of data one unit of it makes with this scenario's fixture.
   */
  param: paramName,
  bytes_per_unit: z.number().positive().max(1e12),
  /** The data size `--like-article` uses unless `--like-article-size` says otherwise. */
  default_size: sizeText,
  /**
   * Parameters a `--like-article` run sets as the article ran them, whatever the size: its
   * connections, a time limit long enough for every row (the article ran to the end).
   */
  params: z.record(paramName, z.union([z.number(), z.string(), z.boolean()])).default({}),
  /** The article's machines; the first unless `--like-article-machine` names another. */
  machines: z.array(ArticleMachineConditions).min(1).max(10),
});
export type ArticleConditions = z.infer<typeof ArticleConditions>;
