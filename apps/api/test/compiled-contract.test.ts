/**
 * `POST /v1/runs` validates with the submission contract compiled by zod (`RunSubmissionBody` in
 * routes/runs.ts), for speed. Compiling must change nothing a client can see: for valid and
 * mutated bodies alike, the compiled schema accepts exactly what the contract accepts, returns the
 * same value (defaults filled in) and reports the same issues, paths and messages.
 */
import { describe, expect, it } from 'vitest';
import { RunSubmission } from '@tunelab/contracts';
import { fc, mutatedRunSubmission, validRunSubmission } from '@tunelab/contracts/testing';
import { fuzzSettings } from '@tunelab/env/testing';
import { RunSubmissionBody } from '../src/routes/runs.ts';

const { numRuns: NUM_RUNS, seed: SEED } = fuzzSettings(600);

describe(`the compiled RunSubmission over ${NUM_RUNS} generated bodies (seed ${SEED})`, () => {
  it('is compiled (z.compile hands back the schema itself when it cannot compile it)', () => {
    expect(RunSubmissionBody).not.toBe(RunSubmission);
  });

  it('accepts, returns and refuses exactly as the contract does', () => {
    let refused = 0;
    fc.assert(
      fc.property(
        fc.oneof(
          validRunSubmission().map((d) => JSON.stringify(d)),
          mutatedRunSubmission(),
        ),
        (json) => {
          let doc: unknown;
          try {
            doc = JSON.parse(json);
          } catch {
            return; // not JSON: refused before validation
          }
          const expected = RunSubmission.safeParse(doc);
          const got = RunSubmissionBody.safeParse(doc);
          expect(got.success).toBe(expected.success);
          if (expected.success) expect(got.data).toEqual(expected.data);
          else {
            refused++;
            expect(got.error?.issues).toEqual(expected.error.issues);
          }
        },
      ),
      { numRuns: NUM_RUNS, seed: SEED },
    );
    // Both sides of the contract were exercised.
    expect(refused).toBeGreaterThan(NUM_RUNS / 10);
    expect(refused).toBeLessThan(NUM_RUNS);
  });
});
