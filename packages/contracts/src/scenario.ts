import { z } from 'zod';
import { Engine } from './database.ts';
import { boundedString, identifier, scalar } from './primitives.ts';

/**
 * The `scenario.yaml` of a scenario folder (`scenarios/<key>/`). A scenario is data a remote
 * runner can receive and execute safely: steps come from a small fixed set of actions (see
 * `Step`), SQL text may only interpolate declared and validated parameters (`{{rows}}`), and
 * nothing in it is ever evaluated as code. Pure zod: no Node-only imports (the site reads it too).
 */

/** `{{name}}` placeholders; names follow the parameter-name rule below. */
const PLACEHOLDER = /\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}/g;
const paramName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be a parameter name (letters, digits, _)');
/** Relation names as written in SQL; schema-qualified allowed, quoting is not. */
const relationName = z
  .string()
  .regex(/^[A-Za-z_][A-Za-z0-9_$]*(\.[A-Za-z_][A-Za-z0-9_$]*)?$/, 'must be a plain (optionally schema-qualified) relation name');
const settingName = z.string().regex(/^[a-z_][a-z0-9_.]*$/, 'must be a server setting name such as maintenance_work_mem');
const settingValue = z.union([z.string().max(200), z.number(), z.boolean()]);
/** Files referenced by a scenario live in its folder: no directories, no dot-files. */
const sqlFileName = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]*\.sql$/, 'must be a .sql file name inside the scenario folder');

// ─── Parameters ──────────────────────────────────────────────────────────────────────────────
const paramBase = {
  description: z.string().max(500).optional(),
};
export const IntegerParam = z.strictObject({
  ...paramBase,
  type: z.literal('integer'),
  /** Fast scale: a default run finishes in about a minute on a small machine. */
  default: z.number().int(),
  /** The scale the reproduced article used. */
  published: z.number().int().optional(),
  min: z.number().int().optional(),
  max: z.number().int().optional(),
});
export const NumberParam = z.strictObject({
  ...paramBase,
  type: z.literal('number'),
  default: z.number(),
  published: z.number().optional(),
  min: z.number().optional(),
  max: z.number().optional(),
});
export const BooleanParam = z.strictObject({
  ...paramBase,
  type: z.literal('boolean'),
  default: z.boolean(),
  published: z.boolean().optional(),
});
/** String parameters are closed choices of SQL-safe words, so substitution can never inject SQL. */
const choice = z.string().regex(/^[A-Za-z0-9_.-]+$/, 'must contain only letters, digits, _ . -');
export const EnumParam = z.strictObject({
  ...paramBase,
  type: z.literal('enum'),
  choices: z.array(choice).min(1),
  default: choice,
  published: choice.optional(),
});
export const ParamDef = z.discriminatedUnion('type', [IntegerParam, NumberParam, BooleanParam, EnumParam]);
export type ParamDef = z.infer<typeof ParamDef>;
export type ParamValue = number | boolean | string;

// ─── Steps ───────────────────────────────────────────────────────────────────────────────────
/**
 * Built-in step actions. Add a new action by adding a member to `PlainStep` (or `Step`) and an
 * executor in the runner's step registry; existing scenarios keep validating unchanged.
 */
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
export const SetStep = z.strictObject({
  action: z.literal('set'),
  /** Session setting, applied with set_config(name, value, false). */
  name: settingName,
  value: settingValue,
});
export const CollectKind = z.enum(['relation_sizes', 'table_stats', 'tuple_stats', 'wal']);
export const CollectStep = z.strictObject({
  action: z.literal('collect'),
  /** What to record as a note: sizes, pg_stat_user_tables counters, pgstattuple figures, WAL position. */
  what: z.array(CollectKind).min(1),
  relations: z.array(relationName).default([]),
  label: identifier,
});
/** Steps that may appear anywhere, including inside a timed block. */
export const PlainStep = z.union([SqlStep, SetStep, CollectStep]);
export type PlainStep = z.infer<typeof PlainStep>;
export const TimedStep = z.strictObject({
  action: z.literal('timed'),
  /** The metric key that receives this block's wall time (a `timed` metric). */
  metric: identifier.default('duration'),
  steps: z.array(PlainStep).min(1),
});
export type TimedStep = z.infer<typeof TimedStep>;
export const Step = z.union([PlainStep, TimedStep]);
export type Step = z.infer<typeof Step>;

// ─── Variants, comparisons, metrics ──────────────────────────────────────────────────────────
export const Variant = z.strictObject({
  key: identifier,
  label: boundedString(200),
  description: z.string().max(2000).optional(),
  steps: z.array(Step).min(1),
});
export type Variant = z.infer<typeof Variant>;

export const Comparison = z.strictObject({ baseline: identifier, candidate: identifier });
export type Comparison = z.infer<typeof Comparison>;

const metricBase = {
  key: identifier,
  label: z.string().max(200).optional(),
  better: z.enum(['lower', 'higher']),
};
const sizeUnit = z.enum(['bytes', 'kB', 'MB']);
/** Wall time of the variant's timed block with this metric key (monotonic clock). */
export const TimedMetric = z.strictObject({ ...metricBase, source: z.literal('timed'), unit: z.enum(['s', 'ms']) });
/** pg_table_size / pg_indexes_size / pg_total_relation_size before or after the timed block. */
export const RelationSizeMetric = z.strictObject({
  ...metricBase,
  source: z.literal('relation_size'),
  unit: sizeUnit,
  relation: relationName,
  part: z.enum(['table', 'indexes', 'total']),
  at: z.enum(['before', 'after']),
});
export const TABLE_STAT_COUNTERS = [
  'n_live_tup',
  'n_dead_tup',
  'n_tup_ins',
  'n_tup_upd',
  'n_tup_del',
  'n_tup_hot_upd',
  'seq_scan',
  'idx_scan',
  'vacuum_count',
  'autovacuum_count',
  'analyze_count',
] as const;
/**
 * pg_stat_user_tables counters. They are per database and start at zero in a database cloned
 * from the fixture template, so `delta` is usually what you want.
 */
export const TableStatMetric = z.strictObject({
  ...metricBase,
  source: z.literal('table_stat'),
  unit: z.string().min(1).max(32),
  relation: relationName,
  counter: z.enum(TABLE_STAT_COUNTERS),
  at: z.enum(['before', 'after', 'delta']),
});
/** pgstattuple figures (exact, read from the heap; needs the pgstattuple extension). */
export const TupleStatMetric = z.strictObject({
  ...metricBase,
  source: z.literal('tuple_stat'),
  unit: z.string().min(1).max(32),
  relation: relationName,
  field: z.enum(['tuple_count', 'dead_tuple_count', 'tuple_len', 'dead_tuple_len', 'free_space', 'table_len']),
  at: z.enum(['before', 'after']),
});
/** WAL generated during the timed block (pg_stat_wal on PG14+, else the pg_current_wal_lsn difference). */
export const WalMetric = z.strictObject({
  ...metricBase,
  source: z.literal('wal'),
  unit: sizeUnit,
  counter: z.literal('wal_bytes').default('wal_bytes'),
});
export const MetricDef = z.discriminatedUnion('source', [TimedMetric, RelationSizeMetric, TableStatMetric, TupleStatMetric, WalMetric]);
export type MetricDef = z.infer<typeof MetricDef>;

// ─── The scenario document ───────────────────────────────────────────────────────────────────
export const ScenarioDocument = z
  .strictObject({
    key: identifier,
    title: boundedString(300),
    engines: z.array(Engine).min(1),
    requires: z
      .strictObject({
        /** Minimum server_version_num, e.g. 120000 for INDEX_CLEANUP. */
        minServerVersionNum: z.number().int().positive().optional(),
        extensions: z.array(z.string().regex(/^[a-z_][a-z0-9_]*$/)).default([]),
      })
      .default({ extensions: [] }),
    params: z.record(paramName, ParamDef).default({}),
    settings: z
      .strictObject({
        /** Applied to every session the runner opens on the databases it creates. */
        session: z.record(settingName, settingValue).default({}),
        /** Server-wide settings the article used; a mismatch is recorded as a warning, not an error. */
        expect: z.record(settingName, settingValue).default({}),
      })
      .default({ session: {}, expect: {} }),
    /** Built once into a template database, then cloned before every variant × repetition. */
    fixture: z.array(PlainStep).min(1),
    variants: z.array(Variant).min(1).max(50),
    comparisons: z.array(Comparison).default([]),
    metrics: z.array(MetricDef).min(1),
    repetitions: z.strictObject({
      default: z.number().int().min(1).max(1000),
      published: z.number().int().min(1).max(1000).optional(),
    }),
  })
  .superRefine((doc, ctx) => {
    const variantKeys = new Set<string>();
    doc.variants.forEach((v, i) => {
      if (variantKeys.has(v.key)) ctx.addIssue({ code: 'custom', path: ['variants', i, 'key'], message: `duplicate variant key "${v.key}"` });
      variantKeys.add(v.key);
      const timed = v.steps.filter((s) => s.action === 'timed');
      if (timed.length !== 1) {
        ctx.addIssue({ code: 'custom', path: ['variants', i, 'steps'], message: `expected exactly one "timed" step, found ${timed.length}` });
      }
    });
    doc.comparisons.forEach((c, i) => {
      for (const side of ['baseline', 'candidate'] as const) {
        if (!variantKeys.has(c[side])) {
          ctx.addIssue({
            code: 'custom',
            path: ['comparisons', i, side],
            message: `unknown variant "${c[side]}"; expected one of: ${[...variantKeys].join(', ')}`,
          });
        }
      }
      if (c.baseline === c.candidate) ctx.addIssue({ code: 'custom', path: ['comparisons', i], message: 'baseline and candidate must differ' });
    });
    const metricKeys = new Set<string>();
    doc.metrics.forEach((m, i) => {
      if (metricKeys.has(m.key)) ctx.addIssue({ code: 'custom', path: ['metrics', i, 'key'], message: `duplicate metric key "${m.key}"` });
      metricKeys.add(m.key);
    });
    const timedMetrics = new Set(doc.metrics.filter((m) => m.source === 'timed').map((m) => m.key));
    doc.variants.forEach((v, i) =>
      v.steps.forEach((s, j) => {
        if (s.action === 'timed' && !timedMetrics.has(s.metric)) {
          ctx.addIssue({
            code: 'custom',
            path: ['variants', i, 'steps', j, 'metric'],
            message: `timed block metric "${s.metric}" is not declared in metrics with source: timed`,
          });
        }
      }),
    );
    for (const [name, def] of Object.entries(doc.params)) {
      for (const field of ['default', 'published'] as const) {
        const value = def[field];
        if (value === undefined) continue;
        const problem = checkParamValue(def, value);
        if (problem) ctx.addIssue({ code: 'custom', path: ['params', name, field], message: problem });
      }
    }
    // Placeholders in inline SQL and setting values must name declared parameters.
    const declared = Object.keys(doc.params);
    const checkText = (text: string, path: (string | number)[]) => {
      for (const name of findPlaceholders(text)) {
        if (!declared.includes(name)) {
          ctx.addIssue({ code: 'custom', path, message: `unknown parameter {{${name}}}; expected one of: ${declared.join(', ') || '(none declared)'}` });
        }
      }
    };
    const checkSteps = (steps: readonly Step[], base: (string | number)[]) =>
      steps.forEach((s, j) => {
        if (s.action === 'sql' && s.sql !== undefined) checkText(s.sql, [...base, j, 'sql']);
        if (s.action === 'set' && typeof s.value === 'string') checkText(s.value, [...base, j, 'value']);
        if (s.action === 'timed') checkSteps(s.steps, [...base, j, 'steps']);
      });
    checkSteps(doc.fixture, ['fixture']);
    doc.variants.forEach((v, i) => checkSteps(v.steps, ['variants', i, 'steps']));
  });
export type ScenarioDocument = z.infer<typeof ScenarioDocument>;

/** `published.json` beside a scenario: the article's own figures, kept as reference data. */
export const PublishedReference = z.looseObject({
  source: z.looseObject({ title: boundedString(500), publisher: boundedString(200), kind: z.string().optional(), url: z.string().optional() }),
  scenario: identifier,
});
export type PublishedReference = z.infer<typeof PublishedReference>;

/** One problem found in a scenario folder: which file, where inside it, what was expected. */
export type ScenarioIssue = { file: string; path: string; message: string };

/** `variants[1].steps[0].sql` from a zod path. */
export function formatIssuePath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const p of path) {
    if (typeof p === 'number') out += `[${p}]`;
    else out += out === '' ? String(p) : `.${String(p)}`;
  }
  return out || '(root)';
}

export function formatScenarioIssue(issue: ScenarioIssue): string {
  return `${issue.file}: ${issue.path}: ${issue.message}`;
}

/** Validates a parsed `scenario.yaml`; issues carry the file name given. */
export function validateScenarioDocument(
  doc: unknown,
  file = 'scenario.yaml',
): { ok: true; scenario: ScenarioDocument } | { ok: false; issues: ScenarioIssue[] } {
  const parsed = ScenarioDocument.safeParse(doc);
  if (parsed.success) return { ok: true, scenario: parsed.data };
  return { ok: false, issues: parsed.error.issues.map((i) => ({ file, path: formatIssuePath(i.path), message: i.message })) };
}

export function findPlaceholders(text: string): string[] {
  return [...text.matchAll(PLACEHOLDER)].map((m) => m[1] ?? '');
}

function checkParamValue(def: ParamDef, value: unknown): string | null {
  switch (def.type) {
    case 'integer':
    case 'number':
      if (typeof value !== 'number' || !Number.isFinite(value)) return `expected a ${def.type}`;
      if (def.type === 'integer' && !Number.isInteger(value)) return 'expected an integer';
      if (def.min !== undefined && value < def.min) return `expected at least ${def.min}`;
      if (def.max !== undefined && value > def.max) return `expected at most ${def.max}`;
      return null;
    case 'boolean':
      return typeof value === 'boolean' ? null : 'expected true or false';
    case 'enum':
      return typeof value === 'string' && def.choices.includes(value) ? null : `expected one of: ${def.choices.join(', ')}`;
  }
}

/**
 * Resolves parameter values: defaults (or the published scale) overlaid with `name=value`
 * overrides from the command line, each parsed per its declared type and range-checked.
 */
export function resolveParams(
  defs: Record<string, ParamDef>,
  overrides: Record<string, string> = {},
  scale: 'default' | 'published' = 'default',
): { ok: true; params: Record<string, ParamValue> } | { ok: false; errors: string[] } {
  const params: Record<string, ParamValue> = {};
  const errors: string[] = [];
  for (const [name, def] of Object.entries(defs)) {
    params[name] = scale === 'published' && def.published !== undefined ? def.published : def.default;
  }
  for (const [name, raw] of Object.entries(overrides)) {
    const def = defs[name];
    if (!def) {
      errors.push(`unknown parameter "${name}"; expected one of: ${Object.keys(defs).join(', ') || '(none declared)'}`);
      continue;
    }
    let value: ParamValue;
    if (def.type === 'integer' || def.type === 'number') {
      value = Number(raw.replaceAll('_', ''));
      if (raw.trim() === '') value = Number.NaN;
    } else if (def.type === 'boolean') {
      value = raw === 'true' || raw === 'on' || raw === '1' ? true : raw === 'false' || raw === 'off' || raw === '0' ? false : raw;
    } else {
      value = raw;
    }
    const problem = checkParamValue(def, value);
    if (problem) errors.push(`parameter ${name}=${raw}: ${problem}`);
    else params[name] = value;
  }
  return errors.length ? { ok: false, errors } : { ok: true, params };
}

/** Replaces `{{name}}` with validated values only; an unknown name is an error, never left in place. */
export function substituteParams(text: string, params: Record<string, ParamValue>): string {
  return text.replace(PLACEHOLDER, (_, name: string) => {
    const value = params[name];
    if (value === undefined) throw new Error(`unknown parameter {{${name}}}`);
    return String(value);
  });
}

/** Scalar map used in submissions for the resolved parameters. */
export const ResolvedParams = z.record(z.string(), scalar);
