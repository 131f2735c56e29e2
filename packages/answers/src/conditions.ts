/**
 * The essential conditions a scenario declares (published.json `conditions`, schema in
 * @tunelab/scenarios), held against what a measured group's runs recorded: the smallest value of
 * a metric over the group's units (of one variant when the condition names one, at the group's
 * sweep point), a parameter, or a relevant server setting (a setting no run recorded is the
 * engine's default, as in the settings rule). A condition that is not met, or whose value the
 * group did not record, is a reason the group is not comparable with the article — never passed.
 */
import { ownValue, type PublishedFile, type ScenarioDocument } from '@tunelab/contracts';
import { publishedConditions, type ConditionValue, type EssentialCondition } from '@tunelab/scenarios';
import type { UnitSample } from './figures.ts';
import { normalizeSetting, sameSetting } from './settings.ts';

/** What a condition reads from a group (a subset of a comparison group). */
export type ConditionGroup = {
  source: string;
  params: Record<string, unknown>;
  point?: { param: string; value: number } | undefined;
  settings: Record<string, string[]>;
};

type Kind = 'bytes' | 'seconds' | null;
type Quantity = { value: number; kind: Kind };

const SIZE: Record<string, number> = {
  b: 1,
  byte: 1,
  bytes: 1,
  kb: 1024,
  kib: 1024,
  mb: 1024 ** 2,
  mib: 1024 ** 2,
  gb: 1024 ** 3,
  gib: 1024 ** 3,
  tb: 1024 ** 4,
};
const TIME: Record<string, number> = { us: 1e-6, ms: 1e-3, s: 1, min: 60, h: 3600 };

/** A value in a unit as bytes or seconds, or as it is when the unit is neither. */
function quantity(value: number, unit: string | undefined): Quantity {
  const u = (unit ?? '').trim().toLowerCase();
  const size = ownValue(SIZE, u);
  if (size !== undefined) return { value: value * size, kind: 'bytes' };
  const time = ownValue(TIME, u);
  if (time !== undefined) return { value: value * time, kind: 'seconds' };
  return { value, kind: null };
}

/** "16777216", "128MB", "5min" as a quantity; null for a setting that is not a number. */
function settingQuantity(text: string): Quantity | null {
  const n = normalizeSetting(text);
  const m = /^(-?\d+(?:\.\d+)?)(B|ms)?$/.exec(n);
  if (!m) return null;
  const x = Number(m[1]);
  return m[2] === 'B'
    ? { value: x, kind: 'bytes' }
    : m[2] === 'ms'
      ? { value: x / 1000, kind: 'seconds' }
      : { value: x, kind: null };
}

const plain = (x: number) => x.toLocaleString('en-US', { maximumFractionDigits: 3 });

/** 138,424,320 bytes → "132.0 MiB"; 18,000 s → "300 min". */
export function formatQuantity(q: Quantity): string {
  if (q.kind === 'bytes') {
    const gib = q.value / 1024 ** 3;
    return gib >= 1 ? `${gib.toFixed(1)} GiB` : `${(q.value / 1024 ** 2).toFixed(1)} MiB`;
  }
  if (q.kind === 'seconds')
    return q.value >= 120 ? `${plain(Math.round((q.value / 60) * 10) / 10)} min` : `${plain(q.value)} s`;
  return plain(q.value);
}

type Read =
  | { recorded: false; name: string }
  | { recorded: true; name: string; quantities: { q: Quantity; text: string }[]; raw: string[] };

function nameOf(v: ConditionValue): string {
  if ('metric' in v) return `${v.metric}${v.variant ? ` of ${v.variant}` : ''}`;
  if ('param' in v) return v.param;
  return v.setting;
}

function atPoint(s: UnitSample, g: ConditionGroup): boolean {
  if (!g.point || !s.point) return true;
  return s.point.param === g.point.param && s.point.value === g.point.value;
}

/** Every value of `v` the group recorded, as quantities (for thresholds) and as text (for `equals`). */
function read(
  v: ConditionValue,
  c: EssentialCondition,
  g: ConditionGroup,
  doc: ScenarioDocument,
  samples: readonly UnitSample[],
): Read {
  const name = nameOf(v);
  if ('metric' in v) {
    const unit = doc.metrics.find((m) => m.key === v.metric)?.unit;
    const xs = samples
      .filter((s) => s.metric === v.metric && (v.variant === undefined || s.variant === v.variant) && atPoint(s, g))
      .map((s) => s.value);
    if (xs.length === 0) return { recorded: false, name };
    return {
      recorded: true,
      name,
      quantities: xs.map((x) => {
        const q = quantity(x, unit);
        return { q, text: formatQuantity(q) };
      }),
      raw: xs.map(String),
    };
  }
  if ('param' in v) {
    const here = g.point?.param === v.param ? g.point.value : g.params[v.param];
    if (typeof here === 'number') {
      const q = quantity(here, c.unit);
      return { recorded: true, name, quantities: [{ q, text: formatQuantity(q) }], raw: [String(here)] };
    }
    if (typeof here === 'string' || typeof here === 'boolean')
      return { recorded: true, name, quantities: [], raw: [String(here)] };
    return { recorded: false, name };
  }
  // Groups carry each relevant setting: the values their runs recorded, else "X (default)" (the
  // engine's default, which @tunelab/answers knows), else "server default" (not known).
  const values = (g.settings[v.setting] ?? []).filter((x) => x !== 'server default');
  if (values.length === 0) return { recorded: false, name };
  return {
    recorded: true,
    name,
    quantities: values.flatMap((text) => {
      const q = settingQuantity(text.replace(/ \(default\)$/, ''));
      return q ? [{ q, text: `${formatQuantity(q)}${text.endsWith(' (default)') ? ' (default)' : ''}` }] : [];
    }),
    raw: values,
  };
}

export type ConditionCheck = {
  key: string;
  label: string;
  /** true: met; false: not met; null: not recorded by the group. */
  met: boolean | null;
  /** "tablespace_size of uncompressed 29.0 MiB here, at least 1.25 × innodb_buffer_pool_size 256.0 MiB = 320.0 MiB needed" */
  text: string;
};

function checkOne(
  c: EssentialCondition,
  g: ConditionGroup,
  doc: ScenarioDocument,
  samples: readonly UnitSample[],
): ConditionCheck {
  const base = { key: c.key, label: c.label };
  const value = read(c.value, c, g, doc, samples);
  if (!value.recorded) return { ...base, met: null, text: `${value.name} not recorded here` };
  if (c.equals !== undefined) {
    const differs = value.raw.filter((x) => !sameSetting(x.replace(/ \(default\)$/, ''), c.equals!));
    return {
      ...base,
      met: differs.length === 0,
      text: `${value.name} ${value.raw.join(' / ')} here, ${c.equals} needed`,
    };
  }
  const atLeast = c.at_least ?? 0;
  if (value.quantities.length === 0)
    return { ...base, met: null, text: `${value.name} ${value.raw.join(' / ')} here is not a number` };
  const lowest = value.quantities.reduce((a, b) => (b.q.value < a.q.value ? b : a));
  const spread = value.quantities.length > 1 ? ' (the smallest of the group’s units)' : '';
  let threshold: Quantity;
  let needed: string;
  if (c.of) {
    const of = read(c.of, c, g, doc, samples);
    if (!of.recorded) return { ...base, met: null, text: `${of.name} not recorded here` };
    if (of.quantities.length === 0)
      return { ...base, met: null, text: `${of.name} ${of.raw.join(' / ')} here is not a number` };
    // The largest of the reference: every unit must clear it.
    const ref = of.quantities.reduce((a, b) => (b.q.value > a.q.value ? b : a));
    if (ref.q.kind !== null && lowest.q.kind !== null && ref.q.kind !== lowest.q.kind)
      return {
        ...base,
        met: null,
        text: `${value.name} (${lowest.q.kind}) cannot be held against ${of.name} (${ref.q.kind})`,
      };
    threshold = { value: atLeast * ref.q.value, kind: lowest.q.kind ?? ref.q.kind };
    // A bare number (innodb_buffer_pool_size 268435456) is in the unit of what it is held against.
    const refText =
      ref.q.kind === null && lowest.q.kind !== null
        ? `${formatQuantity({ value: ref.q.value, kind: lowest.q.kind })}${ref.text.endsWith(' (default)') ? ' (default)' : ''}`
        : ref.text;
    needed = `at least ${plain(atLeast)} × ${of.name} ${refText} = ${formatQuantity(threshold)} needed`;
  } else {
    threshold = quantity(atLeast, c.unit);
    needed = `at least ${formatQuantity(threshold)} needed`;
  }
  return {
    ...base,
    met: lowest.q.value >= threshold.value,
    text: `${value.name} ${lowest.text}${spread} here, ${needed}`,
  };
}

/**
 * Every declared condition held against a measured group. The article's own groups are not held
 * against its conditions (its figures are what they describe): an empty list for them.
 */
export function evaluateConditions(
  doc: ScenarioDocument,
  published: PublishedFile | null,
  g: ConditionGroup,
  samples: readonly UnitSample[],
): ConditionCheck[] {
  const declared = publishedConditions(published);
  if (!declared || g.source === 'published') return [];
  return declared.essential.map((c) => checkOne(c, g, doc, samples));
}

/** "the plain table’s data outgrows the buffer pool — tablespace_size of uncompressed …" per condition not met or not recorded. */
export function conditionReasons(checks: readonly ConditionCheck[]): string[] {
  return checks.filter((c) => c.met !== true).map((c) => `${c.label} — ${c.text}`);
}

/** The metrics a scenario's conditions read: a caller that loads samples for the answers loads these too. */
export function conditionMetrics(published: PublishedFile | null): string[] {
  const declared = publishedConditions(published);
  const metrics = (declared?.essential ?? []).flatMap((c) =>
    [c.value, c.of].flatMap((v) => (v && 'metric' in v ? [v.metric] : [])),
  );
  return [...new Set(metrics)];
}

/** The declared conditions in words, for the rule text of a scenario. */
export function conditionsSentence(published: PublishedFile | null): string {
  const declared = publishedConditions(published);
  if (!declared) return 'This scenario declares no essential conditions (its published.json has no `conditions`).';
  if (declared.essential.length === 0)
    return `This scenario declares no essential condition beyond scale, storage and settings: ${declared.why}`;
  const one = (c: EssentialCondition) => {
    const what =
      c.equals !== undefined
        ? `${nameOf(c.value)} = ${c.equals}`
        : c.of
          ? `${nameOf(c.value)} ≥ ${plain(c.at_least ?? 0)} × ${nameOf(c.of)}`
          : `${nameOf(c.value)} ≥ ${formatQuantity(quantity(c.at_least ?? 0, c.unit))}`;
    return `${c.label} (${what})`;
  };
  return `This scenario’s essential conditions: ${declared.essential.map(one).join('; ')}.`;
}
