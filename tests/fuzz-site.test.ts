/**
 * The site builds over whatever the API stored from generated submissions — valid
 * bodies with prototype names, any Unicode, extreme values and dates at the edges of the
 * contract, and mutated ones (refused, so they must leave no trace). The API side of the
 * property is apps/api/test/run-fuzz.test.ts; this is the site build after such a run, on the
 * embedded PGlite database. FUZZ_RUNS / FUZZ_SEED as there (`npm run fuzz`).
 */
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '@tunelab/api';
import { fc, runSubmissionBody } from '@tunelab/contracts/testing';
import { buildSite } from './support.ts';
import { openResultsDb } from '@tunelab/results-db';
import { fuzzSettings } from '@tunelab/env/testing';

/** The seed is fixed in `npm test`; `npm run fuzz` draws one (FUZZ_SEED=random) and the test name shows it. */
const { numRuns: NUM_RUNS, seed: SEED } = fuzzSettings(120);

/** `npm run build -w @tunelab/site` into `outDir`, over the PGlite database in `dataDir` only. */

let work: string;
beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'tunelab-fuzz-site-'));
});
afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

describe(`site build after ${NUM_RUNS} generated submissions (seed ${SEED})`, () => {
  it(
    'stores the valid ones through the API, then builds a page for every stored run',
    { timeout: 120_000 + NUM_RUNS * 200 },
    async () => {
      const dataDir = join(work, 'db');
      const db = await openResultsDb(undefined, { dataDir });
      const stored: string[] = [];
      try {
        await db.migrate();
        const app = await buildApp({ resultsDb: db, migrate: false, rateLimitPerMinute: 1_000_000 });
        const { token } = await db.createRunner('fuzz-site');
        try {
          for (const body of fc.sample(runSubmissionBody(), { numRuns: NUM_RUNS, seed: SEED })) {
            const res = await app.inject({
              method: 'POST',
              url: '/v1/runs',
              headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
              payload: body,
            });
            expect(res.statusCode, res.body.slice(0, 400)).toBeLessThan(500);
            if (res.statusCode === 201) stored.push(res.json<{ id: string }>().id);
          }
        } finally {
          await app.close();
        }
      } finally {
        await db.close();
      }
      expect(stored.length).toBeGreaterThan(NUM_RUNS / 10);

      const out = join(work, 'dist');
      const build = await buildSite(out, { TUNELAB_DATA_DIR: dataDir });
      expect(build.code, build.out.slice(-3000)).toBe(0);
      expect(existsSync(join(out, 'index.html'))).toBe(true);
      for (const id of stored) expect(existsSync(join(out, `runs/${id}/index.html`)), id).toBe(true);
    },
  );
});
