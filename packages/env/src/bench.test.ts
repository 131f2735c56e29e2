import { spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { progressLine } from './bench.ts';

describe('progressLine', () => {
  it('prints done of total, the rate and the time left from the phase start', () => {
    expect(progressLine('claim', 65, { done: 4_210, total: 10_000, unit: 'jobs' })).toBe(
      '[01:05] claim: 4,210 of 10,000 jobs, 65/s, about 90 s left',
    );
  });

  it('leaves out the time left when done or without a total, and adds the note', () => {
    expect(progressLine('load', 10, { done: 50, total: 50, unit: 'rows', extra: 'size 2 of 3' })).toBe(
      '[00:10] load: 50 of 50 rows, 5.0/s; size 2 of 3',
    );
    expect(progressLine('reads', 4, { done: 8, total: 0, unit: 'reads' })).toBe('[00:04] reads: 8 reads, 2.0/s');
  });

  it('prints a phase without a count as its note', () => {
    expect(progressLine('astro build', 615, 'still running')).toBe('[10:15] astro build: still running');
  });
});

describe('progressNotes', () => {
  it('prints from its worker while this thread is blocked, and the note set last', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'tunelab-progress-'));
    const file = path.join(dir, 'stderr');
    const bench = fileURLToPath(new URL('./bench.ts', import.meta.url));
    // The child blocks its main thread until its own stderr file holds two lines of the new note
    // (at most 60 s): only the worker can have written them.
    const script = `
      import { readFileSync } from 'node:fs';
      import { progressNotes } from ${JSON.stringify(bench)};
      const lines = progressNotes('blocked', 'first', 50);
      lines.set('second');
      const end = Date.now() + 60_000;
      while (Date.now() < end && (readFileSync(${JSON.stringify(file)}, 'utf8').match(/: second\\n/g) ?? []).length < 2);
      lines.stop();`;
    try {
      const fd = openSync(file, 'w');
      const code = await new Promise<number | null>((resolve) =>
        spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
          stdio: ['ignore', 'ignore', fd],
        }).once('exit', resolve),
      );
      closeSync(fd);
      expect(code).toBe(0);
      const text = readFileSync(file, 'utf8');
      expect(text.match(/^\[\d\d:\d\d\] blocked: second$/gm)?.length).toBeGreaterThanOrEqual(2);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 90_000);
});
