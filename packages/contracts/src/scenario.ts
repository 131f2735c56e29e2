import { z } from 'zod';
import { AdviseSpec, adviseIssues } from './advise.ts';
import { ArticleConditions, parseSizeText } from './article-conditions.ts';
import { Engine } from './database.ts';
import { MetricDef } from './metrics/index.ts';
import { boundedString, identifier, ownValue, scalar } from './primitives.ts';
import { paramName, settingName, settingValue } from './scenario-names.ts';
import { PlainStep, Step } from './steps/index.ts';

/**
 * The `scenario.yaml` of a scenario folder (`scenarios/<key>/`). A scenario is data a remote
 * runner can receive and execute safely: steps come from a small fixed set of actions (see
 * `Step`), SQL text may only interpolate declared and validated parameters (`{{rows}}`), and
 * nothing in it is ever evaluated as code. Pure zod: no Node-only imports (the site reads it too).
 */

/** `{{name}}` placeholders; names follow the parameter-name rule of scenario-names.ts. */
const PLACEHOLDER = /\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}/g;

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

// ─── Steps: one schema file per action in ./steps/, listed in STEP_SCHEMAS ─────────────────────
// ─── Variants, comparisons, metrics ──────────────────────────────────────────────────────────
export const Variant = z.strictObject({
  key: identifier,
  label: boundedString(200),
  description: z.string().max(2000).optional(),
  /** Runs only on these engines (e.g. a MariaDB-only table option); elsewhere skipped with a note. */
  engines: z.array(Engine).min(1).optional(),
  /**
   * Kept databases: steps run once, when the variant's own database is first cloned from the
   * template; the runner then keeps that database for the whole run and every block runs only
   * `steps` on it. For a sustained workload measured in short windows that alternate between
   * the variants (as ClickHouse's CI alternates its old and new servers): the variants' windows
   * of one block sit seconds apart instead of a rewrite apart, and each database ages the same
   * way. Either every variant has a setup or none has; without one every unit starts from a
   * fresh clone.
   */
  setup: z.array(PlainStep).min(1).optional(),
  steps: z.array(Step).min(1),
});
export type Variant = z.infer<typeof Variant>;

export const Comparison = z.strictObject({ baseline: identifier, candidate: identifier });
export type Comparison = z.infer<typeof Comparison>;

// Metric definitions: one schema file per source in ./metrics/, listed in METRIC_SCHEMAS.

// ─── Report (how the site presents the scenario) ─────────────────────────────────────────────
/** Axes drawn on a logarithmic scale: none, x only, y only or both (log–log). */
const logAxes = z.enum(['none', 'x', 'y', 'xy']).default('none');
/**
 * One metric against the sweep point (x = the swept parameter's value), one line per variant;
 * the article's points are drawn apart from the measured ones, with the verdict per point.
 */
export const SweepChart = z.strictObject({
  kind: z.literal('sweep'),
  metric: identifier,
  title: z.string().max(200).optional(),
  /** Axis title for x; default: the swept parameter's description or name. */
  x_label: z.string().max(100).optional(),
  log: logAxes,
});
/**
 * A time-series metric (points recorded with `series(metric, x, value)`) against its x, one
 * line per variant, with the point where two variants' lines cross marked.
 */
export const SeriesChart = z.strictObject({
  kind: z.literal('series'),
  metric: identifier,
  title: z.string().max(200).optional(),
  /** Unit and direction of the series' values (a series metric need not be in `metrics`). */
  unit: z.string().min(1).max(32).optional(),
  better: z.enum(['lower', 'higher']).optional(),
  x_label: z.string().max(100).optional(),
  x_unit: z.string().max(32).optional(),
  log: logAxes,
});
export const ReportChart = z.discriminatedUnion('kind', [SweepChart, SeriesChart]);
export type ReportChart = z.infer<typeof ReportChart>;
/**
 * A straight line fitted per variant over every unit of a run (least squares): `metric` against
 * `per`, its slope × `factor` printed with `label` — e.g. sync_duration (ms) per datadir_files
 * with factor 1000 and label "µs per file".
 */
export const ReportFit = z.strictObject({
  metric: identifier,
  per: identifier,
  label: z.string().min(1).max(40),
  factor: z.number().positive().default(1),
});
export type ReportFit = z.infer<typeof ReportFit>;
/**
 * A ratio to a baseline variant per hardware class, e.g. the data size of each fillfactor ÷ the
 * size at fillfactor 100, beside the article's ratio. For a metric that does not change across the
 * sweep (a size after the fixture rewrite): every unit of a class is pooled. `published` names a
 * map in published.json of variant → the article's ratio.
 */
export const ReportRatio = z.strictObject({
  metric: identifier,
  baseline: identifier,
  label: z.string().min(1).max(60),
  published: identifier.optional(),
  /**
   * How far (as a fraction of the measured ratio) the article's ratio may lie outside the measured
   * interval and still count as reproduced: the rounding of the article's own figures (whole GB →
   * ±2 % on a ratio of two of them). Default 0.
   */
  tolerance: z.number().min(0).max(0.5).default(0),
});
export type ReportRatio = z.infer<typeof ReportRatio>;
export const ReportSpec = z.strictObject({
  /** The metric that answers the scenario's question (default: duration, else the first metric). */
  primary_metric: identifier.optional(),
  /**
   * Server settings that decide the outcome. The site compares only these with the article's
   * and with other groups; a difference in one makes a verdict "not comparable".
   */
  relevant_settings: z.array(settingName).max(50).default([]),
  /** Charts beyond the defaults (a distribution per metric and a difference plot per pair). */
  charts: z.array(ReportChart).max(20).default([]),
  /** Lines fitted across the run and printed by the runner after the tables. */
  fits: z.array(ReportFit).max(10).optional(),
  /** Ratios to a baseline variant the site prints per class, beside the article's. */
  ratios: z.array(ReportRatio).max(10).optional(),
});
export type ReportSpec = z.infer<typeof ReportSpec>;

// ─── The scenario document ───────────────────────────────────────────────────────────────────
/** The message for a name that is not one of the scenario's parameters. */
function unknownParam(name: string, params: Record<string, ParamDef>): string {
  return `unknown parameter "${name}"; expected one of: ${Object.keys(params).join(', ') || '(none declared)'}`;
}

/**
 * The definition of the parameter a field names, when it is an integer parameter; else an issue on
 * the field (`role` says what the field's parameter is for) and undefined.
 */
function integerParam(
  params: Record<string, ParamDef>,
  name: string,
  role: string,
  path: (string | number)[],
  ctx: z.RefinementCtx,
): ParamDef | undefined {
  const def = ownValue(params, name);
  if (def?.type === 'integer') return def;
  ctx.addIssue({
    code: 'custom',
    path,
    message: def ? `${role} must be an integer parameter; ${name} is ${def.type}` : unknownParam(name, params),
  });
  return undefined;
}

/** The scale parameter is an integer parameter; its points lie in its bounds, or come from the sweep. */
function checkScale(
  scale: { param: string; points?: number[] | undefined },
  doc: { params: Record<string, ParamDef>; sweep?: { param: string } | undefined },
  ctx: z.RefinementCtx,
): void {
  const def = integerParam(doc.params, scale.param, 'the scale parameter', ['scale', 'param'], ctx);
  if (!def) return;
  const swept = doc.sweep?.param === scale.param;
  if (!scale.points && !swept)
    ctx.addIssue({
      code: 'custom',
      path: ['scale', 'points'],
      message: `give the values a scale run measures (at least three), unless ${scale.param} is the swept parameter`,
    });
  (scale.points ?? []).forEach((value, i) => {
    const problem = checkParamValue(def, value);
    if (problem) ctx.addIssue({ code: 'custom', path: ['scale', 'points', i], message: problem });
    else if (value <= 0)
      ctx.addIssue({ code: 'custom', path: ['scale', 'points', i], message: 'a scale is a positive number' });
  });
  if (scale.points && new Set(scale.points).size !== scale.points.length)
    ctx.addIssue({ code: 'custom', path: ['scale', 'points'], message: 'expected each value once' });
}

/**
 * The article's conditions size an integer parameter; the default size gives a value within its
 * bounds; each machine is listed once.
 */
function checkArticleConditions(
  c: ArticleConditions,
  doc: { params: Record<string, ParamDef> },
  ctx: z.RefinementCtx,
): void {
  const def = integerParam(
    doc.params,
    c.param,
    'the parameter a data size maps to',
    ['article_conditions', 'param'],
    ctx,
  );
  if (def) {
    const value = Math.round((parseSizeText(c.default_size) ?? 0) / c.bytes_per_unit);
    const problem = checkParamValue(def, value);
    if (problem)
      ctx.addIssue({
        code: 'custom',
        path: ['article_conditions', 'default_size'],
        message: `${c.default_size} is ${c.param}=${value}, outside the parameter's bounds: ${problem}`,
      });
  }
  for (const [name, value] of Object.entries(c.params)) {
    const d = ownValue(doc.params, name);
    const problem = !d
      ? unknownParam(name, doc.params)
      : name === c.param
        ? `${name} is the parameter the data size sets`
        : checkParamValue(d, value);
    if (problem) ctx.addIssue({ code: 'custom', path: ['article_conditions', 'params', name], message: problem });
  }
  const seen = new Set<string>();
  c.machines.forEach((m, i) => {
    if (
      m.data_to_memory === undefined &&
      Object.keys(m.settings_to_data).length + Object.keys(m.params_to_data).length === 0
    )
      ctx.addIssue({
        code: 'custom',
        path: ['article_conditions', 'machines', i],
        message: 'states no ratio: give data_to_memory, settings_to_data or params_to_data',
      });
    for (const name of Object.keys(m.params_to_data)) {
      const d = ownValue(doc.params, name);
      const problem =
        d?.type !== 'integer'
          ? d
            ? `a parameter scaled with the data must be an integer parameter; ${name} is ${d.type}`
            : unknownParam(name, doc.params)
          : name === c.param || Object.hasOwn(c.params, name)
            ? `${name} is set otherwise (${name === c.param ? 'the data size sets it' : 'article_conditions.params'})`
            : null;
      if (problem)
        ctx.addIssue({
          code: 'custom',
          path: ['article_conditions', 'machines', i, 'params_to_data', name],
          message: problem,
        });
    }
    if (seen.has(m.hardware))
      ctx.addIssue({
        code: 'custom',
        path: ['article_conditions', 'machines', i, 'hardware'],
        message: `machine "${m.hardware}" is listed twice`,
      });
    seen.add(m.hardware);
  });
}

/** A scenario document's fields, each checked on its own; checkScenarioDocument checks them together. */
const ScenarioFields = z.strictObject({
  key: identifier,
  title: boundedString(300),
  engines: z.array(Engine).min(1),
  /**
   * Where the scenario runs. Absent: the server named by `--target` (its driver is chosen by the
   * URL protocol). `{ managed: postgresql }`: a throwaway cluster the runner creates and removes.
   */
  target: z.strictObject({ managed: Engine }).optional(),
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
      /**
       * Server-wide settings the runner changes for the run (`SET GLOBAL`; values may use
       * `{{param}}` and size suffixes K/M/G): checked before anything is created (a user who may
       * not change them gets an error), saved, and restored in every outcome. MySQL/MariaDB only.
       */
      global: z.record(settingName, settingValue).default({}),
    })
    .default({ session: {}, expect: {}, global: {} }),
  /**
   * Measure every variant at several values of one integer parameter (virtual users, table
   * count), all in the same run: the fixture is built once, every sample carries its point.
   */
  sweep: z
    .strictObject({
      param: paramName,
      default: z.array(z.number()).min(1).max(50),
      published: z.array(z.number()).min(1).max(50).optional(),
      /**
       * `rounds` (default): every round visits every point (A B at 1, A B at 2, then again).
       * `points`: all repetitions at one point before the next, for steps that build per-point
       * state that is costly to change (recovery-init-sync grows its table set point by point).
       */
      order: z.enum(['rounds', 'points']).default('rounds'),
    })
    .optional(),
  /**
   * The integer parameter that sizes the chore (rows of the table, tables in the cluster).
   * Answers are fitted across its measured values and given at any value (GET
   * /v1/answers?at=rows:N). `points`: the values a scale run measures (`tunelab run
   * --scale-sweep`), at least three; taken from `sweep` when the scale parameter is the swept one.
   */
  scale: z
    .strictObject({
      param: paramName,
      points: z.array(z.number()).min(3).max(20).optional(),
    })
    .optional(),
  /** Built once into a template database, then cloned before every variant × repetition. */
  fixture: z.array(PlainStep).min(1),
  variants: z.array(Variant).min(1).max(50),
  comparisons: z.array(Comparison).default([]),
  metrics: z.array(MetricDef).min(1),
  repetitions: z
    .strictObject({
      default: z.number().int().min(1).max(1000),
      published: z.number().int().min(1).max(1000).optional(),
      /**
       * For a scenario whose spread is known to be high: the stopping rule is its default. A run
       * that gives no `--repetitions` and no `--until-stable` of its own, at the default scale,
       * starts at `default` (at least 3) and adds interleaved rounds while a compared variant's
       * CV is above `cv_threshold`, up to `max_repetitions`, and adds no round that would take
       * the measuring past `budget_seconds`.
       */
      until_stable: z
        .strictObject({
          cv_threshold: z.number().positive().max(1),
          max_repetitions: z.number().int().min(3).max(1000),
          budget_seconds: z.number().int().min(1).max(86_400).optional(),
        })
        .optional(),
    })
    .refine((r) => !r.until_stable || r.until_stable.max_repetitions >= Math.max(3, r.default), {
      path: ['until_stable', 'max_repetitions'],
      message: 'must be at least the starting count: default, and at least 3',
    }),
  /**
   * How a run decides (the sequential design, every scenario's default): blocks (every variant
   * once, in a random order) are added until every declared pair at every sweep point is
   * decided — its always-valid interval wholly beyond ±`margin` (differs) or wholly within it
   * (equivalent) — or until another block would pass `budget_seconds` of measuring, or at
   * `max_blocks`. `--repetitions N` runs exactly N blocks; `--budget` overrides the budget.
   * The answers judge equivalence against the same margin.
   */
  decision: z
    .strictObject({
      /** The relative change that counts as none (0.1 = ±10 %). */
      margin: z.number().positive().max(0.5).default(0.1),
      budget_seconds: z.number().int().min(1).max(86_400),
      max_blocks: z.number().int().min(3).max(1000).default(60),
    })
    .optional(),
  /** How the report site presents the scenario; optional. */
  report: ReportSpec.default({ relevant_settings: [], charts: [] }),
  /** The article's conditions as ratios, for `tunelab run --like-article` (article-conditions.ts). */
  article_conditions: ArticleConditions.optional(),
  /** Which tables `tunelab advise` names for this scenario and the run it prints (advise.ts). */
  advise: AdviseSpec.optional(),
});

type ScenarioFields = z.output<typeof ScenarioFields>;

/** A managed target is a cluster of one of the scenario's engines. */
function checkTarget(doc: ScenarioFields, ctx: z.RefinementCtx): void {
  if (doc.target && !doc.engines.includes(doc.target.managed)) {
    ctx.addIssue({
      code: 'custom',
      path: ['target', 'managed'],
      message: `a managed ${doc.target.managed} cluster, but engines lists only ${doc.engines.join(', ')}`,
    });
  }
}

/** The swept parameter is an integer parameter and its points are its values, each once; the fixture and the variants' setups do not use it. */
function checkSweep(sweep: NonNullable<ScenarioFields['sweep']>, doc: ScenarioFields, ctx: z.RefinementCtx): void {
  const def = integerParam(doc.params, sweep.param, 'the swept parameter', ['sweep', 'param'], ctx);
  if (def) {
    for (const field of ['default', 'published'] as const) {
      const list = sweep[field] ?? [];
      list.forEach((value, i) => {
        const problem = checkParamValue(def, value);
        if (problem) ctx.addIssue({ code: 'custom', path: ['sweep', field, i], message: problem });
      });
      if (new Set(list).size !== list.length)
        ctx.addIssue({ code: 'custom', path: ['sweep', field], message: 'expected each value once' });
    }
  }
  // The fixture and a variant's setup run once for every point, so they cannot depend on the swept value.
  const once = (steps: readonly PlainStep[], path: (string | number)[], what: string) =>
    steps.forEach((s, j) => {
      if (Object.values(s).some((x) => typeof x === 'string' && findPlaceholders(x).includes(sweep.param)))
        ctx.addIssue({
          code: 'custom',
          path: [...path, j],
          message: `${what} once for every sweep point and cannot use the swept parameter {{${sweep.param}}}`,
        });
    });
  once(doc.fixture, ['fixture'], 'the fixture is built');
  doc.variants.forEach((v, i) => once(v.setup ?? [], ['variants', i, 'setup'], "a variant's setup runs"));
}

/** Variant keys are unique, each variant has exactly one timed step, and a setup is everyone's or no one's. */
function checkVariants(doc: ScenarioFields, ctx: z.RefinementCtx): void {
  const variantKeys = new Set<string>();
  const kept = doc.variants.filter((v) => v.setup).length;
  doc.variants.forEach((v, i) => {
    if (kept > 0 && !v.setup)
      ctx.addIssue({
        code: 'custom',
        path: ['variants', i, 'setup'],
        message: `${kept} of ${doc.variants.length} variants keep a database of their own (setup); every variant must, or none, so that all are measured the same way`,
      });
    if (variantKeys.has(v.key))
      ctx.addIssue({ code: 'custom', path: ['variants', i, 'key'], message: `duplicate variant key "${v.key}"` });
    variantKeys.add(v.key);
    const timed = v.steps.filter((s) => s.action === 'timed');
    if (timed.length !== 1) {
      ctx.addIssue({
        code: 'custom',
        path: ['variants', i, 'steps'],
        message: `expected exactly one "timed" step, found ${timed.length}`,
      });
    }
  });
}

/** Each comparison names two different variants of the scenario. */
function checkComparisons(doc: ScenarioFields, ctx: z.RefinementCtx): void {
  const variantKeys = new Set(doc.variants.map((v) => v.key));
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
    if (c.baseline === c.candidate)
      ctx.addIssue({ code: 'custom', path: ['comparisons', i], message: 'baseline and candidate must differ' });
  });
}

/** Metric keys are unique. */
function checkMetricKeys(doc: ScenarioFields, ctx: z.RefinementCtx): void {
  const metricKeys = new Set<string>();
  doc.metrics.forEach((m, i) => {
    if (metricKeys.has(m.key))
      ctx.addIssue({ code: 'custom', path: ['metrics', i, 'key'], message: `duplicate metric key "${m.key}"` });
    metricKeys.add(m.key);
  });
}

/** The report's primary metric, sweep charts, fits and ratios name declared metrics (and ratios a variant). */
function checkReport(doc: ScenarioFields, ctx: z.RefinementCtx): void {
  const metricKeys = new Set(doc.metrics.map((m) => m.key));
  const unknownMetric = (key: string) => `unknown metric "${key}"; expected one of: ${[...metricKeys].join(', ')}`;
  if (doc.report.primary_metric !== undefined && !metricKeys.has(doc.report.primary_metric)) {
    ctx.addIssue({
      code: 'custom',
      path: ['report', 'primary_metric'],
      message: unknownMetric(doc.report.primary_metric),
    });
  }
  doc.report.charts.forEach((c, i) => {
    if (c.kind === 'sweep' && !metricKeys.has(c.metric)) {
      ctx.addIssue({ code: 'custom', path: ['report', 'charts', i, 'metric'], message: unknownMetric(c.metric) });
    }
  });
  (doc.report.fits ?? []).forEach((f, i) => {
    for (const field of ['metric', 'per'] as const) {
      if (!metricKeys.has(f[field]))
        ctx.addIssue({ code: 'custom', path: ['report', 'fits', i, field], message: unknownMetric(f[field]) });
    }
  });
  (doc.report.ratios ?? []).forEach((r, i) => {
    if (!metricKeys.has(r.metric))
      ctx.addIssue({ code: 'custom', path: ['report', 'ratios', i, 'metric'], message: unknownMetric(r.metric) });
    if (!doc.variants.some((v) => v.key === r.baseline))
      ctx.addIssue({
        code: 'custom',
        path: ['report', 'ratios', i, 'baseline'],
        message: `unknown variant "${r.baseline}"; expected one of: ${doc.variants.map((v) => v.key).join(', ')}`,
      });
  });
}

/** Every timed block's metric is declared with source: timed. */
function checkTimedMetrics(doc: ScenarioFields, ctx: z.RefinementCtx): void {
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
}

/** A parameter's default and published values are values of that parameter. */
function checkParamValues(doc: ScenarioFields, ctx: z.RefinementCtx): void {
  for (const [name, def] of Object.entries(doc.params)) {
    for (const field of ['default', 'published'] as const) {
      const value = def[field];
      if (value === undefined) continue;
      const problem = checkParamValue(def, value);
      if (problem) ctx.addIssue({ code: 'custom', path: ['params', name, field], message: problem });
    }
  }
}

/** Placeholders in inline SQL and setting values must name declared parameters. */
function checkPlaceholders(doc: ScenarioFields, ctx: z.RefinementCtx): void {
  const declared = Object.keys(doc.params);
  const checkText = (text: string, path: (string | number)[]) => {
    for (const name of findPlaceholders(text)) {
      if (!declared.includes(name)) {
        ctx.addIssue({
          code: 'custom',
          path,
          message: `unknown parameter {{${name}}}; expected one of: ${declared.join(', ') || '(none declared)'}`,
        });
      }
    }
  };
  // Every string field of every action (inline SQL, setting values, `rows: "{{rows}}"`…).
  const checkSteps = (steps: readonly Step[], base: (string | number)[]) =>
    steps.forEach((s, j) => {
      for (const [field, value] of Object.entries(s))
        if (typeof value === 'string') checkText(value, [...base, j, field]);
      if (s.action === 'timed') checkSteps(s.steps, [...base, j, 'steps']);
    });
  for (const [name, value] of Object.entries(doc.settings.global))
    if (typeof value === 'string') checkText(value, ['settings', 'global', name]);
  checkSteps(doc.fixture, ['fixture']);
  doc.variants.forEach((v, i) => {
    if (v.setup) checkSteps(v.setup, ['variants', i, 'setup']);
    checkSteps(v.steps, ['variants', i, 'steps']);
  });
}

/** The checks across fields of a scenario document, in the order their issues are reported. */
function checkScenarioDocument(doc: ScenarioFields, ctx: z.RefinementCtx): void {
  checkTarget(doc, ctx);
  if (doc.sweep) checkSweep(doc.sweep, doc, ctx);
  if (doc.scale) checkScale(doc.scale, doc, ctx);
  if (doc.article_conditions) checkArticleConditions(doc.article_conditions, doc, ctx);
  checkVariants(doc, ctx);
  checkComparisons(doc, ctx);
  checkMetricKeys(doc, ctx);
  checkReport(doc, ctx);
  checkTimedMetrics(doc, ctx);
  checkParamValues(doc, ctx);
  checkPlaceholders(doc, ctx);
  if (doc.advise) for (const issue of adviseIssues(doc.advise, doc.params)) ctx.addIssue({ code: 'custom', ...issue });
}

export const ScenarioDocument = ScenarioFields.superRefine(checkScenarioDocument);
export type ScenarioDocument = z.infer<typeof ScenarioDocument>;

/** Repeated runs per variant as an article printed them (`runs_s` in seconds or `runs_ms`). */
const PublishedRuns = z.record(z.string(), z.array(z.number()).min(1));

/** One machine an article describes, with its own runs. */
export const PublishedMachine = z.looseObject({
  id: z.string().min(1).max(100),
  label: z.string().max(300).optional(),
  cpu_cores: z.number().int().min(1),
  memory_gb: z.number().positive(),
  disk: z.string(),
  data_scale: z.number().optional(),
  runs_s: PublishedRuns.optional(),
  runs_ms: PublishedRuns.optional(),
  /** The article's own average per variant, as printed ("0:03:46"). */
  published_avg: z.record(z.string(), z.string()).optional(),
});
export type PublishedMachine = z.infer<typeof PublishedMachine>;

/** A direction the article stated for a pair, without figures (`claims` of published.json). */
export const PublishedClaim = z.strictObject({
  metric: identifier,
  baseline: z.string().min(1).max(100),
  candidate: z.string().min(1).max(100),
  /** The candidate against the baseline, in the metric's direction: better (faster), worse (slower), or no difference. */
  outcome: z.enum(['faster', 'slower', 'none']),
  /** Where the article says it, and under which conditions ("its QPS chart beyond ~70 M rows: …"). */
  basis: boundedString(500),
});
export type PublishedClaim = z.infer<typeof PublishedClaim>;

/**
 * `published.json` beside a scenario: the article's own figures, kept as reference data. The one
 * schema of that file: the runner's loader, the published importer (results-db) and the site read
 * it through `@tunelab/scenarios`. Unknown fields (setup details, sizes) are kept as narrative.
 */
export const PublishedFile = z.looseObject({
  source: z.looseObject({
    title: boundedString(500),
    publisher: boundedString(200),
    kind: z.string().optional(),
    url: z.string().optional(),
  }),
  scenario: identifier,
  setup: z
    .looseObject({
      server_settings: z.record(z.string(), z.string()).optional(),
      server_version: z.string().optional(),
      /** The article's clock tick in seconds (C `time()`: 1): a published 0 means under one tick. */
      resolution_s: z.number().positive().optional(),
    })
    .optional(),
  /** Variant key → what the article ran, in its words. */
  variants: z.record(z.string(), z.string()).optional(),
  /** Comparison pairs the article made, [baseline, candidate]. */
  comparisons: z.array(z.tuple([z.string(), z.string()])).optional(),
  metric: z.object({ name: z.string(), unit: z.string() }).optional(),
  hardware: z.array(PublishedMachine).optional(),
  /** Runs of an article that describes no machine. */
  runs_s: PublishedRuns.optional(),
  runs_ms: PublishedRuns.optional(),
  /**
   * Figures against a swept parameter (`sweep.param` of scenario.yaml): per point, each variant's
   * runs, in `unit` of the scenario's metric `metric`. Imported as one run whose samples carry
   * their point, so the site draws the article's points beside the measured ones.
   */
  sweep: z
    .looseObject({
      param: identifier,
      metric: identifier,
      unit: z.string().min(1).max(32),
      points: z
        .array(z.looseObject({ value: z.number(), runs: PublishedRuns }))
        .min(1)
        .max(50),
    })
    .optional(),
  /** Conclusions the article stated: "1-2 faster than 1-1" → per machine "37%", or sentences. */
  published_conclusions: z.record(z.string(), z.unknown()).optional(),
  /**
   * Directions the article stated without figures (a chart, a sentence): the answers hold a
   * measured pair against one where the article published no runs of it, under the scenario's
   * essential conditions and its comparability rule.
   */
  claims: z.array(PublishedClaim).max(20).optional(),
});
export type PublishedFile = z.infer<typeof PublishedFile>;

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
  return {
    ok: false,
    issues: parsed.error.issues.map((i) => ({ file, path: formatIssuePath(i.path), message: i.message })),
  };
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
      return typeof value === 'string' && def.choices.includes(value)
        ? null
        : `expected one of: ${def.choices.join(', ')}`;
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
    const def = ownValue(defs, name);
    if (!def) {
      errors.push(unknownParam(name, defs));
      continue;
    }
    let value: ParamValue;
    if (def.type === 'integer' || def.type === 'number') {
      value = Number(raw.replaceAll('_', ''));
      if (raw.trim() === '') value = Number.NaN;
    } else if (def.type === 'boolean') {
      value =
        raw === 'true' || raw === 'on' || raw === '1'
          ? true
          : raw === 'false' || raw === 'off' || raw === '0'
            ? false
            : raw;
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
    const value = ownValue(params, name);
    if (value === undefined) throw new Error(`unknown parameter {{${name}}}`);
    return String(value);
  });
}

/** Scalar map used in submissions for the resolved parameters. */
export const ResolvedParams = z.record(z.string(), scalar);
