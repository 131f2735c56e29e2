import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_SCENARIOS_DIR,
  checkConditions,
  loadScenario,
  parsePublished,
  publishedMachineRuns,
  publishedVersion,
  readPublishedBytes,
  sha256Hex,
} from './index.ts';

describe('published.json', () => {
  it('reads the repository files: machines with runs in seconds, article-level runs_ms converted', async () => {
    const bytes = await readPublishedBytes(path.join(DEFAULT_SCENARIOS_DIR, 'vacuum-full-rewrite'));
    const parsed = parsePublished(bytes!, 'vacuum-full-rewrite/published.json');
    if (!parsed.ok) throw new Error(JSON.stringify(parsed.issues));
    expect(parsed.published.version).toMatch(/^[0-9a-f]{64}$/);
    const runs = publishedMachineRuns(parsed.published.file);
    expect(runs.map((r) => r.id)).toEqual(['article']);
    expect(runs[0]!.machine).toBeNull();
    expect(runs[0]!.runsSeconds['full-rewrite']![0]).toBeCloseTo(14.042748, 6);
  });

  it('has no runs for an article that printed single figures', async () => {
    const parsed = parsePublished(
      (await readPublishedBytes(path.join(DEFAULT_SCENARIOS_DIR, 'innodb-compression-insert'))) ?? '',
      'x',
    );
    if (!parsed.ok) throw new Error(JSON.stringify(parsed.issues));
    expect(publishedMachineRuns(parsed.published.file)).toEqual([]);
  });

  it('names the file and field of a bad value', () => {
    const r = parsePublished(
      JSON.stringify({
        source: { title: 't', publisher: 'p' },
        scenario: 'demo',
        hardware: [{ id: 's1', cpu_cores: 0, memory_gb: 1, disk: 'ssd' }],
      }),
      'demo/published.json',
    );
    expect(r.ok).toBe(false);
    if (!r.ok)
      expect(r.issues).toContainEqual(
        expect.objectContaining({ file: 'demo/published.json', path: 'hardware.0.cpu_cores' }),
      );
    const bad = parsePublished('{', 'demo/published.json');
    expect(bad.ok ? null : bad.issues[0]).toMatchObject({
      path: '(file)',
      message: expect.stringMatching(/invalid JSON/),
    });
  });

  it('is absent for a folder without one', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'tunelab-published-'));
    try {
      expect(await readPublishedBytes(dir)).toBeNull();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('published.json conditions', () => {
  const file = (conditions: unknown) =>
    JSON.stringify(
      { source: { title: 't', publisher: 'p' }, scenario: 'demo', runs_s: { a: [1] }, conditions },
      null,
      2,
    );

  it('names the field of a bad declaration', () => {
    const r = parsePublished(
      file({ essential: [{ key: 'k', label: 'l', value: { metric: 'm' }, why: 'w' }], why: 'w' }),
      'demo/published.json',
    );
    expect(r.ok ? null : r.issues[0]).toMatchObject({
      file: 'demo/published.json',
      path: 'conditions.essential.0',
      message: 'give either at_least or equals',
    });
    const typo = parsePublished(file({ essential: [], why: 'w', extra: 1 }), 'demo/published.json');
    expect(typo.ok ? null : typo.issues[0]?.path).toBe('conditions');
  });

  it('checks metrics, variants, parameters and settings against scenario.yaml', async () => {
    const s = await loadScenario(path.join(DEFAULT_SCENARIOS_DIR, 'innodb-compression-insert'));
    const issues = checkConditions(
      {
        essential: [
          {
            key: 'a',
            label: 'l',
            value: { metric: 'nope', variant: 'x' },
            at_least: 1,
            of: { setting: 'fsync' },
            why: 'w',
          },
          { key: 'a', label: 'l', value: { param: 'rowz' }, at_least: 1, why: 'w' },
        ],
        why: 'w',
      },
      s.doc,
      'f',
    );
    expect(issues.map((i) => i.path)).toEqual([
      'conditions.essential.0.value.metric',
      'conditions.essential.0.value.variant',
      'conditions.essential.0.of.setting',
      'conditions.essential.1.value.param',
      'conditions.essential.1.key',
    ]);
  });

  it('is left out of the published version: the article’s figures did not change', async () => {
    const bytes = (await readPublishedBytes(path.join(DEFAULT_SCENARIOS_DIR, 'vacuum-full-rewrite')))!.toString('utf8');
    const conditions = parsePublished(bytes, 'x');
    if (!conditions.ok) throw new Error(JSON.stringify(conditions.issues));
    expect(conditions.published.file['conditions']).toBeDefined();
    const { conditions: _c, ...figures } = JSON.parse(bytes) as Record<string, unknown>;
    const without = `${JSON.stringify(figures, null, 2)}\n`;
    expect(publishedVersion(bytes)).toBe(publishedVersion(without));
    expect(publishedVersion(without)).toBe(sha256Hex(without));
    // A changed figure is a new version.
    expect(publishedVersion(bytes.replace('14042.748', '14042.749'))).not.toBe(publishedVersion(bytes));
  });
});
