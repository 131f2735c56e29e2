/**
 * An agent whose runs directory is full keeps the measured run — written to the OS temp
 * directory instead, submitted with its job, and the job completes — as `tunelab run` does
 * (apps/runner/src/full-disk.test.ts uses the same full tmpfs). Real processes: the API on its own
 * PostgreSQL database, `tunelab agent --once` against the test PostgreSQL.
 */
import { mkdir, readdir } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openResultsDb } from '@tunelab/results-db';
import { createTestDatabase } from '@tunelab/results-db/testing';
import { Job, RunList } from '@tunelab/contracts';
import { canMountTmpfs, fullTmpfs } from '@tunelab/test-support';
import { apiProcess, runTunelab, scratch, TARGET } from './support.ts';

const { tmp, cleanups } = await scratch('tl-agent-full-');

/** A full 256 kB tmpfs with an empty `runs` directory on it. */
async function fullDisk(): Promise<string> {
  const full = path.join(tmp, 'full');
  const { unmount } = await fullTmpfs(full, ['runs']);
  cleanups.push(unmount);
  return full;
}

// Skipped only without root (mount needs it); CI and this machine run as root, so it runs there.
// There is no unprivileged way to fill just the runs directory.
describe.skipIf(!canMountTmpfs)('an agent whose runs directory is full', () => {
  it('keeps the measured run elsewhere, submits it with its job, and the job completes', async () => {
    const full = await fullDisk();
    const database = await createTestDatabase('tl_agent_full');
    cleanups.push(() => database.drop());
    const db = await openResultsDb(database.url);
    await db.migrate();
    const agentToken = (await db.createRunner('full-disk-agent')).token;
    const operator = (await db.createRunner('full-disk-ops', { kind: 'operator' })).token;
    await db.close();
    const { start } = apiProcess({ DATABASE_URL: database.url }, cleanups);
    const url = await start();
    const asOperator = { authorization: `Bearer ${operator}`, 'content-type': 'application/json' };
    const requested = await fetch(`${url}/v1/jobs`, {
      method: 'POST',
      headers: asOperator,
      body: JSON.stringify({ scenario: 'vacuum-index-cleanup', params: { rows: 1000 }, repetitions: 1 }),
    });
    expect(requested.status).toBe(201);
    const job = Job.parse(await requested.json());

    const agentTmp = path.join(tmp, 'os-tmp');
    await mkdir(agentTmp);
    const agent = await runTunelab(
      ['agent', '--api', url, '--token', agentToken, '--target', TARGET, '--storage', 'ssd', '--once', '--wait', '60'],
      {
        TUNELAB_RUNS_DIR: path.join(full, 'runs'),
        TUNELAB_SPOOL_DIR: path.join(tmp, 'spool'),
        TUNELAB_LEDGER_DIR: path.join(tmp, 'in-flight'),
        // The OS temp directory, where a run file goes when the runs directory cannot take it.
        TMPDIR: agentTmp,
      },
    );
    const log = agent.stdout + agent.stderr;
    expect(agent.code, log).toBe(0);
    expect(log).toMatch(
      /could not be written where asked \(.*no space left on the device\); written to .*tunelab-runs/,
    );
    const done = Job.parse(await (await fetch(`${url}/v1/jobs/${job.id}`, { headers: asOperator })).json());
    expect(done.state, log).toBe('completed');
    const runs = RunList.parse(await (await fetch(`${url}/v1/runs?limit=10`)).json()).items;
    expect(runs.map((r) => r.id)).toEqual([done.runId]);
    // The run file is kept where it was written instead.
    expect(await readdir(path.join(agentTmp, 'tunelab-runs'))).toHaveLength(1);
    expect(await readdir(path.join(full, 'runs'))).toEqual([]);
  });
});
