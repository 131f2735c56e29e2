/**
 * A release line's change labels: changes at adjacent releases (as the release matrix measured
 * 15.18 and 16.1 on this VM) stack their labels in rows instead of writing one over the other;
 * the note under a line names the releases measured only on a busy machine.
 */
import { describe, expect, it } from 'vitest';
import type { ReleaseSeries, ReleaseStep } from '@tunelab/contracts';
import { drawReleaseLine, thresholdNote } from '../src/lib/release-line.ts';

const RELEASES = ['15.5', '15.10', '15.18', '16.1', '16.5', '17.0', '17.6', '18.0', '18.4'];

function step(from: string, to: string, change: number, reported: boolean): ReleaseStep {
  return {
    from,
    to,
    change,
    ci95: { low: change - 0.05, high: change + 0.05 },
    method: 'paired-blocks',
    p: 0.001,
    adjusted: {
      method: 'benjamini-hochberg',
      p: 0.004,
      family: 8,
      ci: { low: change - 0.07, high: change + 0.07 },
      level: 0.99375,
    },
    reported,
    sentence: '',
  };
}

const series = (reportedAt: readonly string[]): ReleaseSeries => ({
  hardwareClass: '2 cores / 24 GB / NVMe-like',
  engine: 'postgresql',
  scenarioVersion: 'v',
  params: { rows: 200000 },
  point: null,
  baseline: '1-1',
  candidate: '1-2',
  threshold: { value: 0.17, basis: 'class-noise', sentence: '' },
  releases: RELEASES.map((release) => ({
    release,
    runs: 1,
    fallbackRuns: 0,
    noisyRuns: 0,
    blocks: 15,
    ratio: 1.2,
    ratioCi: { low: 1.1, high: 1.3 },
    drift: null,
  })),
  steps: RELEASES.slice(1).map((to, i) => step(RELEASES[i]!, to, -0.229, reportedAt.includes(to))),
});

/** Each label's box, as the drawing places it: x from the mark, 7 px a character, 13 px a row. */
const boxes = (reportedAt: readonly string[], width?: number) =>
  drawReleaseLine(series(reportedAt), width).marks.map((m) => ({
    left: m.x + 3,
    right: m.x + 3 + m.label.length * 7,
    row: m.row,
  }));

describe('change labels on a release line', () => {
  it('at adjacent releases go one row apart, and never overlap, wide or narrow', () => {
    for (const width of [undefined, 360]) {
      const b = boxes(['15.18', '16.1', '16.5'], width);
      expect(b.map((x) => x.row)).toEqual([0, 1, 2]);
      for (const [i, x] of b.entries())
        for (const y of b.slice(i + 1)) expect(x.row !== y.row || x.right <= y.left, `${width}`).toBe(true);
    }
  });

  it('far apart stay on the top row', () => {
    expect(boxes(['15.10', '17.6']).map((x) => x.row)).toEqual([0, 0]);
  });
});

describe('the note under a release line', () => {
  const noisyOn = (busy: readonly string[]): ReleaseSeries => {
    const s = series([]);
    return { ...s, releases: s.releases.map((p) => (busy.includes(p.release) ? { ...p, noisyRuns: p.runs } : p)) };
  };

  it('names the releases whose every run was flagged noisy, and asks for them to be measured again', () => {
    expect(thresholdNote(noisyOn([]), 0)).not.toContain('noisy');
    expect(thresholdNote(noisyOn(['15.18']), 0)).toContain(
      'Every run on 15.18 was flagged noisy (measured on a busy machine), so no change to or from it is reported: measure it again on a quiet machine.',
    );
    expect(thresholdNote(noisyOn(['15.10', '15.18', '16.1']), 0)).toContain(
      'Every run on 15.10, 15.18 and 16.1 was flagged noisy',
    );
  });

  it('draws such a release hollow, its title saying why', () => {
    const d = drawReleaseLine(noisyOn(['15.18']));
    expect(d.points.filter((p) => p.busy).map((p) => p.release)).toEqual(['15.18']);
    expect(d.points.find((p) => p.busy)!.title).toContain('every one flagged noisy (a busy machine)');
  });

  it('does not name a release where only some runs were flagged noisy', () => {
    const s = series([]);
    const some = {
      ...s,
      releases: s.releases.map((p) => ({ ...p, runs: 3, noisyRuns: p.release === '15.18' ? 2 : 0 })),
    };
    expect(thresholdNote(some, 0)).not.toContain('noisy');
  });
});
