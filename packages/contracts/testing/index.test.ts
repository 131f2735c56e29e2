import { describe, expect, it } from 'vitest';
import { LIMITS } from '../src/primitives.ts';
import { RunSubmission } from '../src/run.ts';
import { expectedStatusOf, fc, mutatedRunSubmission, validRunSubmission } from './index.ts';

describe('the RunSubmission arbitraries', () => {
  it('generate bodies the contract accepts', () => {
    for (const d of fc.sample(validRunSubmission(), { numRuns: 200, seed: 1 })) {
      const r = RunSubmission.safeParse(JSON.parse(JSON.stringify(d)));
      expect(r.error?.issues.slice(0, 3)).toBeUndefined();
    }
  });

  it('generate the same mutated bodies for the same seed (no shared constant is edited), refused more often than not', () => {
    const a = fc.sample(mutatedRunSubmission(), { numRuns: 300, seed: 7 });
    const b = fc.sample(mutatedRunSubmission(), { numRuns: 300, seed: 7 });
    expect(a).toEqual(b);
    expect(a.filter((body) => expectedStatusOf(body).kind === 'refused').length).toBeGreaterThan(150);
  });

  it('expects a 413 for a body over LIMITS.bodyBytes', () => {
    expect(expectedStatusOf(`{"notes":"${'x'.repeat(LIMITS.bodyBytes)}"}`)).toEqual({ kind: 'too-large' });
    expect(expectedStatusOf('{}').kind).toBe('refused');
  });
});
