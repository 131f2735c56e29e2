import { mkdtemp, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { scenarioYamlForVersion } from './hash.ts';
import { DEFAULT_SCENARIOS_DIR, hashScenarioFolder, listScenarioDirs, loadScenario, ScenarioError } from './index.ts';

const root = await mkdtemp(path.join(os.tmpdir(), 'tunelab-scenarios-'));
afterAll(() => rm(root, { recursive: true, force: true }));

const valid = () => ({
  key: 'demo',
  title: 'Demo',
  engines: ['postgresql'],
  params: { rows: { type: 'integer', default: 10, published: 1000, min: 1 } },
  fixture: [{ action: 'sql', file: 'fixture.sql' }],
  variants: [
    { key: 'a', label: 'A', steps: [{ action: 'timed', steps: [{ action: 'sql', sql: 'VACUUM t' }] }] },
    { key: 'b', label: 'B', steps: [{ action: 'timed', steps: [{ action: 'sql', sql: 'VACUUM FULL t' }] }] },
  ],
  comparisons: [{ baseline: 'a', candidate: 'b' }],
  metrics: [{ key: 'duration', source: 'timed', unit: 's', better: 'lower' }],
  repetitions: { default: 2, published: 5 },
});

type Files = Record<string, string>;
let n = 0;
async function folder(files: Files, name = 'demo'): Promise<string> {
  const dir = path.join(root, String(n++), name);
  await mkdir(dir, { recursive: true });
  for (const [f, text] of Object.entries(files)) await writeFile(path.join(dir, f), text);
  return dir;
}
const withDoc = (mutate: (d: ReturnType<typeof valid>) => unknown, extra: Files = {}): Files => {
  const d = valid();
  const out = mutate(d) ?? d;
  return {
    'scenario.yaml': stringify(out),
    'fixture.sql': 'CREATE TABLE t AS SELECT generate_series(1, {{rows}}) AS i;',
    'README.md': '# demo',
    ...extra,
  };
};

/** A folder whose scenario states article conditions over a published.json with one machine. */
const withArticle = (
  machine: Record<string, unknown>,
  conditions: Record<string, unknown> = {},
  published: Record<string, unknown> = {},
): Files =>
  withDoc(
    (d) => ({
      ...d,
      // A parameter that sizes memory, as innodb-compression-insert's buffer_pool_mb.
      params: { ...d.params, pool_mb: { type: 'integer', default: 16, published: 4096, min: 5 } },
      article_conditions: {
        ...conditions,
        param: 'rows',
        bytes_per_unit: 100,
        default_size: '1MB',
        machines: [
          {
            hardware: 'server-1',
            data_size: '12GB',
            data_to_memory: 0.375,
            settings_to_data: { shared_buffers: 0.6667 },
            storage_tier: 'ssd-like',
            ...machine,
          },
        ],
      },
    }),
    {
      'published.json': JSON.stringify({
        source: { title: 'An article', publisher: 'A blog' },
        scenario: 'demo',
        setup: { server_settings: { shared_buffers: '8192MB' } },
        hardware: [{ id: 'server-1', cpu_cores: 8, memory_gb: 32, disk: 'ssd', runs_s: { a: [1], b: [2] } }],
        ...published,
      }),
    },
  );

describe('loadScenario', () => {
  it('loads article conditions that agree with published.json', async () => {
    const s = await loadScenario(await folder(withArticle({})));
    expect(s.doc.article_conditions?.machines[0]?.data_to_memory).toBe(0.375);
  });

  it('loads conditions of a machine the article does not describe, a parameter scaled with the data, and a claim', async () => {
    const s = await loadScenario(
      await folder(
        withArticle(
          {
            hardware: 'article',
            label: 'a single disk',
            data_to_memory: undefined,
            settings_to_data: {},
            params_to_data: { pool_mb: { ratio: 0.3333, unit: 'MB' } },
          },
          {},
          { claims: [{ metric: 'duration', baseline: 'a', candidate: 'b', outcome: 'faster', basis: 'its chart' }] },
        ),
      ),
    );
    expect(s.doc.article_conditions?.machines[0]?.params_to_data).toEqual({ pool_mb: { ratio: 0.3333, unit: 'MB' } });
    expect(s.published?.file.claims?.[0]?.outcome).toBe('faster');
  });

  it('loads a valid folder and hashes it', async () => {
    const s = await loadScenario(await folder(withDoc(() => undefined)));
    expect(s.key).toBe('demo');
    expect(s.version).toMatch(/^[0-9a-f]{64}$/);
    expect(s.sqlFiles.get('fixture.sql')).toContain('{{rows}}');
  });

  // Each invalid folder must fail naming the file, the path inside it and what was expected.
  const cases: { name: string; files: Files; file: string; path: string; message: RegExp }[] = [
    {
      name: 'missing scenario.yaml',
      files: { 'README.md': '#' },
      file: 'demo/scenario.yaml',
      path: '(file)',
      message: /missing/,
    },
    {
      name: 'broken YAML',
      files: { 'scenario.yaml': 'key: [demo', 'README.md': '#' },
      file: 'demo/scenario.yaml',
      path: 'line 1',
      message: /invalid YAML/,
    },
    {
      name: 'key differs from folder',
      files: withDoc((d) => ({ ...d, key: 'other' })),
      file: 'demo/scenario.yaml',
      path: 'key',
      message: /folder name "demo"/,
    },
    {
      name: 'unknown engine',
      files: withDoc((d) => ({ ...d, engines: ['oracle'] })),
      file: 'demo/scenario.yaml',
      path: 'engines[0]',
      message: /postgresql/,
    },
    {
      name: 'unknown step action',
      files: withDoc((d) => {
        d.variants[1]!.steps = [{ action: 'shell', cmd: 'rm -rf /' } as never];
      }),
      file: 'demo/scenario.yaml',
      path: 'variants[1].steps[0]',
      message: /.+/,
    },
    {
      name: 'sql and file together',
      files: withDoc((d) => {
        d.fixture = [{ action: 'sql', file: 'fixture.sql', sql: 'SELECT 1' } as never];
      }),
      file: 'demo/scenario.yaml',
      path: 'fixture[0]',
      message: /exactly one of "sql"/,
    },
    {
      name: 'no timed block',
      files: withDoc((d) => {
        d.variants[0]!.steps = [{ action: 'sql', sql: 'SELECT 1' } as never];
      }),
      file: 'demo/scenario.yaml',
      path: 'variants[0].steps',
      message: /exactly one "timed" step/,
    },
    {
      name: 'comparison names unknown variant',
      files: withDoc((d) => {
        d.comparisons = [{ baseline: 'a', candidate: 'zz' }];
      }),
      file: 'demo/scenario.yaml',
      path: 'comparisons[0].candidate',
      message: /unknown variant "zz"/,
    },
    {
      name: 'unknown placeholder inline',
      files: withDoc((d) => {
        d.variants[0]!.steps[0]!.steps = [{ action: 'sql', sql: 'SELECT {{rowz}}' }];
      }),
      file: 'demo/scenario.yaml',
      path: 'variants[0].steps[0].steps[0].sql',
      message: /unknown parameter \{\{rowz\}\}; expected one of: rows/,
    },
    {
      name: 'unknown placeholder in a file',
      files: withDoc(() => undefined, { 'fixture.sql': 'SELECT 1;\nSELECT {{nope}};' }),
      file: 'demo/fixture.sql',
      path: 'line 2',
      message: /unknown parameter \{\{nope\}\}/,
    },
    {
      name: 'ratio over an unknown baseline variant',
      files: withDoc((d) => ({ ...d, report: { ratios: [{ metric: 'duration', baseline: 'zz', label: 'x' }] } })),
      file: 'demo/scenario.yaml',
      path: 'report.ratios[0].baseline',
      message: /unknown variant "zz"; expected one of: a, b/,
    },
    {
      name: 'ratio naming a figure published.json lacks',
      files: withDoc((d) => ({
        ...d,
        report: { ratios: [{ metric: 'duration', baseline: 'a', label: 'x', published: 'size_ratio' }] },
      })),
      file: 'demo/scenario.yaml',
      path: 'report.ratios[0].published',
      message: /published.json has no map of variant → number named "size_ratio"/,
    },
    {
      name: 'article conditions of a machine published.json does not describe',
      files: withArticle({ hardware: 'server-9' }),
      file: 'demo/scenario.yaml',
      path: 'article_conditions.machines[0].hardware',
      message: /published.json describes no machine "server-9"; expected one of: server-1/,
    },
    {
      name: 'a data:memory ratio for a machine the article does not describe',
      files: withArticle({ hardware: 'article', label: 'a single disk' }),
      file: 'demo/scenario.yaml',
      path: 'article_conditions.machines[0].data_to_memory',
      message: /the article does not describe "article", so its memory, and a data : memory ratio, are not known/,
    },
    {
      name: 'a parameter:data ratio that is not the article’s',
      files: withArticle({ params_to_data: { pool_mb: { ratio: 0.5, unit: 'MB' } } }),
      file: 'demo/scenario.yaml',
      path: 'article_conditions.machines[0].params_to_data.pool_mb',
      message: /0.5 is not the article's pool_mb 4096 \(MB\) over 12GB \(0.3333\)/,
    },
    {
      name: 'a parameter:data ratio of a parameter the scenario does not declare',
      files: withArticle({ params_to_data: { pool_gb: { ratio: 0.5, unit: 'GB' } } }),
      file: 'demo/scenario.yaml',
      path: 'article_conditions.machines[0].params_to_data.pool_gb',
      message: /unknown parameter "pool_gb"; expected one of: rows, pool_mb/,
    },
    {
      name: 'an article parameter value outside its bounds',
      files: withArticle({}, { params: { pool_mb: 1 } }),
      file: 'demo/scenario.yaml',
      path: 'article_conditions.params.pool_mb',
      message: /expected at least 5/,
    },
    {
      name: 'a claim on a metric the scenario does not record',
      files: withArticle(
        {},
        {},
        { claims: [{ metric: 'tps', baseline: 'a', candidate: 'b', outcome: 'faster', basis: 'x' }] },
      ),
      file: 'demo/published.json',
      path: 'claims[0].metric',
      message: /unknown metric "tps"; expected one of: duration/,
    },
    {
      name: 'a claim on a variant the scenario does not have',
      files: withArticle(
        {},
        {},
        { claims: [{ metric: 'duration', baseline: 'a', candidate: 'c', outcome: 'none', basis: 'x' }] },
      ),
      file: 'demo/published.json',
      path: 'claims[0].candidate',
      message: /unknown variant "c"; expected one of: a, b/,
    },
    {
      name: 'a data:memory ratio that is not the article’s',
      files: withArticle({ data_to_memory: 0.5 }),
      file: 'demo/scenario.yaml',
      path: 'article_conditions.machines[0].data_to_memory',
      message: /0.5 is not 12GB over the 32 GB of published.json's server-1 \(0.375\)/,
    },
    {
      name: 'a setting:data ratio that is not the article’s',
      files: withArticle({ settings_to_data: { shared_buffers: 0.25 } }),
      file: 'demo/scenario.yaml',
      path: 'article_conditions.machines[0].settings_to_data.shared_buffers',
      message: /0.25 is not published.json's shared_buffers 8192MB over 12GB \(0.6667\)/,
    },
    {
      name: 'missing SQL file',
      files: withDoc((d) => {
        d.fixture = [{ action: 'sql', file: 'missing.sql' }];
      }),
      file: 'demo/scenario.yaml',
      path: 'fixture[0].file',
      message: /existing file demo\/missing.sql/,
    },
    {
      name: 'SQL file outside the folder',
      files: withDoc((d) => {
        d.fixture = [{ action: 'sql', file: '../etc/passwd.sql' }];
      }),
      file: 'demo/scenario.yaml',
      path: 'fixture[0].file',
      message: /inside the scenario folder/,
    },
    {
      name: 'default below min',
      files: withDoc((d) => {
        d.params.rows.default = 0;
      }),
      file: 'demo/scenario.yaml',
      path: 'params.rows.default',
      message: /at least 1/,
    },
    {
      name: 'metric without unit',
      files: withDoc((d) => {
        d.metrics = [{ key: 'duration', source: 'timed', better: 'lower' } as never];
      }),
      file: 'demo/scenario.yaml',
      path: 'metrics[0].unit',
      message: /.+/,
    },
    {
      name: 'timed block metric undeclared',
      files: withDoc((d) => {
        (d.variants[0]!.steps[0] as Record<string, unknown>).metric = 'elapsed';
      }),
      file: 'demo/scenario.yaml',
      path: 'variants[0].steps[0].metric',
      message: /not declared in metrics/,
    },
    {
      name: 'unexpected field',
      files: withDoc((d) => ({ ...d, colour: 'blue' })),
      file: 'demo/scenario.yaml',
      path: '(root)',
      message: /colour/,
    },
    {
      name: 'missing README',
      files: (() => {
        const f = withDoc(() => undefined);
        delete f['README.md'];
        return f;
      })(),
      file: 'demo/README.md',
      path: '(file)',
      message: /missing/,
    },
    {
      name: 'published.json without source',
      files: withDoc(() => undefined, { 'published.json': '{"scenario":"demo"}' }),
      file: 'demo/published.json',
      path: 'source',
      message: /.+/,
    },
  ];

  it.each(cases)('rejects: $name', async ({ files, file, path: where, message }) => {
    const err = await loadScenario(await folder(files)).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ScenarioError);
    const issues = (err as ScenarioError).issues;
    const hit = issues.find((i) => i.file === file && i.path === where);
    expect(hit, JSON.stringify(issues)).toBeDefined();
    expect(hit!.message).toMatch(message);
    expect((err as ScenarioError).message).toContain(`${file}: ${where}: `);
  });
});

describe('scenario version', () => {
  it('depends on paths and bytes only, and changes with any edit', async () => {
    const files = withDoc(() => undefined);
    const a = await folder(files);
    const b = await folder(Object.fromEntries(Object.entries(files).reverse()));
    expect(await hashScenarioFolder(a)).toBe(await hashScenarioFolder(b));
    await writeFile(path.join(b, 'README.md'), '# demo, edited');
    expect(await hashScenarioFolder(a)).not.toBe(await hashScenarioFolder(b));
    await writeFile(path.join(b, 'README.md'), '# demo');
    await writeFile(path.join(b, 'extra.txt'), '');
    expect(await hashScenarioFolder(a)).not.toBe(await hashScenarioFolder(b));
  });
});

describe('scenario version and the advise block', () => {
  const block = [
    '',
    '# What `tunelab advise` names for this scenario.',
    'advise:',
    '  tables: { set: bloated, min_dead_tuples: 1000, min_dead_fraction: 0.2 }',
    '  scale: rows',
    '  rule: "bloated tables"',
    '  why: "{deadTuples:int} dead"',
    '  params:',
    '    rows: { fact: tuples }',
  ].join('\n');
  const yamlOf = async (dir: string) => readFile(path.join(dir, 'scenario.yaml'), 'utf8');

  it('leaves out advise: — adding or editing it keeps the version, editing a step does not', async () => {
    const base = await folder(withDoc(() => undefined));
    const plain = await yamlOf(base);
    const version = await hashScenarioFolder(base);

    const withAdvise = await folder(withDoc(() => undefined));
    await writeFile(path.join(withAdvise, 'scenario.yaml'), `${plain}${block}\n`);
    expect(await hashScenarioFolder(withAdvise)).toBe(version);

    await writeFile(
      path.join(withAdvise, 'scenario.yaml'),
      `${plain}${block.replace('min_dead_tuples: 1000', 'min_dead_tuples: 5')}\n`,
    );
    expect(await hashScenarioFolder(withAdvise)).toBe(version);

    const stepEdited = plain.replace('VACUUM FULL t', 'VACUUM (FULL, ANALYZE) t');
    expect(stepEdited).not.toBe(plain);
    await writeFile(path.join(withAdvise, 'scenario.yaml'), `${stepEdited}${block}\n`);
    expect(await hashScenarioFolder(withAdvise)).not.toBe(version);
  });

  it('cuts only the advise member: a key after it stays in the version', () => {
    const text = `key: demo\n${block}\n\nreport:\n  relevant_settings: [a]\n`;
    expect(scenarioYamlForVersion(text)).toBe('key: demo\n\nreport:\n  relevant_settings: [a]\n');
    expect(scenarioYamlForVersion('key: demo\nadvisor: x\n')).toBe('key: demo\nadvisor: x\n');
  });
});

describe('the repository scenarios', () => {
  it('all validate', async () => {
    const dirs = await listScenarioDirs(DEFAULT_SCENARIOS_DIR);
    expect(dirs.map((d) => path.basename(d))).toEqual(
      expect.arrayContaining(['vacuum-index-cleanup', 'vacuum-full-rewrite']),
    );
    for (const d of dirs) await expect(loadScenario(d)).resolves.toMatchObject({ key: path.basename(d) });
  });

  it('each default run can answer: at least 3 repetitions per variant and point', async () => {
    // @tunelab/stats gives no verdict on fewer than 3 runs of each variant (verdict's minN), and
    // the runner runs every variant at every sweep point `repetitions.default` times.
    const tooFew: string[] = [];
    for (const d of await listScenarioDirs(DEFAULT_SCENARIOS_DIR)) {
      const { doc } = await loadScenario(d);
      if (doc.repetitions.default < 3) tooFew.push(`${doc.key}: repetitions.default ${doc.repetitions.default}`);
    }
    expect(tooFew).toEqual([]);
  });
});
