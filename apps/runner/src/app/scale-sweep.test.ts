import { describe, expect, it } from 'vitest';
import { DEFAULT_SCENARIOS_DIR, loadScenario } from '@tunelab/scenarios';
import { UsageError } from '../errors.ts';
import { scaleSweepRuns } from './scale-sweep.ts';

const doc = async (key: string) => (await loadScenario(`${DEFAULT_SCENARIOS_DIR}${key}`)).doc;

describe('--scale-sweep', () => {
  it('runs a scenario once per declared scale point, keeping the other parameters', async () => {
    expect(scaleSweepRuns(await doc('vacuum-index-cleanup'), { foo: 'x' })).toEqual([
      { foo: 'x', rows: '100000' },
      { foo: 'x', rows: '200000' },
      { foo: 'x', rows: '400000' },
      { foo: 'x', rows: '800000' },
    ]);
  });

  it('sweeps a swept scale parameter in one run', async () => {
    expect(scaleSweepRuns(await doc('recovery-init-sync'), {})).toEqual([{ tables: '3000,10000,30000' }]);
  });

  it('refuses a scenario without a scale, or the scale parameter given too, with a sentence', async () => {
    expect(() => scaleSweepRuns({ key: 'x' } as never, {})).toThrow(UsageError);
    await expect(doc('fillfactor-hot-updates').then((d) => scaleSweepRuns(d, {}))).rejects.toThrow(
      /fillfactor-hot-updates declares no scale parameter/,
    );
    await expect(doc('vacuum-index-cleanup').then((d) => scaleSweepRuns(d, { rows: '5' }))).rejects.toThrow(
      /drop --param rows=5, or drop --scale-sweep/,
    );
  });
});
