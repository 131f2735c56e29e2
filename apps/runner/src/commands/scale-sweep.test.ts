/**
 * `tunelab run KEY --scale-sweep` as a user runs it, against the local PostgreSQL: a copy of
 * vacuum-index-cleanup whose scale points are tiny measures three table sizes in three runs, each
 * written as its own run file; the options it cannot combine with, a scenario without a scale
 * and the scale parameter given too are usage errors (exit 2) that measure nothing.
 */
import { cp, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DEFAULT_SCENARIOS_DIR } from '@tunelab/scenarios';
import { EXIT } from '../exit-codes.ts';
import { runTunelab } from '../test-support/cli.ts';
import { TEST_PG_URL } from '../test-support/pg.ts';

const tmp = await mkdtemp(path.join(os.tmpdir(), 'tunelab-scale-sweep-'));
afterAll(() => rm(tmp, { recursive: true, force: true }));

const scenarios = path.join(tmp, 'scenarios');
for (const key of ['vacuum-index-cleanup', 'fillfactor-hot-updates'])
  await cp(path.join(DEFAULT_SCENARIOS_DIR, key), path.join(scenarios, key), { recursive: true });
const yaml = path.join(scenarios, 'vacuum-index-cleanup', 'scenario.yaml');
await writeFile(
  yaml,
  (await readFile(yaml, 'utf8'))
    .replace(/points: \[[^\]]*\]/, 'points: [300, 600, 1200]')
    .replace(/default: 3\n/, 'default: 2\n')
    // Two blocks exactly: without its default sequential design (decision), which would add
    // blocks to these tiny, noisy tables until decided.
    .replace(/\ndecision:\n(?: {2}\S.*\n)+/, '\n'),
);

const runsDir = path.join(tmp, 'runs');
const tunelab = (args: string[]) =>
  runTunelab(args, {
    TUNELAB_SCENARIOS_DIR: scenarios,
    TUNELAB_RUNS_DIR: runsDir,
    TUNELAB_SPOOL_DIR: path.join(tmp, 'spool'),
  });

describe('tunelab run --scale-sweep', () => {
  it('measures every declared scale point in a run of its own, each written to the runs directory', async () => {
    const r = await tunelab(['run', 'vacuum-index-cleanup', '--scale-sweep', '--target', TEST_PG_URL]);
    expect(r.stderr).toMatch(
      /scale sweep 1\/3: rows=300\n[\s\S]*scale sweep 2\/3: rows=600\n[\s\S]*scale sweep 3\/3: rows=1200\n/,
    );
    expect(r.code, r.stderr).toBe(EXIT.OK);
    const files = await readdir(runsDir);
    const rows = await Promise.all(
      files.map(async (f) => {
        const run = JSON.parse(await readFile(path.join(runsDir, f), 'utf8')) as {
          submission: { params: { rows: number }; options: { repetitions: number } };
        };
        expect(run.submission.options.repetitions).toBe(2);
        return run.submission.params.rows;
      }),
    );
    expect(rows.sort((a, b) => a - b)).toEqual([300, 600, 1200]);
    // Three runs one after another, each a CLI start (~10 s at load 10), a disk probe (≤ 6.6 s), the
    // noise probes (≤ 2 s) and a tiny fixture: up to ~90 s each on a busy machine.
  }, 300_000);

  it.each([
    [['--out', 'x.json'], /cannot be combined with --out/],
    [['--json'], /cannot be combined with --json/],
    [['--param', 'rows=5'], /drop --param rows=5, or drop --scale-sweep/],
  ])('refuses %j with a sentence and exit 2', async (extra, message) => {
    const r = await tunelab(['run', 'vacuum-index-cleanup', '--scale-sweep', '--target', TEST_PG_URL, ...extra]);
    expect(r.code).toBe(EXIT.USAGE);
    expect(r.stderr).toMatch(message);
    expect(r.stderr).not.toMatch(/scale sweep 1\//);
  });

  it('refuses a scenario that declares no scale', async () => {
    const r = await tunelab(['run', 'fillfactor-hot-updates', '--scale-sweep', '--target', TEST_PG_URL]);
    expect(r.code).toBe(EXIT.USAGE);
    expect(r.stderr).toMatch(/fillfactor-hot-updates declares no scale parameter/);
  });
});
