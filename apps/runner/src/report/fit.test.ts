import { describe, expect, it } from 'vitest';
import { validateScenarioDocument, type Sample } from '@tunelab/contracts';
import { submissionOf } from '../test-support/submission.ts';
import { renderRunTable } from './table.ts';

describe('report.fits', () => {
  it("the runner prints µs per file per variant, pairing each unit's metric with its own file count", () => {
    const base = {
      key: 'fit-demo',
      title: 'fit demo',
      engines: ['postgresql'],
      fixture: [{ action: 'sql', sql: 'SELECT 1' }],
      variants: ['fsync', 'syncfs'].map((key) => ({
        key,
        label: key,
        steps: [{ action: 'timed', steps: [{ action: 'sql', sql: 'SELECT 1' }] }],
      })),
      metrics: [
        { key: 'duration', source: 'timed', unit: 's', better: 'lower' },
        { key: 'sync_duration', source: 'recorded', unit: 'ms', better: 'lower' },
        { key: 'datadir_files', source: 'recorded', unit: 'files', better: 'lower' },
      ],
      repetitions: { default: 1 },
    };
    const bad = validateScenarioDocument({
      ...base,
      report: { fits: [{ metric: 'sync_duration', per: 'files', label: 'µs per file' }] },
    });
    expect(bad.ok ? [] : bad.issues.map((i) => `${i.path}: ${i.message}`)).toEqual([
      'report.fits[0].per: unknown metric "files"; expected one of: duration, sync_duration, datadir_files',
    ]);
    const doc = validateScenarioDocument({
      ...base,
      report: { fits: [{ metric: 'sync_duration', per: 'datadir_files', label: 'µs per file', factor: 1000 }] },
    });
    if (!doc.ok) throw new Error(JSON.stringify(doc.issues));
    const samples: Sample[] = [];
    for (const [i, files] of [10_000, 30_000, 100_000].entries()) {
      const point = { param: 'tables', value: files };
      samples.push({
        variant: 'fsync',
        repetition: 1,
        point,
        metric: 'datadir_files',
        unit: 'files',
        value: files + 1000,
      });
      samples.push({
        variant: 'fsync',
        repetition: 1,
        point,
        metric: 'sync_duration',
        unit: 'ms',
        value: 0.16 * (files + 1000) + i,
      });
      samples.push({
        variant: 'syncfs',
        repetition: 1,
        point,
        metric: 'datadir_files',
        unit: 'files',
        value: files + 1000,
      });
      samples.push({ variant: 'syncfs', repetition: 1, point, metric: 'sync_duration', unit: 'ms', value: 20 });
    }
    const text = renderRunTable({ doc: doc.scenario, published: null }, submissionOf(doc.scenario, samples));
    expect(text).toMatch(/fit: sync_duration against datadir_files/);
    expect(text).toMatch(/fsync\s+160\.\d\d\s/);
    expect(text).toMatch(/syncfs\s+0\.00\s+0\.00–0\.00\s+/);
    expect(text).toMatch(/95% CI/);
  });
});

describe('report.ratios', () => {
  it('the runner prints each variant ÷ the baseline with its interval', () => {
    const doc = validateScenarioDocument({
      key: 'ratio-demo',
      title: 'ratio demo',
      engines: ['postgresql'],
      fixture: [{ action: 'sql', sql: 'SELECT 1' }],
      variants: ['ff100', 'ff50'].map((key) => ({
        key,
        label: key,
        steps: [{ action: 'timed', steps: [{ action: 'sql', sql: 'SELECT 1' }] }],
      })),
      metrics: [
        { key: 'duration', source: 'timed', unit: 's', better: 'lower' },
        { key: 'size', source: 'recorded', unit: 'MB', better: 'lower' },
      ],
      repetitions: { default: 1 },
      report: { ratios: [{ metric: 'size', baseline: 'ff100', label: 'size ÷ ff100' }] },
    });
    if (!doc.ok) throw new Error(JSON.stringify(doc.issues));
    const samples: Sample[] = [1, 2, 3].flatMap((repetition) => [
      { variant: 'ff100', repetition, metric: 'size', unit: 'MB', value: 100 + repetition },
      { variant: 'ff50', repetition, metric: 'size', unit: 'MB', value: 2 * (100 + repetition) },
    ]);
    const text = renderRunTable({ doc: doc.scenario, published: null }, submissionOf(doc.scenario, samples));
    expect(text).toMatch(/ratio: size ÷ ff100, mean over every unit/);
    expect(text).toMatch(/ff100\s+1\.00\s+baseline\s+3/);
    expect(text).toMatch(/ff50\s+2\.00\s+1\.9\d–2\.0\d\s+3/);
  });
});
