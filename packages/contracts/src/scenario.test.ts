import { describe, expect, it } from 'vitest';
import { parseSizeText } from './article-conditions.ts';
import {
  findPlaceholders,
  formatIssuePath,
  resolveParams,
  substituteParams,
  validateScenarioDocument,
  type ParamDef,
} from './scenario.ts';

const doc = () => ({
  key: 'demo',
  title: 'Demo',
  engines: ['postgresql'],
  params: {
    rows: { type: 'integer', default: 10, published: 1000, min: 1 },
    mode: { type: 'enum', choices: ['on', 'off'], default: 'on' },
  },
  fixture: [{ action: 'sql', sql: 'CREATE TABLE t AS SELECT generate_series(1, {{rows}}) i' }],
  variants: [
    {
      key: 'a',
      label: 'A',
      steps: [
        { action: 'set', name: 'work_mem', value: '64MB' },
        { action: 'timed', steps: [{ action: 'sql', sql: 'VACUUM t' }] },
      ],
    },
    {
      key: 'b',
      label: 'B',
      steps: [{ action: 'timed', steps: [{ action: 'sql', sql: 'VACUUM (INDEX_CLEANUP {{mode}}) t' }] }],
    },
  ],
  comparisons: [{ baseline: 'a', candidate: 'b' }],
  metrics: [
    { key: 'duration', source: 'timed', unit: 's', better: 'lower' },
    { key: 'size', source: 'relation_size', relation: 't', part: 'total', at: 'after', unit: 'bytes', better: 'lower' },
  ],
  repetitions: { default: 3, published: 5 },
});

const articleMachine = () => ({
  hardware: 'server-1',
  data_size: '12GB',
  data_to_memory: 0.375,
  settings_to_data: { shared_buffers: 0.6667 },
  storage_tier: 'ssd-like',
});
const articleConditions = () => ({
  param: 'rows',
  bytes_per_unit: 499,
  default_size: '256MB',
  machines: [articleMachine()],
});

describe('ScenarioDocument', () => {
  it('accepts article conditions and reads their sizes', () => {
    const r = validateScenarioDocument({ ...doc(), article_conditions: articleConditions() });
    expect(r.ok).toBe(true);
    if (r.ok) expect(r.scenario.article_conditions?.machines[0]?.settings_to_data).toEqual({ shared_buffers: 0.6667 });
    expect(parseSizeText('256MB')).toBe(256 * 1024 ** 2);
    expect(parseSizeText('12 GB')).toBe(12 * 1024 ** 3);
    expect(parseSizeText('6552kB')).toBe(6552 * 1024);
    expect(parseSizeText('1.5GB')).toBe(1.5 * 1024 ** 3);
    expect(parseSizeText('256')).toBeNull();
    expect(parseSizeText('256mb')).toBeNull();
  });

  it.each([
    ['article conditions over an unknown parameter', { param: 'tables' }, 'article_conditions.param'],
    ['article conditions over an enum parameter', { param: 'mode' }, 'article_conditions.param'],
    ['article conditions without a size unit', { default_size: '256' }, 'article_conditions.default_size'],
    [
      'article conditions whose default size is below the parameter minimum',
      { default_size: '1kB', bytes_per_unit: 1e6 },
      'article_conditions.default_size',
    ],
    ['article conditions with a negative bytes per unit', { bytes_per_unit: -1 }, 'article_conditions.bytes_per_unit'],
    ['article conditions without machines', { machines: [] }, 'article_conditions.machines'],
    [
      'article conditions listing a machine twice',
      { machines: [articleMachine(), articleMachine()] },
      'article_conditions.machines[1].hardware',
    ],
    [
      'an article machine with a ratio of zero',
      { machines: [{ ...articleMachine(), data_to_memory: 0 }] },
      'article_conditions.machines[0].data_to_memory',
    ],
    [
      'an article machine with an unknown storage tier',
      { machines: [{ ...articleMachine(), storage_tier: 'floppy' }] },
      'article_conditions.machines[0].storage_tier',
    ],
    [
      'an article machine scaling a setting that is not a setting name',
      { machines: [{ ...articleMachine(), settings_to_data: { 'Shared Buffers': 0.5 } }] },
      'article_conditions.machines[0].settings_to_data.Shared Buffers',
    ],
  ] as const)('rejects %s at %s', (_name, change, path) => {
    const r = validateScenarioDocument({ ...doc(), article_conditions: { ...articleConditions(), ...change } });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.issues.map((i) => i.path)).toContain(path);
  });

  it('accepts a valid document and fills defaults', () => {
    const r = validateScenarioDocument(doc());
    expect(r.ok).toBe(true);
    if (r.ok) {
      expect(r.scenario.settings).toEqual({ session: {}, expect: {}, global: {} });
      expect(r.scenario.variants[0]!.steps[1]).toMatchObject({ action: 'timed', metric: 'duration' });
    }
  });

  it.each([
    ['duplicate variant', (d: ReturnType<typeof doc>) => d.variants.push({ ...d.variants[0]! }), 'variants[2].key'],
    [
      'comparison with itself',
      (d: ReturnType<typeof doc>) => (d.comparisons = [{ baseline: 'a', candidate: 'a' }]),
      'comparisons[0]',
    ],
    [
      'quoted relation',
      (d: ReturnType<typeof doc>) => ((d.metrics[1] as Record<string, unknown>).relation = 't"; DROP'),
      'metrics[1].relation',
    ],
    [
      'placeholder of undeclared param',
      (d: ReturnType<typeof doc>) => (d.fixture[0]!.sql = 'SELECT {{x}}'),
      'fixture[0].sql',
    ],
    [
      'enum default not a choice',
      (d: ReturnType<typeof doc>) => (d.params.mode.default = 'maybe'),
      'params.mode.default',
    ],
    [
      'enum choice with SQL characters',
      (d: ReturnType<typeof doc>) => (d.params.mode.choices = ["on'; --"]),
      'params.mode.choices[0]',
    ],
    [
      'sweep over an undeclared parameter',
      (d: ReturnType<typeof doc>) => Object.assign(d, { sweep: { param: 'vus', default: [1] } }),
      'sweep.param',
    ],
    [
      'sweep over an enum parameter',
      (d: ReturnType<typeof doc>) => Object.assign(d, { sweep: { param: 'mode', default: [1] } }),
      'sweep.param',
    ],
    [
      'sweep value below the minimum',
      (d: ReturnType<typeof doc>) => Object.assign(d, { sweep: { param: 'rows', default: [10, 0] } }),
      'sweep.default[1]',
    ],
    [
      'sweep value twice',
      (d: ReturnType<typeof doc>) => Object.assign(d, { sweep: { param: 'rows', default: [10, 10] } }),
      'sweep.default',
    ],
    [
      'fixture using the swept parameter',
      (d: ReturnType<typeof doc>) => Object.assign(d, { sweep: { param: 'rows', default: [10, 20] } }),
      'fixture[0]',
    ],
    [
      'scale over an enum parameter',
      (d: ReturnType<typeof doc>) => Object.assign(d, { scale: { param: 'mode', points: [1, 2, 3] } }),
      'scale.param',
    ],
    [
      'scale without points on a parameter that is not swept',
      (d: ReturnType<typeof doc>) => Object.assign(d, { scale: { param: 'rows' } }),
      'scale.points',
    ],
    [
      'scale point below the minimum',
      (d: ReturnType<typeof doc>) => Object.assign(d, { scale: { param: 'rows', points: [10, 0, 30] } }),
      'scale.points[1]',
    ],
    [
      'scale with two points',
      (d: ReturnType<typeof doc>) => Object.assign(d, { scale: { param: 'rows', points: [10, 20] } }),
      'scale.points',
    ],
    [
      'report on an undeclared metric',
      (d: ReturnType<typeof doc>) => Object.assign(d, { report: { charts: [{ kind: 'sweep', metric: 'nopm' }] } }),
      'report.charts[0].metric',
    ],
    [
      'report primary metric undeclared',
      (d: ReturnType<typeof doc>) => Object.assign(d, { report: { primary_metric: 'nope' } }),
      'report.primary_metric',
    ],
    [
      'report setting that is not a setting name',
      (d: ReturnType<typeof doc>) => Object.assign(d, { report: { relevant_settings: ['Shared Buffers'] } }),
      'report.relevant_settings[0]',
    ],
  ])('rejects %s at %s', (_name, mutate, path) => {
    const d = doc();
    mutate(d);
    const r = validateScenarioDocument(d, 'demo/scenario.yaml');
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.issues.map((i) => i.path)).toContain(path);
    if (!r.ok) expect(r.issues.every((i) => i.file === 'demo/scenario.yaml')).toBe(true);
  });
});

describe('report', () => {
  it('defaults to no extra charts and no relevant settings; accepts sweep and series charts', () => {
    const plain = validateScenarioDocument(doc());
    expect(plain.ok && plain.scenario.report).toEqual({ relevant_settings: [], charts: [] });
    const r = validateScenarioDocument({
      ...doc(),
      report: {
        primary_metric: 'size',
        relevant_settings: ['maintenance_work_mem'],
        charts: [
          { kind: 'sweep', metric: 'duration', log: 'xy' },
          { kind: 'series', metric: 'rows_per_s', unit: 'rows/s', better: 'higher', x_label: 'rows inserted' },
        ],
      },
    });
    expect(r.ok).toBe(true);
    if (r.ok) expect(r.scenario.report.charts.map((c) => `${c.kind}:${c.log}`)).toEqual(['sweep:xy', 'series:none']);
  });
});

describe('parameters', () => {
  const defs: Record<string, ParamDef> = {
    rows: { type: 'integer', default: 10, published: 1000, min: 1 },
    ratio: { type: 'number', default: 0.5, max: 1 },
    on: { type: 'boolean', default: true },
    mode: { type: 'enum', choices: ['a', 'b'], default: 'a' },
  };
  it('resolves defaults, the published scale and typed overrides', () => {
    expect(resolveParams(defs)).toEqual({ ok: true, params: { rows: 10, ratio: 0.5, on: true, mode: 'a' } });
    expect(resolveParams(defs, {}, 'published')).toMatchObject({ params: { rows: 1000 } });
    expect(resolveParams(defs, { rows: '1_000', on: 'off', mode: 'b' })).toMatchObject({
      params: { rows: 1000, on: false, mode: 'b' },
    });
  });
  it('rejects bad overrides with the reason', () => {
    const r = resolveParams(defs, { rows: '0', ratio: 'x', mode: "a'", nope: '1' });
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.errors).toEqual(
        expect.arrayContaining([
          expect.stringMatching(/rows=0: expected at least 1/),
          expect.stringMatching(/unknown parameter "nope"/),
          expect.stringMatching(/mode=a': expected one of: a, b/),
        ]),
      );
    }
  });
  it.each(['constructor', 'toString', 'hasOwnProperty', 'valueOf', '__proto__'])(
    'refuses --param %s=x as unknown (own-property lookups only)',
    (name) => {
      const r = resolveParams(defs, Object.fromEntries([[name, 'x']]));
      expect(r.ok).toBe(false);
      if (!r.ok) expect(r.errors).toEqual([expect.stringMatching(new RegExp(`unknown parameter "${name}"`))]);
      expect(() => substituteParams(`{{${name}}}`, { rows: 5 })).toThrow(/unknown parameter/);
    },
  );
  it('substitutes declared placeholders only', () => {
    expect(findPlaceholders('a {{rows}} b {{ mode }}')).toEqual(['rows', 'mode']);
    expect(substituteParams('LIMIT {{rows}}', { rows: 5 })).toBe('LIMIT 5');
    expect(() => substituteParams('{{x}}', {})).toThrow(/unknown parameter/);
  });
  it('formats issue paths', () => {
    expect(formatIssuePath(['variants', 1, 'steps', 0, 'sql'])).toBe('variants[1].steps[0].sql');
    expect(formatIssuePath([])).toBe('(root)');
  });
});

describe('variants that keep a database of their own (setup)', () => {
  const kept = () => {
    const d = doc();
    return {
      ...d,
      params: { ...d.params, users: { type: 'integer', default: 1, min: 1 } },
      sweep: { param: 'users', default: [1, 2] },
      variants: d.variants.map((v) => ({
        ...v,
        setup: [{ action: 'sql', sql: 'ALTER TABLE t SET (fillfactor = 80)' }],
      })),
    };
  };

  it('accepts a setup on every variant', () => {
    const r = validateScenarioDocument(kept());
    expect(r.ok).toBe(true);
    if (r.ok) expect(r.scenario.variants.map((v) => v.setup?.length)).toEqual([1, 1]);
  });

  it('refuses a setup on some variants only, naming the one without', () => {
    const d = kept();
    delete (d.variants[1] as { setup?: unknown }).setup;
    const r = validateScenarioDocument(d);
    expect(r.ok).toBe(false);
    if (!r.ok) {
      const issue = r.issues.find((i) => i.path === 'variants[1].setup');
      expect(issue?.message).toMatch(/1 of 2 variants keep a database of their own .*every variant must, or none/);
    }
  });

  it('refuses a setup that uses the swept parameter or a timed block', () => {
    const d = kept();
    d.variants[0]!.setup = [{ action: 'sql', sql: 'SELECT {{users}}' }];
    const swept = validateScenarioDocument(d);
    expect(swept.ok).toBe(false);
    if (!swept.ok)
      expect(swept.issues.find((i) => i.path === 'variants[0].setup[0]')?.message).toMatch(
        /runs once for every sweep point and cannot use the swept parameter \{\{users\}\}/,
      );
    const e = kept();
    e.variants[0]!.setup = [{ action: 'timed', steps: [{ action: 'sql', sql: 'VACUUM t' }] } as never];
    const timed = validateScenarioDocument(e);
    expect(timed.ok).toBe(false);
    if (!timed.ok) expect(timed.issues.map((i) => i.path).join(' ')).toMatch(/variants\[0\]\.setup\[0\]/);
  });
});
