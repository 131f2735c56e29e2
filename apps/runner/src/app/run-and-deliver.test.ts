import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DEFAULT_SCENARIOS_DIR, loadScenario } from '@tunelab/scenarios';
import { readConfig } from '../config.ts';
import { postgresDriver } from '../engines/postgresql/driver.ts';
import { cleanupRun } from '../engine/run-scenario.ts';
import { EXIT } from '../exit-codes.ts';
import { TEST_PG_URL } from '../test-support/pg.ts';
import { runAndDeliver } from './run-and-deliver.ts';

const dir = await mkdtemp(path.join(os.tmpdir(), 'tunelab-deliver-'));
const runIds: string[] = [];
afterAll(async () => {
  for (const id of runIds) await cleanupRun(postgresDriver, TEST_PG_URL, id);
  await rm(dir, { recursive: true, force: true });
});

describe('runAndDeliver: keep, then show', () => {
  it('writes the run file before the renderer runs, and a renderer that throws costs nothing measured', async () => {
    const scenario = await loadScenario(path.join(DEFAULT_SCENARIOS_DIR, 'vacuum-index-cleanup'));
    const said: string[] = [];
    const fileOf = (runId: string) => path.join(dir, `${runId}.json`);
    let fileWhenShown: boolean | null = null;
    let keptFile: string | null | undefined;
    const delivered = await runAndDeliver(
      { scenario, target: TEST_PG_URL, params: { rows: '2000' }, repetitions: 2 },
      {
        config: { ...readConfig({}), runsDir: dir },
        api: null,
        fileOf,
        say: (line) => said.push(line),
        log: (line) => said.push(line),
        onMeasured: (run) => {
          runIds.push(run.runId);
          fileWhenShown = existsSync(fileOf(run.runId));
          throw new Error('the table renderer broke');
        },
        onKept: (saved) => {
          keptFile = saved.file;
        },
      },
    );
    const runId = delivered.run.runId;
    expect(fileWhenShown).toBe(true);
    expect(keptFile).toBe(fileOf(runId));
    expect(delivered.code).toBe(EXIT.OK);
    expect(said).toContainEqual(
      `run ${runId}: showing the measured run failed (the table renderer broke); the run is kept and delivered all the same`,
    );
    const onDisk = JSON.parse(await readFile(fileOf(runId), 'utf8')) as {
      runId: string;
      submission: { samples: unknown[] };
    };
    expect(onDisk.runId).toBe(runId);
    expect(onDisk.submission.samples.length).toBe(delivered.run.submission.samples.length);
    expect(onDisk.submission.samples.length).toBeGreaterThan(0);
  });
});
