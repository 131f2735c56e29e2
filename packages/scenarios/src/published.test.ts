import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_SCENARIOS_DIR, parsePublished, publishedMachineRuns, readPublishedBytes } from './index.ts';

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
